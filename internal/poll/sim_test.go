package poll

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The job models below mirror the mock API's export jobs: queued until the
// queue time has passed, running with progress rounded to one decimal and
// held below 100, then completed. Shapes: linear, noisy (sixteen stretches of
// random slope, a fifth of them flat) and stalling (60% in the first quarter,
// flat until the end).

type shape int

const (
	linear shape = iota
	noisy
	stalling
)

func (s shape) String() string { return [...]string{"linear", "noisy", "stalling"}[s] }

// job is the server side of a wait: what a poll t seconds after the job was
// created sees.
type job struct {
	shape    shape
	queue    float64
	duration float64
	seed     uint64
	// noProgress drops progress from answers.
	noProgress bool
	// resolution is the rounding step of reported progress (default 0.1);
	// negative reports it unrounded.
	resolution float64
	// tail is how long the job stays running at 100% before completing.
	tail float64
}

func (j job) String() string {
	return fmt.Sprintf("%s %s", j.shape, secs(j.duration))
}

func (j job) done() float64 { return j.queue + j.duration }

func (j job) observe(t float64) Observation {
	var o Observation
	switch {
	case t <= 0 || t < j.queue:
		o = Observation{Status: "queued", Progress: ptr(0.0)}
	case t >= j.done():
		o = Observation{Status: "completed", Final: true, Progress: ptr(100.0)}
	case t >= j.done()-j.tail:
		o = Observation{Status: "running", Progress: ptr(100.0)}
	default:
		p := j.curve((t - j.queue) / (j.duration - j.tail))
		switch step := j.resolution; {
		case step == 0:
			p = min(math.Round(p*10)/10, 99.9)
		case step > 0:
			p = min(math.Round(p/step)*step, 100-step)
		}
		o = Observation{Status: "running", Progress: ptr(p)}
	}
	if j.noProgress {
		o.Progress = nil
	}
	return o
}

func (j job) curve(f float64) float64 {
	f = min(max(f, 0), 1)
	switch j.shape {
	case noisy:
		return noisyCurve(f, j.seed)
	case stalling:
		if f < 0.25 {
			return 240 * f
		}
		return 60
	}
	return 100 * f
}

func noisyCurve(f float64, seed uint64) float64 {
	const segments = 16
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var w [segments]float64
	var total float64
	for i := range w {
		if rng.Float64() < 0.2 {
			continue
		}
		w[i] = 0.2 + rng.Float64()*rng.Float64()*3
		total += w[i]
	}
	if total == 0 {
		return 100 * f
	}
	pos := f * segments
	i := min(int(pos), segments-1)
	var done float64
	for _, x := range w[:i] {
		done += x
	}
	done += (pos - float64(i)) * w[i]
	return 100 * done / total
}

func ptr[T any](v T) *T { return &v }

func secs(s float64) string { return time.Duration(s * float64(time.Second)).String() }

// simResult is one simulated wait.
type simResult struct {
	polls   int
	latency float64 // seconds from completion to the poll that saw it
}

var simEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// simulate steps a Scheduler exactly as Until does, on simulated time.
func simulate(j job, p Policy) simResult {
	s := NewScheduler(p)
	var t time.Duration
	for polls := 1; ; polls++ {
		obs := j.observe(t.Seconds())
		if obs.Final {
			return simResult{polls: polls, latency: t.Seconds() - j.done()}
		}
		t += s.Next(simEpoch.Add(t), obs)
	}
}

// simulateSDK models the common SDK waiter: poll at once, then wait 100ms,
// doubling up to 10s.
func simulateSDK(j job) simResult {
	t, wait := 0.0, 0.1
	for polls := 1; ; polls++ {
		if j.observe(t).Final {
			return simResult{polls: polls, latency: t - j.done()}
		}
		t += wait
		wait = min(2*wait, 10)
	}
}

type simStats struct {
	meanPolls, meanLatency, p95Latency, maxLatency float64
	maxPolls                                       int
}

