package poll

import (
	"math"
	"time"
)

// Mode names the rule that chose a wait; it is logged with each decision.
type Mode string

const (
	// ModeInitial: the first observation; there is nothing to extrapolate.
	ModeInitial Mode = "initial"
	// ModeEstimate: progress is rising; the wait converges on the estimated
	// completion.
	ModeEstimate Mode = "estimate"
	// ModePaused: progress did not rise, but the estimated completion is
	// still ahead, so the wait keeps converging on it.
	ModePaused Mode = "paused"
	// ModeStalled: progress did not rise and the job is overdue, or there
	// is no estimate: capped exponential backoff.
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
}

// Estimator tuning.
//
// The next poll lands at (1-u) of the estimated remaining time plus
// TargetLatency, where u is the uncertainty of the estimate: a job up to
// 1/(1-u) times faster than estimated is still caught within TargetLatency,
// and a slower one costs one more poll, at a shorter distance.
var (
	// uncertaintyFirst applies while the rate rests on a single interval.
	uncertaintyFirst = 0.5
	// uncertaintyMin and uncertaintyMax bound u once the job's behaviour
	// has been observed over several intervals.
	uncertaintyMin = 0.15
	uncertaintyMax = 0.45
	// surpriseDecay is how much of a past surprise (the job running faster
	// than its average) carries over to the next poll.
	surpriseDecay = 0.5
	// surpriseMargin widens u beyond the largest surprise seen.
	surpriseMargin = 0.2
	// firstRiseBoost: the first rise after a flat period may have begun
	// anywhere in the interval, so the measured rate is only a lower bound.
	firstRiseBoost = 2.0
	// trustFactor bounds a wait to this multiple of the time the estimate is
	// based on: a rate seen over a few seconds is not extrapolated to an hour.
	trustFactor = 6.0
	// regressTolerance is how far, in percentage points, progress may dip
	// before it counts as going backwards rather than as noise.
	regressTolerance = 0.5
	symmetric        = true
	roundingWindow   = 2.0
	peakWeight       = 0.0
	consecutive      = true
	volatileAt       = 100.0
	uVolatile        = 0.6
	tfVolatile       = 2.0
	topQuantum       = true
	volTrust         = false
)

// Scheduler decides how long to wait before the next poll from the history of
// observations. It is deterministic given Policy.Rand and never sleeps, so a
// simulator can step it directly; Until uses it for every wait.
type Scheduler struct {
	p     Policy
	polls int

	// last is the latest observation with progress; anchor is where the
	// current run of progress began (the first sample, or the one after a
	// regression).
	last, anchor sample
	hasProgress  bool
	// rises counts consecutive rising observations.
	rises int
	// risenAt is when progress was last seen rising.
	risenAt time.Time
	est     estimate
	// base is the last un-jittered wait; backoff doubles from it.
	base           time.Duration
	mode, prevMode Mode
	// step is the finest resolution seen in reported progress (a reading of
	// 12.5 proves it is at most 0.1): readings are rounded, so each is
	// uncertain by half of it.
	step float64
	// errors counts consecutive failed polls.
	errors int
}

type sample struct {
	at       time.Time
	progress float64
}

// estimate is the latest prediction of completion; zero when there is none.
type estimate struct {
	rate           float64 // percent per second behind eta
	overall        float64 // average rate since anchor
	eta            time.Time
	u              float64 // uncertainty applied to the last wait
	surprise       float64 // fading worst ratio of an interval's rate to the average
	peak           float64
	lastLo, lastHi float64
}

// NewScheduler returns a Scheduler for p, with defaults applied.
func NewScheduler(p Policy) *Scheduler {
	return &Scheduler{p: p.withDefaults()}
}

// Policy returns the effective policy, defaults applied.
func (s *Scheduler) Policy() Policy { return s.p }

// Next records obs, seen at now, and returns the wait before the next poll.
func (s *Scheduler) Next(now time.Time, obs Observation) time.Duration {
	return s.Decide(now, obs).Wait
}

// Decide is Next with the reasoning attached.
func (s *Scheduler) Decide(now time.Time, obs Observation) Decision {
	s.errors = 0
	s.polls++
	if obs.Progress == nil || math.IsNaN(*obs.Progress) {
		if s.polls == 1 {
			return s.fixed(ModeInitial, s.p.InitialInterval)
		}
		return s.backoff(ModeNoProgress)
	}
	cur := sample{at: now, progress: min(max(*obs.Progress, 0), 100)}
	if r := resolution(cur.progress); s.step == 0 || r < s.step {
		s.step = r
	}
	if !s.hasProgress {
		s.hasProgress = true
		s.last, s.anchor = cur, cur
		return s.fixed(ModeInitial, s.p.InitialInterval)
	}
	prev := s.last
	s.last = cur
	switch {
	case cur.progress > prev.progress && cur.at.After(prev.at):
		s.rises++
		s.risenAt = now
		return s.rising(prev, cur)
	case cur.progress < prev.progress-regressTolerance:
		// The job restarted or reports another phase: the old rate says
		// nothing about the new run.
		s.anchor, s.rises, s.est = cur, 0, estimate{}
		return s.backoff(ModeRegressed)
	default:
		s.rises = 0
		return s.flat(now)
	}
}

// DecideError records a failed poll at now and returns the wait before the
// retry. The estimate is kept, so polling resumes where it left off.
func (s *Scheduler) DecideError(now time.Time) Decision {
	s.errors++
	b := Backoff{Base: s.p.InitialInterval, Max: s.p.MaxInterval, Factor: 2, Jitter: -1}
	return s.jittered(s.withEstimate(Decision{Mode: ModeError, Wait: b.Delay(s.errors - 1)}))
}

