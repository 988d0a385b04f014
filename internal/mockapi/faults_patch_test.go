package mockapi

import (
	"net/http"
	"testing"
	"time"
)

// Patch sets fields over the real answer of a call that acted; Trickle
// sends a body a byte at a time.
func TestFaultPatchAndTrickle(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	s.InjectFault(EndpointStartExport, Fault{AfterHandling: true, Patch: map[string]any{"status": 7, "progress": nil}})
	r := call(t, s, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`)
	wantStatus(t, r, http.StatusAccepted)
	body := r.json(t)
	if body["status"] != float64(7) || body["jobId"] == nil {
		t.Fatalf("patched answer = %v, want status 7 and the real jobId", body)
	}
	if _, ok := body["progress"]; ok {
		t.Fatalf("patched answer = %v, want progress removed", body)
	}
	if n := s.ExportsStarted("docs.example.com"); n != 1 {
		t.Fatalf("%d exports started, want the real one", n)
	}

	s.InjectFault(EndpointGetExport, Fault{Status: 200, Body: `{"jobId":"x"}`, Trickle: 20 * time.Millisecond})
	start := time.Now()
	r = call(t, s, "GET", "/v1/static-export/jobs/x", "")
	if elapsed := time.Since(start); elapsed < 200*time.Millisecond {
		t.Errorf("the trickled answer took %s, want about 12 × 20ms", elapsed)
	}
	if got := r.json(t)["jobId"]; got != "x" {
		t.Errorf("trickled answer jobId = %v", got)
	}
}
