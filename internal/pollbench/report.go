package pollbench

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// Targets of the requirement.
const (
	TargetP95  = time.Second // linear and noisy progress
	TargetGETs = 15          // per job, linear and noisy progress
)

// Names of the strategies the targets refer to.
const (
	nameOurs = "ours"
	nameSDK  = "sdk waiter"
)

// Report prints one table per progress shape and a verdict per target, and
// reports whether every target is met.
func Report(w io.Writer, c Config, cells []Cell, strategies []Strategy) bool {
	fmt.Fprintf(w, "Waiting for export jobs on a simulated clock: %d jobs per cell, seed %d.\n", c.Jobs, c.Seed)
	fmt.Fprintf(w, "Job durations are spread uniformly over ±%.0f%% of the nominal one, so that completion falls at every phase of\n", 100*c.Spread)
	fmt.Fprintln(w, "a fixed polling cycle, as it does for real jobs (with exact durations a fixed cadence lines up the same way with every job).")
	fmt.Fprintln(w, "Latency: from the job's completion to the GET that sees it. Given-up jobs count in GETs, not in latency.")
	fmt.Fprintf(w, "  ours:       the provider's wait (poll.UntilFrom, default policy, jitter included): the answer that started\n")
	fmt.Fprintf(w, "              the job counts as the first poll, so the first GET waits; %s limit\n", durationLabel(CreateTimeout))
	fmt.Fprintln(w, "  shell loop: GET at once, then after every 10s sleep, at most 60 tries (gives up at 9m50s)")
	fmt.Fprintf(w, "  sdk waiter: GET at once, then after waits of 100ms doubling to 10s (Terraform SDK default), %s limit\n", durationLabel(CreateTimeout))

	pass := true
	for _, shape := range c.Shapes {
		fmt.Fprintf(w, "\n%s progress\n", shape)
		fmt.Fprintf(w, "%-8s  %-10s  %8s  %8s  %9s  %8s  %8s\n", "duration", "strategy", "p50", "p95", "GETs mean", "GETs max", "given up")
		fmt.Fprintln(w, strings.Repeat("-", 71))
		for _, cell := range cells {
			if cell.Shape != shape {
				continue
			}
			for i, s := range strategies {
				st := cell.Stats[s.Name]
				label := ""
				if i == 0 {
					label = durationLabel(cell.Duration)
				}
				fmt.Fprintf(w, "%-8s  %-10s  %8s  %8s  %9.1f  %8d  %8s\n", label, s.Name,
					latency(st.P50, st.Detected), latency(st.P95, st.Detected), st.MeanGETs, st.MaxGETs, gaveUp(st))
			}
		}
	}

	fmt.Fprintln(w, "\nTargets")
	for _, shape := range c.Shapes {
		var v verdict
		switch shape {
		case mockapi.Linear, mockapi.Noisy:
			v = checkAbsolute(shape, cells)
		default:
			v = checkAgainstSDK(shape, cells)
		}
		pass = pass && v.pass
		fmt.Fprintln(w, v)
	}
	return pass
}

type verdict struct {
	pass bool
	text string
}

func (v verdict) String() string {
	if v.pass {
		return "PASS  " + v.text
	}
	return "MISS  " + v.text
}

// checkAbsolute: p95 latency at most TargetP95 with at most TargetGETs GETs
// for every job, at every duration.
func checkAbsolute(shape mockapi.ProgressShape, cells []Cell) verdict {
	v := verdict{pass: true}
	var worstP95 time.Duration
	var worstGETs int
	var worstP95At, worstGETsAt time.Duration
	var misses []string
	for _, cell := range cells {
		if cell.Shape != shape {
			continue
		}
		st := cell.Stats[nameOurs]
		if st.P95 >= worstP95 {
			worstP95, worstP95At = st.P95, cell.Duration
		}
		if st.MaxGETs >= worstGETs {
			worstGETs, worstGETsAt = st.MaxGETs, cell.Duration
		}
		if st.P95 > TargetP95 || st.MaxGETs > TargetGETs || st.GaveUp > 0 {
			v.pass = false
			misses = append(misses, fmt.Sprintf("%s: p95 %s, %d GETs, %d given up", durationLabel(cell.Duration), seconds(st.P95), st.MaxGETs, st.GaveUp))
		}
	}
	v.text = fmt.Sprintf("%-8s p95 latency <= %s and <= %d GETs per job at every duration: worst p95 %s (%s), most GETs %d (%s)",
		shape, seconds(TargetP95), TargetGETs, seconds(worstP95), durationLabel(worstP95At), worstGETs, durationLabel(worstGETsAt))
	if len(misses) > 0 {
		v.text += "; missed at " + strings.Join(misses, "; ")
	}
	return v
}

// checkAgainstSDK: never worse than the SDK waiter on p50 or p95 latency, or
// on mean or max GETs, at any duration.
func checkAgainstSDK(shape mockapi.ProgressShape, cells []Cell) verdict {
	v := verdict{pass: true}
	var parts, misses []string
	for _, cell := range cells {
		if cell.Shape != shape {
			continue
		}
		o, s := cell.Stats[nameOurs], cell.Stats[nameSDK]
		parts = append(parts, fmt.Sprintf("%-4s p50 %s vs %s, p95 %s vs %s, GETs mean %.1f vs %.1f, max %d vs %d",
			durationLabel(cell.Duration), seconds(o.P50), seconds(s.P50), seconds(o.P95), seconds(s.P95), o.MeanGETs, s.MeanGETs, o.MaxGETs, s.MaxGETs))
		if o.P50 > s.P50 || o.P95 > s.P95 || o.MeanGETs > s.MeanGETs || o.MaxGETs > s.MaxGETs || o.GaveUp > s.GaveUp {
			v.pass = false
			misses = append(misses, durationLabel(cell.Duration))
		}
	}
	v.text = fmt.Sprintf("%-8s never worse than the sdk waiter on p50/p95 latency or GETs (mean and max) at any duration", shape)
	if len(misses) > 0 {
		v.text += ": worse at " + strings.Join(misses, ", ")
	}
	v.text += "\n        ours vs sdk waiter: " + strings.Join(parts, "\n                            ")
	return v
}

func latency(d time.Duration, detected int) string {
	if detected == 0 {
		return "-"
	}
	return seconds(d)
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

func gaveUp(st Stats) string {
	if st.GaveUp == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%.0f%%)", st.GaveUp, 100*float64(st.GaveUp)/float64(st.GaveUp+st.Detected))
}
