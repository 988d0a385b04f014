package poll

import (
	"math/rand/v2"
	"os"
	"testing"
)

func traceRun(t *testing.T, j job, rng *rand.Rand) {
	s := NewScheduler(Policy{Rand: rng.Float64})
	tt := 0.0
	for {
		obs := j.observe(tt)
		if obs.Final {
			t.Logf("%s done at %.2f latency %.2f", j, tt, tt-j.done())
			break
		}
		d := s.Decide(simEpoch.Add(seconds(tt)), obs)
		t.Logf("t=%8.2f p=%6.2f true=%6.2f %-9s wait %8.2f eta %8.2f u %.2f", tt, *obs.Progress, j.curve(tt/j.duration), d.Mode, d.Wait.Seconds(), d.ETA.Sub(simEpoch).Seconds(), s.est.u)
		tt += d.Wait.Seconds()
	}
}

func TestTrace(t *testing.T) {
	if os.Getenv("POLL_TRACE") == "" {
		t.Skip()
	}
	shown := 0
	for i := 0; i < 300 && shown < 3; i++ {
		j := job{shape: linear, duration: 1800, seed: uint64(i + 1)}
		rng := rand.New(rand.NewPCG(uint64(i), 42))
		if r := simulate(j, Policy{Rand: rng.Float64}); r.polls >= 15 {
			rng := rand.New(rand.NewPCG(uint64(i), 42))
			var segs []float64
			for k := 0; k <= 16; k++ {
				segs = append(segs, j.curve(float64(k)/16))
			}
			t.Logf("segments: %.1f", segs)
			traceRun(t, j, rng)
			shown++
		}
	}
}
