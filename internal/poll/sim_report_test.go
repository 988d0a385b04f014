package poll

import (
	"os"
	"testing"
)

// TestSimulationReport prints how the scheduler compares with the SDK waiter
// over the simulated jobs; run it with POLL_SIM_REPORT=1 when tuning.
func TestSimulationReport(t *testing.T) {
	if os.Getenv("POLL_SIM_REPORT") == "" {
		t.Skip("set POLL_SIM_REPORT=1 to print the simulation table")
	}
	const n = 300
	report := func(name string, mk func(i int) job) {
		ours, sdk := runMany(n, mk)
		t.Logf("%-24s ours %s || sdk %s", name, ours, sdk)
	}
	for _, sh := range []shape{linear, noisy, stalling} {
		for _, d := range simDurations {
			report(sh.String()+" "+secs(d)+" exact", func(i int) job { return job{shape: sh, duration: d, seed: uint64(i + 1)} })
			report(sh.String()+" "+secs(d)+" varied", func(i int) job { return variedJob(sh, d, i) })
		}
	}
	variants := []struct {
		name string
		edit func(*job)
	}{
		{"no progress", func(j *job) { j.noProgress = true }},
		{"unrounded", func(j *job) { j.resolution = -1 }},
		{"whole percent", func(j *job) { j.resolution = 1 }},
		{"queued 10s", func(j *job) { j.queue = 10 }},
		{"5s at 100%", func(j *job) { j.tail = 5 }},
	}
	for _, v := range variants {
		for _, d := range simDurations[1:] {
			report(v.name+" "+secs(d), func(i int) job {
				j := variedJob(linear, d, i)
				v.edit(&j)
				return j
			})
		}
	}
}
