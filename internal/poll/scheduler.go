package poll

import (
	"math"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
)

// Mode names the rule that chose a wait; it is logged with each decision.
type Mode string

const (
	// ModeInitial: the first observation; there is nothing to extrapolate.
	ModeInitial Mode = "initial"
	// ModeEstimate: progress is rising (or has not moved for less time than
	// rounding explains); the wait converges on the estimated completion.
	ModeEstimate Mode = "estimate"
	// ModePaused: progress stopped, but the estimated completion is still
	// far enough ahead that the wait keeps aiming at it.
	ModePaused Mode = "paused"
	// ModeStalled: progress stopped and the estimate is spent, or there is
	// none: capped exponential backoff.
	ModeStalled Mode = "stalled"
	// ModeRegressed: progress went backwards; the estimate starts over.
	ModeRegressed Mode = "regressed"
	// ModeNoProgress: the observation carried no progress.
	ModeNoProgress Mode = "no-progress"
	// ModeError: the poll failed with a transient error.
	ModeError Mode = "error"
)

// Decision is the wait chosen after one observation, with the reasoning
// behind it for logs and simulations.
type Decision struct {
	Wait time.Duration // jittered wait before the next poll
	Mode Mode
	// Rate (percent per second) and ETA are the current estimate, if any.
	Rate float64
	ETA  time.Time
	// Erratic reports that the job's rate has recently changed far more
	// than rounding explains, so estimates are trusted much less.
	Erratic bool
}

// Estimator tuning, chosen by simulating the mock API's linear, noisy and
// stalling jobs of 5s to 30m (see sim_test.go and `make bench`).
//
// A wait aims at (1-u) of the estimated time left plus TargetLatency, where u
// is the uncertainty of the estimate, or onTimeMargin after the estimated
// completion if that is sooner.
const (
	// uncertaintyNew applies while the rate rests on one or two intervals.
	uncertaintyNew = 0.5
	// uncertaintySteady applies while every interval's rate has matched the
	// previous one within rounding: a job up to 1.11x faster than estimated
	// is still caught within TargetLatency. Noise (how far interval rates
	// have recently strayed from each other, as a fraction) adds to it.
	uncertaintySteady = 0.1
	// uncertaintyErratic applies to an erratic job: one up to 2.5x faster
	// than estimated is still caught.
	uncertaintyErratic = 0.6
	// erraticNoise is the noise beyond which a job is erratic: its rate
	// changed by half again or more between two intervals. Progress that is
	// merely noisy strays less, and pays only the noise in uncertainty.
	erraticNoise = 0.5
	// noiseDecay is how much of the noise is remembered at each rise, so that
	// a rate that settles is trusted again.
	noiseDecay = 0.7
	// trustSteady and trustErratic bound a wait to this multiple of the time
	// the estimate is based on: a rate seen over a few seconds is not
	// extrapolated to an hour, and an erratic one not even to twice as long.
	trustSteady  = 6.0
	trustErratic = 1.0
	// stallAgeFraction caps the backoff of a stalled job at this fraction of
	// the time since the first poll (and at MaxInterval): a stall of a young
	// job is noticed within a third of its age, rather than a fixed 8s late.
	stallAgeFraction = 1.0 / 3
	// firstRiseBoost: the first rise after a flat period (the queue, say)
	// may have begun anywhere in the interval, so the measured rate is only
	// a lower bound.
	firstRiseBoost = 2.0
	// roundingWindow: progress that has not moved for less than this many
	// rounding steps' worth of time is taken as still moving.
	roundingWindow = 2.0
	// regressTolerance is how far, in percentage points, progress may dip
	// (or one rounding step, if larger) before it counts as going backwards
	// rather than as noise.
	regressTolerance = 0.5
	// onTimeMargin is how long after the estimated completion a job that
	// keeps its pace is polled: TargetLatency is for a job faster than
	// estimated, and adding it to every wait would make the punctual ones
	// (most of them) pay it too.
	onTimeMargin = 100 * time.Millisecond
)

// Scheduler decides how long to wait before the next poll from the history of
// observations. It is deterministic given Policy.Rand and never sleeps, so a
// simulator can step it directly; Until uses it for every wait.
type Scheduler struct {
	p Policy

	// last is the latest observation with progress; anchor is where the
	// current run of progress began (the first sample, or the one after a
	// regression).
	last, anchor sample
	hasProgress  bool
	// rises counts consecutive rising observations; risenAt is the latest.
	rises   int
	risenAt time.Time
	// step is the finest resolution seen in reported progress (a reading of
	// 12.5 proves it is at most 0.1). Readings are rounded, so each is
	// uncertain by half of it.
	step float64
	est  estimate

	// first is when the first observation was seen.
	first time.Time
	// base is the last un-jittered wait; backoff doubles from it.
	base time.Duration
	// errors counts consecutive failed polls.
	errors int
}

