package pollbench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// CreateTimeout is how long the provider waits for an export by default
// (the resource's timeouts.create); the SDK waiter gets the same limit.
const CreateTimeout = 60 * time.Minute

// Job is one simulated export job: StateAt(elapsed, Seed) is what a GET sees
// elapsed after the job was started.
type Job struct {
	Behavior mockapi.ExportBehavior
	Seed     int64
}

// End is when the job completes, counted from its start.
func (j Job) End() time.Duration { return j.Behavior.Queue + j.Behavior.Duration }

func (j Job) state(elapsed time.Duration) mockapi.JobState {
	return j.Behavior.StateAt(elapsed, j.Seed)
}

func final(st mockapi.JobState) bool {
	return st.Status == mockapi.StatusCompleted || st.Status == mockapi.StatusFailed
}

// Result is one wait.
type Result struct {
	GETs int
	// Latency runs from the job's completion to the GET that saw it; it is
	// meaningless when GaveUp.
	Latency time.Duration
	GaveUp  bool
}

// Strategy waits for one job; rnd is its own source of randomness.
type Strategy struct {
	Name string
	Wait func(j Job, rnd *rand.Rand) Result
}

// Strategies returns the provider's poller and the two baselines, in the
// order they are reported.
func Strategies() []Strategy {
	return []Strategy{
		{Name: "ours", Wait: WaitOurs},
		{Name: "shell loop", Wait: func(j Job, _ *rand.Rand) Result { return WaitShellLoop(j) }},
		{Name: "sdk waiter", Wait: func(j Job, _ *rand.Rand) Result { return WaitSDK(j) }},
	}
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// WaitOurs waits as the provider's resource does against an API that has
// not answered 429: poll.UntilFrom with the default policy (jitter
// included) and its quick look, the answer that started the job standing
// for the first poll, and a check that reads the job model as the resource
// reads the API; on a fake clock that jumps through every wait.
func WaitOurs(j Job, rnd *rand.Rand) Result {
	clock := clocktest.NewFakeClock(epoch)
	// The provider's deadline runs on the wall clock; here it must run on
	// the simulated one, so the check enforces it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var gets int
	started := observation(j.state(0))
	_, err := poll.UntilFrom(ctx, poll.Policy{Clock: clock, Rand: rnd.Float64, QuickLook: true}, started, func(ctx context.Context) (poll.Observation, error) {
		elapsed := clock.Now().Sub(epoch)
		if elapsed > CreateTimeout {
			cancel()
			return poll.Observation{}, ctx.Err()
		}
		gets++
		return observation(j.state(elapsed)), nil
	})
	if err != nil {
		return Result{GETs: gets, GaveUp: true}
	}
	return Result{GETs: gets, Latency: clock.Now().Sub(epoch) - j.End()}
}

// observation is what the provider's resource makes of a job answer.
func observation(st mockapi.JobState) poll.Observation {
	obs := poll.Observation{Status: st.Status, Final: final(st)}
	if st.HasProgress {
		obs.Progress = new(st.Progress)
		obs.Counts = []poll.Count{{Thing: "page", N: st.PageCount}}
	}
	return obs
}

// The vendor's CI recipe: poll, then sleep 10 seconds, at most 60 tries.
const (
	shellSleep = 10 * time.Second
	shellTries = 60
)

// WaitShellLoop is the vendor's CI recipe: a GET at once and after every
// 10-second sleep, giving up after 60 GETs (so at 9m50s).
func WaitShellLoop(j Job) Result {
	for try := 1; try <= shellTries; try++ {
		t := time.Duration(try-1) * shellSleep
		if final(j.state(t)) {
			return Result{GETs: try, Latency: t - j.End()}
		}
	}
	return Result{GETs: shellTries, GaveUp: true}
}

// The Terraform SDK's default waiter (helper/retry.StateChangeConf without
// PollInterval): a GET at once, then waits of 100ms doubling up to 10s.
const (
	sdkFirstWait = 100 * time.Millisecond
	sdkMaxWait   = 10 * time.Second
)

// WaitSDK is the Terraform SDK's default waiter, bounded by CreateTimeout.
func WaitSDK(j Job) Result {
	var t time.Duration
	wait := sdkFirstWait
	for gets := 1; ; gets++ {
		if final(j.state(t)) {
			return Result{GETs: gets, Latency: t - j.End()}
		}
		if t+wait > CreateTimeout {
			return Result{GETs: gets, GaveUp: true}
		}
		t += wait
		wait = min(2*wait, sdkMaxWait)
	}
}

// Config is one benchmark run.
type Config struct {
	Jobs      int // jobs per cell
	Seed      uint64
	Spread    float64 // job durations are uniform in nominal × [1-Spread, 1+Spread]
	Shapes    []mockapi.ProgressShape
	Durations []time.Duration
}

// DefaultConfig is what `make bench` runs.
func DefaultConfig() Config {
	return Config{
		Jobs:      1000,
		Seed:      1,
		Spread:    0.25,
		Shapes:    []mockapi.ProgressShape{mockapi.Linear, mockapi.Noisy, mockapi.Stalling},
		Durations: []time.Duration{5 * time.Second, 30 * time.Second, 2 * time.Minute, 10 * time.Minute, 30 * time.Minute},
	}
}

// Jobs returns the jobs of one cell. Durations are spread around the
// nominal one so that completion falls at every phase of a fixed polling
// cycle, as real jobs' does; every strategy waits for the same jobs.
func (c Config) CellJobs(shape mockapi.ProgressShape, nominal time.Duration) []Job {
	rnd := rand.New(rand.NewPCG(c.Seed, uint64(nominal)))
	jobs := make([]Job, c.Jobs)
	for i := range jobs {
		f := 1 + c.Spread*(2*rnd.Float64()-1)
		jobs[i] = Job{
			Behavior: mockapi.ExportBehavior{Duration: time.Duration(f * float64(nominal)), Progress: shape},
			Seed:     int64(i + 1),
		}
	}
	return jobs
}

// Stats are one strategy's figures over one cell.
type Stats struct {
	P50, P95, Max    time.Duration // detection latency of the jobs not given up
	MeanLatency      time.Duration
	MeanGETs         float64
	MaxGETs          int
	GaveUp, Detected int
}

// Summarize computes Stats; percentiles are nearest-rank.
func Summarize(rs []Result) Stats {
	var st Stats
	var lat []time.Duration
	var gets int
	for _, r := range rs {
		gets += r.GETs
		st.MaxGETs = max(st.MaxGETs, r.GETs)
		if r.GaveUp {
			st.GaveUp++
			continue
		}
		lat = append(lat, r.Latency)
	}
	st.MeanGETs = float64(gets) / float64(len(rs))
	st.Detected = len(lat)
	slices.Sort(lat)
	st.P50, st.P95, st.Max = percentile(lat, 0.50), percentile(lat, 0.95), percentile(lat, 1)
	var sum time.Duration
	for _, l := range lat {
		sum += l
	}
	if len(lat) > 0 {
		st.MeanLatency = sum / time.Duration(len(lat))
	}
	return st
}

func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[max(int(math.Ceil(q*float64(len(sorted))))-1, 0)]
}

// Cell is every strategy's figures for one shape and duration.
type Cell struct {
	Shape    mockapi.ProgressShape
	Duration time.Duration
	Stats    map[string]Stats // by strategy name
}

// Run waits for every cell's jobs with every strategy.
func Run(c Config, strategies []Strategy) []Cell {
	var cells []Cell
	for _, shape := range c.Shapes {
		for _, d := range c.Durations {
			jobs := c.CellJobs(shape, d)
			cell := Cell{Shape: shape, Duration: d, Stats: map[string]Stats{}}
			for si, s := range strategies {
				rs := make([]Result, len(jobs))
				for i, j := range jobs {
					rs[i] = s.Wait(j, rand.New(rand.NewPCG(c.Seed+uint64(si), uint64(i))))
				}
				cell.Stats[s.Name] = Summarize(rs)
			}
			cells = append(cells, cell)
		}
	}
	return cells
}

// durationLabel is a duration as the report shows it: "5s", "2m", "30m".
func durationLabel(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}
