package poll

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

func sweepLine() string {
	line := ""
	for _, sh := range []shape{linear, noisy, stalling} {
		var wp, wl, wm, sp, sl float64
		for _, d := range []float64{5, 30, 120, 600, 1800} {
			ours, sdk := runMany(200, func(i int) job {
				j := job{shape: sh, duration: d, seed: uint64(i + 1)}
				r := rand.New(rand.NewPCG(uint64(i), 7))
				j.duration *= 0.9 + 0.2*r.Float64()
				j.queue = 2 * r.Float64()
				return j
			})
			wp = max(wp, ours.meanPolls)
			wm = max(wm, float64(ours.maxPolls))
			wl = max(wl, ours.p95Latency)
			sp = max(sp, ours.meanPolls/sdk.meanPolls)
			sl = max(sl, ours.meanLatency/sdk.meanLatency)
			if os.Getenv("POLL_SWEEP") == "2" {
				line += fmt.Sprintf("\n   %s %s %.1f/%d/%.2f/%.2f (sdk %.1f/%.2f)", sh, secs(d), ours.meanPolls, ours.maxPolls, ours.p95Latency, ours.meanLatency, sdk.meanPolls, sdk.meanLatency)
			}
		}
		if sh == stalling {
			line += fmt.Sprintf(" | stall vs sdk polls %.2f lat %.2f", sp, sl)
		} else {
			line += fmt.Sprintf(" | %s %.1f/%g/%.2f", sh, wp, wm, wl)
		}
	}
	return line
}

func TestSweep(t *testing.T) {
	if os.Getenv("POLL_SWEEP") == "" {
		t.Skip()
	}
	consecutive, volatileAt, uVolatile, tfVolatile, surpriseDecay = true, 1.1, 0.6, 1, 0.8
	t.Logf("x%s", sweepLine())
}
