package mockapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestConcurrentUse exercises every endpoint and the scripting methods from
// many goroutines at once; run with -race.
func TestConcurrentUse(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	s.SeedAgentJob("p", AgentJob{ID: "shared"})
	const workers = 16
	s.InjectFault(EndpointGetExport, make([]Fault, workers)...) // Status 0: pass-through
	s.InjectFault(EndpointGetAgentJob, Fault{Status: 503}, Fault{Status: 503})

	var wg sync.WaitGroup
	errs := make(chan error, workers*4)
	for w := range workers {
		wg.Go(func() {
			domain := fmt.Sprintf("d%d.example.com", w)
			s.SetExportBehavior(domain, ExportBehavior{Progress: []ProgressShape{Linear, Noisy, Stalling}[w%3], PageCount: 10 + w})
			r, err := doRequest(http.DefaultClient, s, s.APIKey, "POST", "/v1/static-export/jobs", fmt.Sprintf(`{"domain":%q}`, domain))
			if err != nil || r.status != http.StatusAccepted {
				errs <- fmt.Errorf("start %s: %v %d", domain, err, r.status)
				return
			}
			id := s.ExportJobIDs(domain)[0]
			for range 5 {
				clock.Advance(time.Second)
				if _, err := doRequest(http.DefaultClient, s, s.APIKey, "GET", "/v1/static-export/jobs/"+id, ""); err != nil {
					errs <- err
				}
				_, _ = doRequest(http.DefaultClient, s, s.APIKey, "GET", "/v2/agent/p/job/shared", "")
			}
			s.CompleteExportJob(id)
			r, err = doRequest(http.DefaultClient, s, s.APIKey, "POST", "/v1/static-export/jobs/"+id+"/bundle", "")
			if err != nil || r.status != http.StatusOK {
				errs <- fmt.Errorf("bundle %s: %v %d %s", id, err, r.status, r.body)
				return
			}
			var b struct{ BundleURL string }
			if err := json.Unmarshal(r.body, &b); err != nil {
				errs <- err
				return
			}
			link := b.BundleURL
			r, err = doRequest(http.DefaultClient, s, "", "GET", link, "")
			if err != nil || r.status != http.StatusOK {
				errs <- fmt.Errorf("download %s: %v %d %s", id, err, r.status, r.body)
				return
			}
			if _, err := doRequest(http.DefaultClient, s, s.APIKey, "POST", "/v2/agent/p/job", `{"prompt":"x"}`); err != nil {
				errs <- err
			}
			s.ScheduleAgentJob("p", "shared", time.Duration(w)*time.Second, AgentJob{Status: "completed"})
			_ = s.TotalRequests() + s.Requests(EndpointBundle) + s.BundlesGenerated(id) + s.AgentJobReads("p", "shared")
			_, _ = s.ExportJob(id)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s.Downloads() != workers {
		t.Fatalf("Downloads = %d, want %d", s.Downloads(), workers)
	}
	if got := s.Requests(EndpointGetExport); got != workers*5 {
		t.Fatalf("Requests(GetExport) = %d", got)
	}
	if s.PendingFaults(EndpointGetExport) != 0 || s.PendingFaults(EndpointGetAgentJob) != 0 {
		t.Fatal("faults not all consumed")
	}
	if got := s.AgentJobReads("p", "shared"); got != workers*5 {
		t.Fatalf("AgentJobReads = %d", got)
	}
	for w := range workers {
		if s.ExportsStarted(fmt.Sprintf("d%d.example.com", w)) != 1 {
			t.Fatalf("ExportsStarted(d%d) != 1", w)
		}
	}
	if got := s.TotalRequests(); got != workers*(1+5+5+1+1+1) {
		t.Fatalf("TotalRequests = %d", got)
	}
}

// TestConcurrentProjectStarts races starts of part E: one export at a time
// per project, and no more accepted starts than the hourly limit, however
// the requests interleave; run with -race.
func TestConcurrentProjectStarts(t *testing.T) {
	const workers, limit = 24, 5
	s, _ := newTestServer(t, Config{APIRevision: RevisionBoth, ProjectExportStartsPerHour: limit})
	statuses := make(chan int, 2*workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			s.SetAPIRevision(RevisionBoth) // a switch to the revision served
			for _, project := range []string{"shared", fmt.Sprintf("own_%d", w)} {
				r, err := doRequest(http.DefaultClient, s, s.APIKey, "POST", "/v1/static-export/"+project+"/jobs", "")
				if err != nil {
					t.Error(err)
					continue
				}
				statuses <- r.status
			}
			_ = s.APIRevision()
		})
	}
	wg.Wait()
	close(statuses)
	counts := map[int]int{}
	for st := range statuses {
		counts[st]++
	}
	// One start of "shared" at most is accepted; the others are 409s, or
	// 429s when the limit was reached first.
	if counts[http.StatusAccepted] != limit || counts[http.StatusAccepted]+counts[http.StatusConflict]+counts[http.StatusTooManyRequests] != 2*workers {
		t.Fatalf("statuses %v: want %d accepted, the rest 409 or 429", counts, limit)
	}
	if n := len(s.ExportJobIDs(DefaultProjectDomain)); n != limit {
		t.Fatalf("%d jobs started, want %d", n, limit)
	}
	shared := 0
	for _, id := range s.ExportJobIDs(DefaultProjectDomain) {
		if snap, _ := s.ExportJob(id); snap.Project == "shared" {
			shared++
		}
	}
	if shared > 1 {
		t.Fatalf("%d exports of one project run at once", shared)
	}
}
