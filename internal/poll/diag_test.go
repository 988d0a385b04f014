package poll

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

func TestDiag(t *testing.T) {
	if os.Getenv("POLL_DIAG") == "" {
		t.Skip()
	}
	for _, d := range []float64{120, 600, 1800} {
		bad := 0
		hist := map[string]int{}
		for i := 0; i < 300; i++ {
			j := job{shape: noisy, duration: d, seed: uint64(i + 1)}
			rng := rand.New(rand.NewPCG(uint64(i), 42))
			s := NewScheduler(Policy{Rand: rng.Float64})
			tt := 0.0
			var lastD Decision
			var lastT, lastP float64
			for {
				obs := j.observe(tt)
				if obs.Final {
					if tt-j.done() > 10 {
						bad++
						key := string(lastD.Mode)
						ratio := lastD.Wait.Seconds() / lastT
						switch {
						case ratio > 1:
							key += " wait>span"
						case ratio > 0.5:
							key += " wait>span/2"
						default:
							key += " short"
						}
						if lastP > 90 {
							key += " p>90"
						}
						hist[key]++
					}
					break
				}
				lastD = s.Decide(simEpoch.Add(seconds(tt)), obs)
				lastT, lastP = tt, *obs.Progress
				tt += lastD.Wait.Seconds()
			}
		}
		t.Logf("%s: %d/300 latency>10s: %v", secs(d), bad, hist)
	}
}

func TestFrontier(t *testing.T) {
	if os.Getenv("POLL_DIAG") == "" {
		t.Skip()
	}
	defer func(a, b, c, d float64) { uncertaintyMin, uncertaintyMax, trustFactor, uncertaintyFirst = a, b, c, d }(uncertaintyMin, uncertaintyMax, trustFactor, uncertaintyFirst)
	for _, u := range []float64{0.3, 0.5, 0.7} {
		for _, k := range []float64{0.5, 1, 2, 4} {
			uncertaintyMin, uncertaintyMax, trustFactor, uncertaintyFirst = u, u, k, max(u, 0.5)
			line := ""
			for _, sh := range []shape{linear, noisy} {
				for _, d := range []float64{120, 600, 1800} {
					ours, _ := runMany(200, func(i int) job { return job{shape: sh, duration: d, seed: uint64(i + 1)} })
					line += " " + sh.String()[:3] + secs(d) + " " + fmtStats(ours)
				}
			}
			t.Logf("u %.1f k %g:%s", u, k, line)
		}
	}
}

func fmtStats(s simStats) string {
	return fmt.Sprintf("%.1f/%.1f", s.meanPolls, s.p95Latency)
}