type sample struct {
	at       time.Time
	progress float64
}

// estimate is the current prediction of completion; zero when there is none.
type estimate struct {
	rate    float64 // percent per second; 0: no estimate
	eta     time.Time
	u       float64 // uncertainty of eta as a fraction of the time left
	erratic bool
	// lo and hi bound the latest interval's rate, allowing for rounding.
	lo, hi float64
	// noise is how far recent interval rates strayed from each other beyond
	// rounding, as a fraction (capped at 1).
	noise float64
}

// NewScheduler returns a Scheduler for p, with defaults applied.
func NewScheduler(p Policy) *Scheduler {
	return &Scheduler{p: p.withDefaults()}
}

// Policy returns the effective policy, defaults applied.
func (s *Scheduler) Policy() Policy { return s.p }

// Decide records obs, seen at now, and returns the wait before the next
// poll with the reasoning behind it.
func (s *Scheduler) Decide(now time.Time, obs Observation) Decision {
	s.errors = 0
	if s.first.IsZero() {
		s.first = now
	}
	if obs.Progress == nil || math.IsNaN(*obs.Progress) {
		m := ModeNoProgress
		if s.base == 0 {
			m = ModeInitial
		}
		return s.decide(m, s.backoff())
	}
	cur := sample{at: now, progress: min(max(*obs.Progress, 0), 100)}
	if r := resolution(cur.progress); s.step == 0 || r < s.step {
		s.step = r
	}
	if !s.hasProgress {
		s.hasProgress = true
		s.last, s.anchor = cur, cur
		return s.decide(ModeInitial, s.p.InitialInterval)
	}
	prev := s.last
	s.last = cur
	switch {
	case cur.progress > prev.progress && cur.at.After(prev.at):
		s.rises++
		s.risenAt = now
		return s.rising(prev, cur)
	case cur.progress < prev.progress-max(regressTolerance, s.step):
		// The job restarted or reports another phase: the old rate says
		// nothing about the new run.
		s.anchor, s.rises, s.est = cur, 0, estimate{}
		return s.decide(ModeRegressed, s.backoff())
	default:
		s.rises = 0
		return s.flat(now)
	}
}

// DecideError records a failed poll and returns the wait before the retry.
// The estimate is kept, so polling resumes where it left off.
func (s *Scheduler) DecideError() Decision {
	s.errors++
	b := clock.Backoff{Base: s.p.InitialInterval, Max: s.p.MaxInterval, Factor: 2, Jitter: -1}
	return s.jittered(s.withEstimate(Decision{Mode: ModeError, Wait: b.Delay(s.errors - 1)}))
}

// rising estimates the completion from rising progress and aims at it.
func (s *Scheduler) rising(prev, cur sample) Decision {
	dt := cur.at.Sub(prev.at).Seconds()
	span := cur.at.Sub(s.anchor.at).Seconds()
	delta := cur.progress - prev.progress
	overall := (cur.progress - s.anchor.progress) / span
	// Rounding of the two readings can make a short interval's rate look
	// up to twice as fast or slow; lo and hi bound the real one.
	lo, hi := max(delta-s.step, 0)/dt, (delta+s.step)/dt

	// The faster of the average and the latest rate gives the earlier
	// completion: polling early costs one request, polling late costs
	// latency.
	rate, u := max(overall, lo), uncertaintyNew
	switch s.rises {
	case 1:
		rate = max(overall, firstRiseBoost*delta/dt)
	case 2:
		// The first rate measured over a whole interval; nothing to compare
		// it with yet.
	default:
		var miss float64
		switch {
		case lo > s.est.hi:
			miss = lo/s.est.hi - 1
		case hi < s.est.lo:
			miss = s.est.lo/hi - 1
		}
		s.est.noise = max(min(miss, 1), noiseDecay*s.est.noise)
		s.est.erratic = s.est.noise > erraticNoise
		u = uncertaintySteady + s.est.noise
		if s.est.erratic {
			u = uncertaintyErratic
		}
	}
	s.est.rate, s.est.u, s.est.lo, s.est.hi = rate, u, lo, hi
	s.est.eta = cur.at.Add(seconds((100 - cur.progress) / rate))

	aim, earliest := s.towardETA(cur.at)
	wait := min(aim, s.trusted(span))
	return s.decideNotBefore(ModeEstimate, clampDuration(wait, s.p.MinInterval, s.p.MaxEstimatedInterval), earliest)
}

