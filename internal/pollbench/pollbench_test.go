package pollbench

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

func linearJob(d time.Duration) Job {
	return Job{Behavior: mockapi.ExportBehavior{Duration: d}, Seed: 1}
}

func TestShellLoop(t *testing.T) {
	// GETs at 0, 10, 20 and 30s; the last sees a job done at 25s.
	if r := WaitShellLoop(linearJob(25 * time.Second)); r.GETs != 4 || r.Latency != 5*time.Second || r.GaveUp {
		t.Errorf("25s job: %+v, want 4 GETs, 5s late", r)
	}
	// The 60th and last GET is at 9m50s.
	if r := WaitShellLoop(linearJob(590 * time.Second)); r.GETs != 60 || r.Latency != 0 || r.GaveUp {
		t.Errorf("9m50s job: %+v, want seen by the 60th GET", r)
	}
	if r := WaitShellLoop(linearJob(591 * time.Second)); r.GETs != 60 || !r.GaveUp {
		t.Errorf("9m51s job: %+v, want given up after 60 GETs", r)
	}
}

func TestSDKWaiter(t *testing.T) {
	// GETs at 0, 0.1, 0.3, 0.7, 1.5, 3.1 and 6.3s, then every 10s.
	if r := WaitSDK(linearJob(5 * time.Second)); r.GETs != 7 || r.Latency != 1300*time.Millisecond {
		t.Errorf("5s job: %+v, want 7 GETs, 1.3s late", r)
	}
	if r := WaitSDK(linearJob(20 * time.Second)); r.GETs != 9 || r.Latency != 2700*time.Millisecond {
		t.Errorf("20s job: %+v, want 9 GETs, 2.7s late", r)
	}
	if r := WaitSDK(linearJob(2 * CreateTimeout)); !r.GaveUp {
		t.Errorf("job longer than the limit: %+v, want given up", r)
	}
}

func TestWaitOurs(t *testing.T) {
	r := WaitOurs(linearJob(10*time.Minute), rand.New(rand.NewPCG(1, 2)))
	if r.GaveUp || r.GETs > TargetGETs || r.Latency < 0 || r.Latency > TargetP95 {
		t.Errorf("10m linear job: %+v", r)
	}
	if r := WaitOurs(linearJob(2*CreateTimeout), rand.New(rand.NewPCG(1, 2))); !r.GaveUp {
		t.Errorf("job longer than the limit: %+v, want given up", r)
	}
}

func TestSummarize(t *testing.T) {
	var rs []Result
	for i := 1; i <= 20; i++ {
		rs = append(rs, Result{GETs: i, Latency: time.Duration(i) * time.Second})
	}
	rs = append(rs, Result{GETs: 60, GaveUp: true})
	st := Summarize(rs)
	want := Stats{P50: 10 * time.Second, P95: 19 * time.Second, Max: 20 * time.Second, MeanLatency: 10500 * time.Millisecond, MeanGETs: 270.0 / 21, MaxGETs: 60, GaveUp: 1, Detected: 20}
	if st != want {
		t.Errorf("Summarize = %+v, want %+v", st, want)
	}
}

func TestRunIsDeterministicAndReports(t *testing.T) {
	c := DefaultConfig()
	c.Jobs = 20
	c.Durations = []time.Duration{30 * time.Second, 10 * time.Minute}
	a, b := Run(c, Strategies()), Run(c, Strategies())
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs with the same seed differ")
	}
	var out bytes.Buffer
	Report(&out, c, a, Strategies())
	for _, want := range []string{"linear progress", "noisy progress", "stalling progress", "shell loop", "sdk waiter", "±25%", "Targets"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if n := strings.Count(out.String(), "\nPASS  ") + strings.Count(out.String(), "\nMISS  "); n != 3 {
		t.Errorf("report has %d verdicts, want one per shape:\n%s", n, out.String())
	}
}

func BenchmarkSchedulerNoisyThirtyMinutes(b *testing.B) {
	j := Job{Behavior: mockapi.ExportBehavior{Duration: 30 * time.Minute, Progress: mockapi.Noisy}, Seed: 7}
	rnd := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		WaitOurs(j, rnd)
	}
}
