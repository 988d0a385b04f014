package poll

import (
	"math"
	"testing"
	"time"
)

// noJitter makes waits exact.
func noJitter() float64 { return 0 }

// stepper feeds observations to a Scheduler, advancing simulated time by each
// returned wait.
type stepper struct {
	t   *testing.T
	s   *Scheduler
	now time.Time
}

func newStepper(t *testing.T, p Policy) *stepper {
	if p.Rand == nil {
		p.Rand = noJitter
	}
	return &stepper{t: t, s: NewScheduler(p), now: simEpoch}
}

func (st *stepper) elapsed() time.Duration { return st.now.Sub(simEpoch) }

// observe records progress p (nil: none) and returns the decision; time moves
// on by its wait.
func (st *stepper) observe(p *float64) Decision {
	d := st.s.Decide(st.now, Observation{Status: "running", Progress: p})
	st.now = st.now.Add(d.Wait)
	return d
}

func TestSchedulerFirstWaitIsInitialInterval(t *testing.T) {
	for _, p := range []*float64{nil, new(0.0), new(40.0)} {
		st := newStepper(t, Policy{InitialInterval: 2 * time.Second})
		if d := st.observe(p); d.Wait != 2*time.Second || d.Mode != ModeInitial {
			t.Errorf("progress %v: first decision %+v, want initial 2s", p, d)
		}
	}
}

func TestSchedulerConvergesOnLinearProgress(t *testing.T) {
	const duration = 600.0
	st := newStepper(t, Policy{})
	polls := 0
	var waits []time.Duration
	for st.elapsed().Seconds() < duration {
		polls++
		d := st.observe(new(100 * st.elapsed().Seconds() / duration))
		waits = append(waits, d.Wait)
		if polls > 2 && d.Mode != ModeEstimate {
			t.Fatalf("poll %d: mode %s, want estimate", polls, d.Mode)
		}
	}
	polls++ // the poll that sees completion
	latency := st.elapsed().Seconds() - duration
	if polls > 12 || latency > DefaultTargetLatency.Seconds() {
		t.Errorf("polls = %d, latency = %.2fs; waits %v", polls, latency, waits)
	}
	// Far from completion, waits are well beyond MaxInterval.
	if longest := maxDuration(waits); longest < time.Minute {
		t.Errorf("longest wait %s; estimates should allow long waits", longest)
	}
}

// A job that keeps its pace is seen within onTimeMargin of its completion
// (and of the time one or two steps of rounded progress take), in no more
// polls than before, whatever the jitter: TargetLatency is only for jobs
// faster than estimated.
func TestSchedulerCatchesAPunctualJobWithinTheMargin(t *testing.T) {
	for _, duration := range []time.Duration{3 * time.Second, 30 * time.Second, 10 * time.Minute} {
		for _, jitter := range []float64{0, 0.999} {
			st := newStepper(t, Policy{Rand: func() float64 { return jitter }})
			var polls int
			for ; st.elapsed() < duration; polls++ {
				// One decimal, as the API reports it.
				st.observe(new(math.Round(1000*st.elapsed().Seconds()/duration.Seconds()) / 10))
			}
			late := st.elapsed() - duration
			if limit := onTimeMargin + 2*duration/1000; late > limit {
				t.Errorf("%s job, jitter %v: seen %s after completion, want at most %s", duration, jitter, late, limit)
			}
			if polls > 12 {
				t.Errorf("%s job, jitter %v: %d polls before completion, want at most 12", duration, jitter, polls)
			}
		}
	}
}

func TestSchedulerEstimateIsTrustedOnlyAsFarAsItsHistory(t *testing.T) {
	st := newStepper(t, Policy{})
	st.observe(new(0.0))
	// A tiny first rise suggests an hours-long job; the next poll must still
	// come within a few multiples of what was observed.
	d := st.observe(new(0.01))
	if limit := time.Duration(trustSteady * float64(st.elapsed()-d.Wait)); d.Wait > limit {
		t.Errorf("wait %s after %s of history, want at most %s", d.Wait, st.elapsed()-d.Wait, limit)
	}
	if d.Rate <= 0 || d.ETA.IsZero() {
		t.Errorf("decision %+v carries no estimate", d)
	}
}

func TestSchedulerStalledProgressBacksOffToMaxInterval(t *testing.T) {
	p := Policy{MaxInterval: 8 * time.Second}
	st := newStepper(t, p)
	for _, v := range []float64{0, 10, 20, 30} {
		st.observe(new(v))
	}
	var waits []time.Duration
	for range 12 {
		d := st.observe(new(30.0))
		waits = append(waits, d.Wait)
		if d.Wait > p.MaxInterval {
			t.Fatalf("stalled wait %s exceeds MaxInterval; waits %v", d.Wait, waits)
		}
	}
	// Once the estimate is spent the job may jump to done at any moment:
	// the waits settle at the cap.
	for _, w := range waits[len(waits)-4:] {
		if w != p.MaxInterval {
			t.Errorf("waits %v, want to settle at %s", waits, p.MaxInterval)
			break
		}
	}
	if d := st.observe(new(30.0)); d.Mode != ModeStalled {
		t.Errorf("mode %s, want stalled", d.Mode)
	}
}

func TestSchedulerStallDoublesFromLastWait(t *testing.T) {
	st := newStepper(t, Policy{MaxInterval: 8 * time.Second, InitialInterval: time.Second})
	st.observe(new(0.0)) // 1s
	st.observe(new(0.0)) // stalled: 2s
	d := st.observe(new(0.0))
	if d.Wait != 4*time.Second || d.Mode != ModeStalled {
		t.Errorf("decision %+v, want stalled 4s", d)
	}
}

