package poll_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/pollbench"
)

// The scheduler on simulated time, through the one simulation there is
// (internal/pollbench, which `make bench-poll` prints): the provider's wait
// against the mock API's job models (linear, noisy, stalling and erratic
// progress, see mockapi.ExportBehavior.StateAt) and the SDK's default waiter.
// These tests hold the scheduler to the requirements on job sets harder than
// the benchmark's: queue times, and jobs without progress.

// variedJob is job i of a set whose durations spread ±25% around d and whose
// queue time spreads over 0-2s, so that completion falls at every phase of a
// waiter's polling cycle.
func variedJob(shape mockapi.ProgressShape, d time.Duration, i int) pollbench.Job {
	r := rand.New(rand.NewPCG(uint64(i), 7))
	return pollbench.Job{
		Behavior: mockapi.ExportBehavior{
			Progress: shape,
			Duration: time.Duration(float64(d) * (0.75 + 0.5*r.Float64())),
			Queue:    time.Duration(2 * r.Float64() * float64(time.Second)),
		},
		Seed: int64(i + 1),
	}
}

// runMany waits for n jobs, job i built by mk, each with its own seeded
// jitter source; it returns the provider's and the SDK waiter's figures.
func runMany(n int, mk func(i int) pollbench.Job) (ours, sdk pollbench.Stats) {
	rs := make([]pollbench.Result, n)
	ss := make([]pollbench.Result, n)
	for i := range rs {
		j := mk(i)
		rs[i] = pollbench.WaitOurs(j, rand.New(rand.NewPCG(uint64(i), 42)))
		ss[i] = pollbench.WaitSDK(j)
	}
	return pollbench.Summarize(rs), pollbench.Summarize(ss)
}

func describe(st pollbench.Stats) string {
	return fmt.Sprintf("polls mean %5.1f max %3d | latency mean %5.2fs p50 %5.2fs p95 %5.2fs max %6.2fs, %d given up",
		st.MeanGETs, st.MaxGETs, st.MeanLatency.Seconds(), st.P50.Seconds(), st.P95.Seconds(), st.Max.Seconds(), st.GaveUp)
}

var simDurations = []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute}

func TestSimulatedTenMinuteLinearJob(t *testing.T) {
	j := pollbench.Job{Behavior: mockapi.ExportBehavior{Progress: mockapi.Linear, Duration: 10 * time.Minute}}
	r := pollbench.WaitOurs(j, rand.New(rand.NewPCG(1, 2)))
	if r.GaveUp || r.GETs > 15 {
		t.Errorf("GETs = %d (given up: %v), want <= 15", r.GETs, r.GaveUp)
	}
	if r.Latency < 0 || r.Latency > time.Second {
		t.Errorf("completion noticed %s after it happened, want within 1s", r.Latency)
	}
}

// Linear and noisy progress: at most 15 polls for every job, and p95 latency
// within a second.
func TestSimulatedLinearAndNoisyJobs(t *testing.T) {
	for _, shape := range []mockapi.ProgressShape{mockapi.Linear, mockapi.Noisy} {
		for _, d := range simDurations {
			ours, _ := runMany(300, func(i int) pollbench.Job { return variedJob(shape, d, i) })
			if ours.GaveUp > 0 || ours.MaxGETs > 15 || ours.P95 > time.Second {
				t.Errorf("%s %s: %s; want at most 15 polls and p95 latency <= 1s", shape, d, describe(ours))
			}
		}
	}
}

// A job that stalls must be noticed no later, and with no more requests, than
// with the common SDK waiter.
func TestSimulatedStallingJobsBeatSDKWaiter(t *testing.T) {
	for _, d := range simDurations {
		ours, sdk := runMany(300, func(i int) pollbench.Job { return variedJob(mockapi.Stalling, d, i) })
		if ours.MeanGETs > sdk.MeanGETs || ours.MeanLatency > sdk.MeanLatency || ours.P95 > sdk.P95 {
			t.Errorf("stalling %s: ours %s; sdk %s", d, describe(ours), describe(sdk))
		}
	}
}

// Erratic progress cannot be extrapolated: a job that speeds up several
// times over during a long wait is noticed late. The scheduler must still
// cost fewer requests than the SDK waiter and notice most jobs sooner.
func TestSimulatedErraticJobs(t *testing.T) {
	for _, d := range simDurations {
		ours, sdk := runMany(300, func(i int) pollbench.Job { return variedJob(mockapi.Erratic, d, i) })
		if ours.MeanGETs > sdk.MeanGETs || ours.P50 > sdk.P50 {
			t.Errorf("erratic %s: ours %s; sdk %s", d, describe(ours), describe(sdk))
		}
	}
}

func TestSimulatedJobsWithoutProgress(t *testing.T) {
	for _, d := range simDurations {
		ours, _ := runMany(100, func(i int) pollbench.Job {
			j := variedJob(mockapi.Linear, d, i)
			j.Behavior.OmitProgress = true
			return j
		})
		// Plain capped backoff: detection is bounded by MaxInterval.
		if ours.GaveUp > 0 || ours.Max > poll.DefaultMaxInterval {
			t.Errorf("no progress %s: %s; want latency <= %s", d, describe(ours), poll.DefaultMaxInterval)
		}
	}
}