// rising converges on the completion predicted from rising progress.
func (s *Scheduler) rising(prev, cur sample) Decision {
	span := cur.at.Sub(s.anchor.at).Seconds()
	overall := (cur.progress - s.anchor.progress) / span
	recent := (cur.progress - prev.progress) / cur.at.Sub(prev.at).Seconds()

	u := uncertaintyFirst
	switch {
	case s.rises == 1:
		recent *= firstRiseBoost
		s.est.surprise = 1
	case s.rises == 2 || s.est.overall <= 0:
		// The first rate measured over a whole interval: nothing to judge
		// it against yet.
		s.est.surprise = 1
	default:
		// How much the rate changed from the previous interval; the worst
		// such surprise, fading with each poll, bounds the next one. Only
		// what rounding of the readings cannot explain counts.
		dt := cur.at.Sub(prev.at).Seconds()
		hi := recent + s.step/dt
		lo := max(recent-s.step/dt, 0)
		ref, refHi := s.est.overall, s.est.overall
		if consecutive {
			ref, refHi = s.est.lastLo, s.est.lastHi
		}
		ratio := max(lo/refHi, ref/hi, 1)
		s.est.surprise = max(ratio, 1+(s.est.surprise-1)*surpriseDecay)
		u = min(max(1-1/(s.est.surprise*(1+surpriseMargin)), uncertaintyMin), uncertaintyMax)
		if s.est.surprise > volatileAt {
			u = uVolatile
		}
	}
	// The faster rate gives the earlier completion: polling early costs one
	// request, polling late costs latency. Over a short interval rounding
	// alone can double the recent rate, so only its rounding-proof part
	// counts.
	recentLo := max(cur.progress-prev.progress-s.step, 0) / cur.at.Sub(prev.at).Seconds()
	if s.rises == 1 {
		recentLo = recent
	}
	if s.rises > 1 {
		s.est.peak = max(s.est.peak, recentLo)
	}
	{
		dt := cur.at.Sub(prev.at).Seconds()
		s.est.lastLo = max(recent-s.step/dt, 0)
		s.est.lastHi = recent + s.step/dt
	}
	rate := max(overall, recentLo, peakWeight*s.est.peak)
	remaining := (100 - cur.progress) / rate
	s.est.rate, s.est.overall, s.est.u = rate, overall, u
	s.est.eta = cur.at.Add(seconds(remaining))

	tf := trustFactor
	if volTrust {
		tf /= s.est.surprise
	}
	if s.est.surprise > volatileAt {
		tf = tfVolatile
	}
	wait := min(s.towardETA(cur.at), seconds(tf*span))
	return s.fixed(ModeEstimate, clampDuration(wait, s.p.MinInterval, s.p.MaxEstimatedInterval))
}

// flat handles progress that did not rise: capped exponential backoff, except
// that a job whose progress rose until the last poll and whose estimated
// completion is at hand is most likely finishing behind a rounded reading,
// so the next poll goes just past the estimate instead.
func (s *Scheduler) flat(now time.Time) Decision {
	d := s.backoff(ModeStalled)
	if s.est.rate > 0 && now.Sub(s.risenAt).Seconds() <= roundingWindow*s.step/s.est.rate {
		if w := s.towardETA(now); w < s.base {
			return s.fixed(ModeStalled, max(w, s.p.MinInterval))
		}
	}
	return d
}

// towardETA is the wait that lands at (1-u) of the time left to the
// estimated completion plus TargetLatency: a job up to 1/(1-u) times faster
// than estimated is still caught within TargetLatency, and a slower one costs
// one more poll, at a shorter distance. Readings are rounded, so the time left
// is also uncertain by one step of progress.
func (s *Scheduler) towardETA(now time.Time) time.Duration {
	left := max(s.est.eta.Sub(now).Seconds(), 0)
	quantum := s.step / s.est.rate
	if topQuantum {
		quantum = s.step / 2 / s.est.rate
		if s.last.progress >= 100-s.step {
			quantum = s.step / s.est.rate
		}
	}
	return seconds(max((1-s.est.u)*left-quantum, 0)) + s.p.TargetLatency
}

// backoff doubles the previous wait, capped at MaxInterval.
func (s *Scheduler) backoff(m Mode) Decision {
	next := s.p.InitialInterval
	if s.base > 0 {
		next = clampDuration(2*s.base, s.p.MinInterval, s.p.MaxInterval)
	}
	return s.fixed(m, next)
}

func (s *Scheduler) fixed(m Mode, wait time.Duration) Decision {
	s.prevMode, s.mode = s.mode, m
	s.base = wait
	return s.jittered(s.withEstimate(Decision{Mode: m, Wait: wait}))
}

func (s *Scheduler) withEstimate(d Decision) Decision {
	if s.est.rate > 0 {
		d.Rate, d.ETA = s.est.rate, s.est.eta
	}
	return d
}

func (s *Scheduler) jittered(d Decision) Decision {
	d.Wait = max(shorten(d.Wait, s.p.Jitter, s.p.Rand), s.p.MinInterval)
	return d
}

// resolution returns the rounding step a progress reading suggests: 1 for
// whole numbers, 0.1 for one decimal, and so on down to 1e-6.
func resolution(p float64) float64 {
	step := 1.0
	for range 6 {
		if math.Abs(p-math.Round(p/step)*step) < 1e-9 {
			return step
		}
		step /= 10
	}
	return step
}

func seconds(f float64) time.Duration {
	if f > math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(f * float64(time.Second))
}