func summarize(rs []simResult) simStats {
	lat := make([]float64, len(rs))
	var st simStats
	for i, r := range rs {
		lat[i] = r.latency
		st.meanLatency += r.latency / float64(len(rs))
		st.meanPolls += float64(r.polls) / float64(len(rs))
		st.maxPolls = max(st.maxPolls, r.polls)
	}
	slices.Sort(lat)
	st.p95Latency = lat[int(math.Ceil(0.95*float64(len(lat))))-1]
	st.maxLatency = lat[len(lat)-1]
	return st
}

func (st simStats) String() string {
	return fmt.Sprintf("polls mean %5.1f max %3d | latency mean %5.2fs p95 %5.2fs max %6.2fs",
		st.meanPolls, st.maxPolls, st.meanLatency, st.p95Latency, st.maxLatency)
}

// runMany simulates n waits, job i built by mk, each with its own seeded
// jitter source; it returns the scheduler's and the SDK waiter's statistics.
func runMany(n int, mk func(i int) job) (ours, sdk simStats) {
	rs := make([]simResult, n)
	ss := make([]simResult, n)
	for i := range rs {
		rng := rand.New(rand.NewPCG(uint64(i), 42))
		j := mk(i)
		rs[i] = simulate(j, Policy{Rand: rng.Float64})
		ss[i] = simulateSDK(j)
	}
	return summarize(rs), summarize(ss)
}

// variedJob is job i of a set whose durations spread ±25% around d and whose
// queue time spreads over 0-2s, so that completion falls at every phase of a
// waiter's polling cycle.
func variedJob(sh shape, d float64, i int) job {
	r := rand.New(rand.NewPCG(uint64(i), 7))
	return job{shape: sh, duration: d * (0.75 + 0.5*r.Float64()), queue: 2 * r.Float64(), seed: uint64(i + 1)}
}

var simDurations = []float64{5, 30, 120, 600, 1800}

func TestSimulatedTenMinuteLinearJob(t *testing.T) {
	r := simulate(job{shape: linear, duration: 600}, Policy{Rand: rand.New(rand.NewPCG(1, 2)).Float64})
	if r.polls > 15 {
		t.Errorf("polls = %d, want <= 15", r.polls)
	}
	if r.latency < 0 || r.latency > 1 {
		t.Errorf("completion noticed %.2fs after it happened, want within 1s", r.latency)
	}
}

func TestSimulatedLinearJobs(t *testing.T) {
	for _, d := range simDurations {
		ours, _ := runMany(200, func(i int) job { return variedJob(linear, d, i) })
		if ours.maxPolls > 15 || ours.p95Latency > 1 {
			t.Errorf("linear %s: %s; want at most 15 polls and p95 latency <= 1s", secs(d), ours)
		}
	}
}

// A job that stalls must be noticed no later, and with no more requests, than
// with the common SDK waiter.
func TestSimulatedStallingJobsBeatSDKWaiter(t *testing.T) {
	for _, d := range simDurations {
		ours, sdk := runMany(200, func(i int) job { return variedJob(stalling, d, i) })
		if ours.meanPolls > sdk.meanPolls || ours.meanLatency > sdk.meanLatency || ours.p95Latency > sdk.p95Latency {
			t.Errorf("stalling %s: ours %s; sdk %s", secs(d), ours, sdk)
		}
	}
}

// Noisy progress cannot be extrapolated precisely; the scheduler must still
// cost far fewer requests than the SDK waiter, and notice completion about as
// soon.
func TestSimulatedNoisyJobs(t *testing.T) {
	for _, d := range simDurations {
		ours, sdk := runMany(200, func(i int) job { return variedJob(noisy, d, i) })
		if ours.meanPolls > sdk.meanPolls || ours.meanLatency > max(sdk.meanLatency, 2)*1.5 {
			t.Errorf("noisy %s: ours %s; sdk %s", secs(d), ours, sdk)
		}
	}
}

func TestSimulatedJobsWithoutProgress(t *testing.T) {
	for _, d := range simDurations {
		ours, _ := runMany(100, func(i int) job {
			j := variedJob(linear, d, i)
			j.noProgress = true
			return j
		})
		// Plain capped backoff: detection is bounded by MaxInterval.
		if ours.maxLatency > DefaultMaxInterval.Seconds() {
			t.Errorf("no progress %s: %s; want latency <= %s", secs(d), ours, DefaultMaxInterval)
		}
	}
}
