package poll

import (
	"math/rand/v2"
	"os"
	"testing"
)

func TestSimulationReport(t *testing.T) {
	if os.Getenv("POLL_SIM_REPORT") == "" {
		t.Skip("set POLL_SIM_REPORT=1 to print the simulation table")
	}
	const n = 300
	for _, sh := range []shape{linear, noisy, stalling} {
		for _, d := range []float64{5, 30, 120, 600, 1800} {
			for _, variant := range []string{"exact", "varied"} {
				ours, sdk := runMany(n, func(i int) job {
					j := job{shape: sh, duration: d, seed: uint64(i + 1)}
					if variant == "varied" {
						r := rand.New(rand.NewPCG(uint64(i), 7))
						j.duration *= 0.9 + 0.2*r.Float64()
						j.queue = 2 * r.Float64()
					}
					return j
				})
				t.Logf("%-8s %6s %-6s ours %s || sdk %s", sh, secs(d), variant, ours, sdk)
			}
		}
	}
}