// flat handles progress that did not rise.
func (s *Scheduler) flat(now time.Time) Decision {
	backoff := s.backoff()
	if s.est.rate <= 0 {
		return s.decide(ModeStalled, backoff)
	}
	aim, earliest := s.towardETA(now)
	// A reading that has not moved for less time than one or two rounding
	// steps take is no news: keep aiming at the estimate (this is how a
	// long job's last percent looks), but never back off further.
	if now.Sub(s.risenAt).Seconds() <= roundingWindow*s.step/s.est.rate {
		return s.decideNotBefore(ModeEstimate, clampDuration(aim, s.p.MinInterval, backoff), earliest)
	}
	// While the estimated completion is well ahead, a pause is not yet a
	// stall: the job may resume, and cannot finish without progressing. The
	// estimate is trusted no further than while the job was rising.
	if now.Before(s.est.eta) && aim > backoff {
		return s.decideNotBefore(ModePaused, min(aim, s.p.MaxEstimatedInterval, s.trusted(now.Sub(s.anchor.at).Seconds())), earliest)
	}
	// Otherwise it may finish, or jump to done, at any moment: poll at
	// least every MaxInterval, and sooner while the job is young.
	young := seconds(stallAgeFraction * now.Sub(s.first).Seconds())
	return s.decide(ModeStalled, min(backoff, max(young, s.p.MinInterval)))
}

// trusted is the longest wait an estimate based on span seconds of history
// may justify.
func (s *Scheduler) trusted(span float64) time.Duration {
	if s.est.erratic {
		return seconds(trustErratic * span)
	}
	return seconds(trustSteady * span)
}

// towardETA is the wait that lands at (1-u) of the time left to the
// estimated completion plus TargetLatency: a job up to 1/(1-u) times faster
// than estimated is still caught within TargetLatency, and a slower one costs
// one more poll, at a shorter distance. It never lands later than
// onTimeMargin after the estimated completion, so a job that keeps its pace
// is caught within that margin; earliest is the shortest wait jitter may
// leave of such a wait, so that jitter does not land it before the
// completion.
//
// Rounding of the latest reading makes the time left uncertain by half a step
// of progress, or a whole step at the top reading, where a job may sit until
// it is done. Within that window completion may come at any moment; polls are
// spaced at least an eighth of it apart so that coarse readings of a slow job
// cannot cost more than about eight polls.
func (s *Scheduler) towardETA(now time.Time) (wait, earliest time.Duration) {
	left := max(s.est.eta.Sub(now).Seconds(), 0)
	quantum := s.step / 2
	if s.last.progress >= 100-s.step {
		quantum = s.step
	}
	window := quantum / s.est.rate
	wait = seconds(max((1-s.est.u)*left-window, window/8)) + s.p.TargetLatency
	// The latest reading may have been rounded down: the completion may
	// come up to window later than estimated.
	if onTime := seconds(left+window) + onTimeMargin; onTime < wait {
		return onTime, onTime - 2*onTimeMargin/3
	}
	return wait, 0
}

// backoff doubles the previous wait, capped at MaxInterval; the first wait is
// InitialInterval.
func (s *Scheduler) backoff() time.Duration {
	if s.base <= 0 {
		return s.p.InitialInterval
	}
	return clampDuration(2*s.base, s.p.MinInterval, s.p.MaxInterval)
}

func (s *Scheduler) decide(m Mode, wait time.Duration) Decision {
	return s.decideNotBefore(m, wait, 0)
}

// decideNotBefore is decide for a wait that jitter must not shorten below
// earliest.
func (s *Scheduler) decideNotBefore(m Mode, wait, earliest time.Duration) Decision {
	s.base = wait
	d := s.jittered(s.withEstimate(Decision{Mode: m, Wait: wait}))
	d.Wait = max(d.Wait, min(earliest, wait))
	return d
}

func (s *Scheduler) withEstimate(d Decision) Decision {
	if s.est.rate > 0 {
		d.Rate, d.ETA, d.Erratic = s.est.rate, s.est.eta, s.est.erratic
	}
	return d
}

func (s *Scheduler) jittered(d Decision) Decision {
	d.Wait = max(clock.Shorten(d.Wait, s.p.Jitter, s.p.Rand), s.p.MinInterval)
	return d
}

// resolution returns the rounding step a progress reading suggests: 1 for
// whole numbers, 0.1 for one decimal, and so on down to 1e-6.
func resolution(p float64) float64 {
	for decimals := range 6 {
		scaled := p * math.Pow10(decimals)
		if math.Abs(scaled-math.Round(scaled)) < 1e-6 {
			return math.Pow10(-decimals)
		}
	}
	return 1e-6
}

func seconds(f float64) time.Duration {
	if f >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(f * float64(time.Second))
}