func TestSchedulerPauseAheadOfEstimateKeepsAiming(t *testing.T) {
	st := newStepper(t, Policy{})
	// Steady progress of 0.1% per second...
	var p float64
	var prev Decision
	for range 4 {
		p = st.elapsed().Seconds() / 10
		prev = st.observe(new(p))
	}
	// ...then a pause long before the estimated completion.
	d := st.observe(new(p))
	if d.Mode != ModePaused || d.Wait <= DefaultMaxInterval {
		t.Errorf("decision %+v, want a paused wait beyond MaxInterval", d)
	}
	if !d.ETA.Equal(prev.ETA) {
		t.Errorf("paused decision changed the estimate: %s, was %s", d.ETA, prev.ETA)
	}
}

func TestSchedulerRegressionResetsEstimate(t *testing.T) {
	st := newStepper(t, Policy{})
	for _, v := range []float64{0, 20, 40, 60} {
		st.observe(new(v))
	}
	d := st.observe(new(5.0))
	if d.Mode != ModeRegressed || d.Rate != 0 || !d.ETA.IsZero() {
		t.Fatalf("decision %+v, want regressed without estimate", d)
	}
	if d.Wait > DefaultMaxInterval {
		t.Errorf("regressed wait %s exceeds MaxInterval", d.Wait)
	}
	// The new estimate rests on the new run alone: 5% -> 15% over one wait,
	// a first rise.
	interval := d.Wait.Seconds()
	d = st.observe(new(15.0))
	if want := firstRiseBoost * 10 / interval; d.Mode != ModeEstimate || math.Abs(d.Rate-want) > 1e-9 {
		t.Errorf("decision %+v, want an estimate at %.4f %%/s", d, want)
	}
}

func TestSchedulerSmallDipIsNotRegression(t *testing.T) {
	st := newStepper(t, Policy{})
	for _, v := range []float64{0, 20, 40} {
		st.observe(new(v))
	}
	if d := st.observe(new(39.8)); d.Mode == ModeRegressed || d.Rate == 0 {
		t.Errorf("decision %+v: a dip within tolerance must keep the estimate", d)
	}
}

func TestSchedulerAbsentProgressBacksOff(t *testing.T) {
	st := newStepper(t, Policy{InitialInterval: time.Second, MaxInterval: 8 * time.Second})
	want := []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second, 8 * time.Second}
	for i, w := range want {
		d := st.observe(nil)
		if d.Wait != w {
			t.Fatalf("wait %d = %s, want %s", i, d.Wait, w)
		}
		if i > 0 && d.Mode != ModeNoProgress {
			t.Errorf("wait %d: mode %s, want no-progress", i, d.Mode)
		}
	}
}

func TestSchedulerErrorsBackOffAndKeepEstimate(t *testing.T) {
	st := newStepper(t, Policy{InitialInterval: time.Second, MaxInterval: 8 * time.Second})
	for _, v := range []float64{0, 10, 20} {
		st.observe(new(v))
	}
	var waits []time.Duration
	for range 5 {
		d := st.s.DecideError()
		if d.Mode != ModeError || d.Rate == 0 {
			t.Fatalf("decision %+v, want error mode keeping the estimate", d)
		}
		waits = append(waits, d.Wait)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("error waits %v, want %v", waits, want)
		}
	}
	// A successful poll resets the error backoff.
	st.observe(new(30.0))
	if d := st.s.DecideError(); d.Wait != time.Second {
		t.Errorf("first error after a success waits %s, want 1s", d.Wait)
	}
}

func TestSchedulerJitterBounds(t *testing.T) {
	const frac = 0.2
	for _, r := range []float64{0, 0.25, 0.5, 0.999} {
		exact := newStepper(t, Policy{Jitter: -1})
		jittered := newStepper(t, Policy{Jitter: frac, Rand: func() float64 { return r }})
		feed := func(st *stepper, i int) Decision {
			switch {
			case i < 6:
				return st.observe(new(float64(10 * i)))
			case i < 12:
				return st.observe(new(50.0))
			default:
				return st.observe(nil)
			}
		}
		for i := range 16 {
			// Both see the same observations at the same instants.
			jittered.now = exact.now
			want := feed(exact, i).Wait
			got := feed(jittered, i).Wait
			lo := max(time.Duration(float64(want)*(1-frac)), DefaultMinInterval)
			if got < lo || got > want {
				t.Fatalf("rand %.3f step %d: jittered wait %s outside [%s, %s]", r, i, got, lo, want)
			}
		}
	}
}

func TestSchedulerNeverWaitsLessThanMinInterval(t *testing.T) {
	p := Policy{MinInterval: 700 * time.Millisecond, Jitter: 1, Rand: func() float64 { return 0.999 }}
	st := newStepper(t, p)
	for i := range 30 {
		if d := st.observe(new(min(float64(i*5), 100))); d.Wait < p.MinInterval {
			t.Fatalf("step %d: wait %s below MinInterval", i, d.Wait)
		}
	}
}

func TestResolution(t *testing.T) {
	for p, want := range map[float64]float64{0: 1, 42: 1, 42.5: 0.1, 99.9: 0.1, 12.25: 0.01, 1.0 / 3: 1e-6} {
		if got := resolution(p); got != want {
			t.Errorf("resolution(%v) = %v, want %v", p, got, want)
		}
	}
}

func maxDuration(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}
