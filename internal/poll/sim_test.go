package poll

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// The simulated jobs are the mock API's export jobs (linear, noisy and
// stalling progress, see mockapi.ExportBehavior.StateAt), plus an erratic
// shape the API is not known to show but the scheduler must survive: sixteen
// stretches of random slope, a fifth of them flat. The figures the
// requirements ask for are printed by `make bench` (internal/pollbench);
// these tests hold the scheduler to them on harder job sets.

type shape int

const (
	linear shape = iota
	noisy
	stalling
	erratic
)

func (s shape) String() string { return [...]string{"linear", "noisy", "stalling", "erratic"}[s] }

// job is the server side of a wait.
type job struct {
	shape           shape
	queue, duration time.Duration
	seed            int64
	// noProgress drops progress from answers.
	noProgress bool
}

func (j job) String() string { return fmt.Sprintf("%s %s", j.shape, j.duration) }

func (j job) done() time.Duration { return j.queue + j.duration }

// observe is what a poll elapsed after the job was created sees.
func (j job) observe(elapsed time.Duration) Observation {
	if j.shape == erratic {
		return j.observeErratic(elapsed)
	}
	b := mockapi.ExportBehavior{
		Duration:     j.duration,
		Queue:        j.queue,
		Progress:     [...]mockapi.ProgressShape{mockapi.Linear, mockapi.Noisy, mockapi.Stalling}[j.shape],
		OmitProgress: j.noProgress,
	}
	st := b.StateAt(elapsed, j.seed)
	o := Observation{Status: st.Status, Final: st.Status == mockapi.StatusCompleted || st.Status == mockapi.StatusFailed}
	if st.HasProgress {
		o.Progress = new(st.Progress)
	}
	return o
}

// observeErratic follows the mock's conventions: queued at first, progress
// rounded to one decimal and held below 100 while running.
func (j job) observeErratic(elapsed time.Duration) Observation {
	switch {
	case elapsed <= 0 || elapsed < j.queue:
		return Observation{Status: "queued", Progress: new(0.0)}
	case elapsed >= j.done():
		return Observation{Status: "completed", Final: true, Progress: new(100.0)}
	}
	p := erraticCurve(float64(elapsed-j.queue)/float64(j.duration), uint64(j.seed))
	return Observation{Status: "running", Progress: new(min(math.Round(p*10)/10, 99.9))}
}

func erraticCurve(f float64, seed uint64) float64 {
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
		obs := j.observe(t)
		if obs.Final {
			return simResult{polls: polls, latency: (t - j.done()).Seconds()}
		}
		t += s.Decide(simEpoch.Add(t), obs).Wait
	}
}

// simulateSDK models the common SDK waiter: poll at once, then wait 100ms,
// doubling up to 10s.
func simulateSDK(j job) simResult {
	t, wait := time.Duration(0), 100*time.Millisecond
	for polls := 1; ; polls++ {
		if j.observe(t).Final {
			return simResult{polls: polls, latency: (t - j.done()).Seconds()}
		}
		t += wait
		wait = min(2*wait, 10*time.Second)
	}
}

type simStats struct {
	meanPolls, meanLatency, p50Latency, p95Latency, maxLatency float64
	maxPolls                                                   int
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
	st.p50Latency = lat[int(math.Ceil(0.5*float64(len(lat))))-1]
	st.p95Latency = lat[int(math.Ceil(0.95*float64(len(lat))))-1]
	st.maxLatency = lat[len(lat)-1]
	return st
}

func (st simStats) String() string {
	return fmt.Sprintf("polls mean %5.1f max %3d | latency mean %5.2fs p50 %5.2fs p95 %5.2fs max %6.2fs",
		st.meanPolls, st.maxPolls, st.meanLatency, st.p50Latency, st.p95Latency, st.maxLatency)
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
func variedJob(sh shape, d time.Duration, i int) job {
	r := rand.New(rand.NewPCG(uint64(i), 7))
	return job{
		shape:    sh,
		duration: time.Duration(float64(d) * (0.75 + 0.5*r.Float64())),
		queue:    time.Duration(2 * r.Float64() * float64(time.Second)),
		seed:     int64(i + 1),
	}
}

var simDurations = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute}

func TestSimulatedTenMinuteLinearJob(t *testing.T) {
	r := simulate(job{shape: linear, duration: 10 * time.Minute}, Policy{Rand: rand.New(rand.NewPCG(1, 2)).Float64})
	if r.polls > 15 {
		t.Errorf("polls = %d, want <= 15", r.polls)
	}
	if r.latency < 0 || r.latency > 1 {
		t.Errorf("completion noticed %.2fs after it happened, want within 1s", r.latency)
	}
}

// Linear and noisy progress: at most 15 polls for every job, and p95 latency
// within a second.
func TestSimulatedLinearAndNoisyJobs(t *testing.T) {
	for _, sh := range []shape{linear, noisy} {
		for _, d := range simDurations {
			ours, _ := runMany(300, func(i int) job { return variedJob(sh, d, i) })
			if ours.maxPolls > 15 || ours.p95Latency > 1 {
				t.Errorf("%s %s: %s; want at most 15 polls and p95 latency <= 1s", sh, d, ours)
			}
		}
	}
}

// A job that stalls must be noticed no later, and with no more requests, than
// with the common SDK waiter.
func TestSimulatedStallingJobsBeatSDKWaiter(t *testing.T) {
	for _, d := range simDurations {
		ours, sdk := runMany(300, func(i int) job { return variedJob(stalling, d, i) })
		if ours.meanPolls > sdk.meanPolls || ours.meanLatency > sdk.meanLatency || ours.p95Latency > sdk.p95Latency {
			t.Errorf("stalling %s: ours %s; sdk %s", d, ours, sdk)
		}
	}
}

// Erratic progress cannot be extrapolated: a job that speeds up several
// times over during a long wait is noticed late. The scheduler must still
// cost fewer requests than the SDK waiter and notice most jobs sooner.
func TestSimulatedErraticJobs(t *testing.T) {
	for _, d := range simDurations {
		ours, sdk := runMany(300, func(i int) job { return variedJob(erratic, d, i) })
		if ours.meanPolls > sdk.meanPolls || ours.p50Latency > sdk.p50Latency {
			t.Errorf("erratic %s: ours %s; sdk %s", d, ours, sdk)
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
			t.Errorf("no progress %s: %s; want latency <= %s", d, ours, DefaultMaxInterval)
		}
	}
}
