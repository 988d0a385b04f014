package mockapi

import (
	"math"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestExportLifecycleWithFakeClock(t *testing.T) {
	s, clock := newTestServer(t, Config{QueueDuration: time.Second, ExportDuration: 4 * time.Second})

	r := call(t, s, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com","version":"v2","extra":"ignored"}`)
	wantStatus(t, r, http.StatusAccepted)
	wantJSON(t, r)
	job := r.json(t)
	id, _ := job["jobId"].(string)
	if !regexp.MustCompile(`^se_[0-9a-f]{16}$`).MatchString(id) {
		t.Fatalf("jobId %q does not look like se_<16 hex>", id)
	}
	want := map[string]any{
		"status": "queued", "progress": 0.0, "pageCount": 0.0, "error": nil,
		"createdAt": "2026-11-22T08:00:00Z", "updatedAt": "2026-11-22T08:00:00Z",
	}
	for k, v := range want {
		got, present := job[k]
		if !present || got != v {
			t.Errorf("start answer %s = %v (present %v), want %v", k, got, present, v)
		}
	}
	if got := s.ExportsStarted("docs.example.com"); got != 1 {
		t.Fatalf("ExportsStarted = %d, want 1", got)
	}

	steps := []struct {
		advance  time.Duration
		status   string
		progress float64
		pages    float64
	}{
		{500 * time.Millisecond, "queued", 0, 0},
		{time.Second, "running", 12.5, 5},      // 1.5s: 0.5s of 4s running
		{2 * time.Second, "running", 62.5, 26}, // 3.5s
		{1400 * time.Millisecond, "running", 97.5, 40},
		{100 * time.Millisecond, "completed", 100, 42}, // 5s: queue + duration
		{time.Hour, "completed", 100, 42},
	}
	for _, st := range steps {
		clock.Advance(st.advance)
		job := getJob(t, s, id)
		if job["status"] != st.status || job["progress"] != st.progress || job["pageCount"] != st.pages {
			t.Fatalf("at %v: status/progress/pageCount = %v/%v/%v, want %s/%v/%v",
				clock.Now().Sub(testStart), job["status"], job["progress"], job["pageCount"], st.status, st.progress, st.pages)
		}
		if job["error"] != nil {
			t.Fatalf("error = %v, want null", job["error"])
		}
		if job["domain"] != "docs.example.com" || job["version"] != "v2" {
			t.Fatalf("domain/version = %v/%v", job["domain"], job["version"])
		}
	}
	snap, ok := s.ExportJob(id)
	if !ok || snap.Status != StatusCompleted || snap.Domain != "docs.example.com" || snap.Version != "v2" ||
		!snap.CreatedAt.Equal(testStart) || !snap.UpdatedAt.Equal(testStart.Add(5*time.Second)) {
		t.Fatalf("snapshot = %+v, %v", snap, ok)
	}
}

func TestProgressIsFractionalAndMonotonic(t *testing.T) {
	s, clock := newTestServer(t, Config{ExportDuration: 8 * time.Second})
	id := startExport(t, s, `{"domain":"docs.example.com"}`)
	var last, lastPages float64
	sawFraction := false
	for range 64 {
		clock.Advance(130 * time.Millisecond)
		job := getJob(t, s, id)
		p, n := job["progress"].(float64), job["pageCount"].(float64)
		if p < last || n < lastPages {
			t.Fatalf("progress went backwards: %v -> %v, pages %v -> %v", last, p, lastPages, n)
		}
		if p != math.Trunc(p) {
			sawFraction = true
		}
		last, lastPages = p, n
	}
	if !sawFraction {
		t.Fatal("progress never fractional")
	}
	if last != 100 || lastPages != 42 {
		t.Fatalf("final progress/pages = %v/%v", last, lastPages)
	}
}

func TestFailedExport(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	s.SetExportBehavior("bad.example.com", ExportBehavior{Fail: true, Duration: 2 * time.Second})
	s.SetExportBehavior("worse.example.com", ExportBehavior{Fail: true, FailMessage: "boom"})
	id := startExport(t, s, `{"domain":"bad.example.com"}`)
	id2 := startExport(t, s, `{"domain":"worse.example.com"}`)

	clock.Advance(time.Second)
	if job := getJob(t, s, id); job["status"] != "running" || job["error"] != nil {
		t.Fatalf("mid-run job = %v", job)
	}
	clock.Advance(time.Second)
	job := getJob(t, s, id)
	if job["status"] != "failed" || job["error"] != DefaultFailMessage {
		t.Fatalf("failed job = %v", job)
	}
	if p := job["progress"].(float64); p >= 100 {
		t.Fatalf("failed job progress = %v, want < 100", p)
	}
	r := call(t, s, "POST", "/v1/static-export/jobs/"+id+"/bundle", "")
	wantStatus(t, r, http.StatusConflict)
	if msg := r.errorMessage(t); !strings.Contains(msg, id) || !strings.Contains(msg, "failed") {
		t.Fatalf("409 message = %q", msg)
	}
	if s.BundlesGenerated(id) != 0 {
		t.Fatal("bundle counted for a failed job")
	}

	clock.Advance(time.Second) // default 3s for the second domain
	if job := getJob(t, s, id2); job["status"] != "failed" || job["error"] != "boom" {
		t.Fatalf("custom failure = %v", job)
	}
}

func TestBundleBeforeCompletionIs409(t *testing.T) {
	s, clock := newTestServer(t, Config{QueueDuration: time.Second})
	id := startExport(t, s, `{"domain":"docs.example.com"}`)
	r := call(t, s, "POST", "/v1/static-export/jobs/"+id+"/bundle", "")
	wantStatus(t, r, http.StatusConflict)
	if got, want := r.errorMessage(t), "job "+id+" has not finished (status queued)"; got != want {
		t.Fatalf("error = %q, want %q", got, want)
	}
	clock.Advance(2 * time.Second)
	r = call(t, s, "POST", "/v1/static-export/jobs/"+id+"/bundle", "")
	wantStatus(t, r, http.StatusConflict)
	if got, want := r.errorMessage(t), "job "+id+" has not finished (status running)"; got != want {
		t.Fatalf("error = %q, want %q", got, want)
	}
	wantStatus(t, call(t, s, "POST", "/v1/static-export/jobs/se_ffffffffffffffff/bundle", ""), http.StatusNotFound)

	s.CompleteExportJob(id)
	if snap, _ := s.ExportJob(id); snap.Status != StatusCompleted || snap.Progress != 100 || snap.PageCount != 42 {
		t.Fatalf("forced snapshot = %+v", snap)
	}
	wantStatus(t, call(t, s, "POST", "/v1/static-export/jobs/"+id+"/bundle", ""), http.StatusOK)
	if s.BundlesGenerated(id) != 1 {
		t.Fatalf("BundlesGenerated = %d", s.BundlesGenerated(id))
	}
}

func TestGetUnknownAndDeletedJob(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	r := call(t, s, "GET", "/v1/static-export/jobs/se_nope", "")
	wantStatus(t, r, http.StatusNotFound)
	wantJSON(t, r)
	if got := r.errorMessage(t); got != "static export job se_nope not found" {
		t.Fatalf("error = %q", got)
	}

	id := startExport(t, s, `{"domain":"docs.example.com"}`)
	getJob(t, s, id)
	s.DeleteExportJob(id)
	wantStatus(t, call(t, s, "GET", "/v1/static-export/jobs/"+id, ""), http.StatusNotFound)
	wantStatus(t, call(t, s, "POST", "/v1/static-export/jobs/"+id+"/bundle", ""), http.StatusNotFound)
	if _, ok := s.ExportJob(id); ok {
		t.Fatal("ExportJob still finds a deleted job")
	}
}

func TestStartExportValidation(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	bad := map[string]string{
		"scheme":        `{"domain":"https://docs.example.com"}`,
		"trailingSlash": `{"domain":"docs.example.com/"}`,
		"path":          `{"domain":"docs.example.com/guides"}`,
		"port":          `{"domain":"docs.example.com:8443"}`,
		"space":         `{"domain":"docs example.com"}`,
		"empty":         `{"domain":""}`,
		"missing":       `{"version":"v1"}`,
		"notString":     `{"domain":42}`,
		"badLabel":      `{"domain":"docs..example.com"}`,
		"unreachable":   `{"domain":"docs.example.invalid"}`,
		"emptyPath":     `{"domain":"docs.example.com","paths":["index",""]}`,
		"blankPath":     `{"domain":"docs.example.com","paths":["  "]}`,
		"dotdotPath":    `{"domain":"docs.example.com","paths":["../etc/passwd"]}`,
		"invalidJSON":   `{"domain":`,
		"array":         `["docs.example.com"]`,
		"trailingData":  `{"domain":"docs.example.com"} {}`,
		"noBody":        ``,
	}
	for name, body := range bad {
		t.Run(name, func(t *testing.T) {
			r := call(t, s, "POST", "/v1/static-export/jobs", body)
			wantStatus(t, r, http.StatusBadRequest)
			wantJSON(t, r)
			if r.errorMessage(t) == "" {
				t.Fatal("empty error message")
			}
		})
	}
	if got := s.ExportsStarted("docs.example.com"); got != 0 {
		t.Fatalf("invalid starts created %d jobs", got)
	}
	r := call(t, s, "POST", "/v1/static-export/jobs", `{"domain":"https://docs.example.com"}`)
	if msg := r.errorMessage(t); !strings.Contains(msg, "scheme") {
		t.Fatalf("scheme error not explained: %q", msg)
	}
	startExport(t, s, `{"domain":"Docs-1.example.com","paths":["index","guides/getting-started"],"unknown":{"a":1}}`)
}

func TestConflictOnRunningExport(t *testing.T) {
	s, clock := newTestServer(t, Config{ConflictOnRunningExport: true})
	id := startExport(t, s, `{"domain":"docs.example.com"}`)
	r := call(t, s, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`)
	wantStatus(t, r, http.StatusConflict)
	if !strings.Contains(r.errorMessage(t), id) {
		t.Fatalf("409 does not name the running job: %s", r.body)
	}
	startExport(t, s, `{"domain":"other.example.com"}`)
	clock.Advance(DefaultExportDuration)
	id2 := startExport(t, s, `{"domain":"docs.example.com"}`)
	if ids := s.ExportJobIDs("docs.example.com"); len(ids) != 2 || ids[0] != id || ids[1] != id2 {
		t.Fatalf("ExportJobIDs = %v", ids)
	}
}

func TestOmitProgress(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	s.SetExportBehavior("docs.example.com", ExportBehavior{OmitProgress: true})
	id := startExport(t, s, `{"domain":"docs.example.com"}`)
	for _, adv := range []time.Duration{0, time.Second, 5 * time.Second} {
		clock.Advance(adv)
		job := getJob(t, s, id)
		if _, ok := job["progress"]; ok {
			t.Fatalf("progress present: %v", job)
		}
		if _, ok := job["pageCount"]; ok {
			t.Fatalf("pageCount present: %v", job)
		}
	}
}

func TestStateAtShapes(t *testing.T) {
	lin := ExportBehavior{Duration: 10 * time.Second}
	if st := lin.StateAt(0, 1); st.Status != StatusQueued || st.Progress != 0 || !st.HasProgress {
		t.Fatalf("at 0: %+v", st)
	}
	if st := lin.StateAt(2500*time.Millisecond, 1); st.Status != StatusRunning || st.Progress != 25 || st.PageCount != 10 {
		t.Fatalf("linear at 25%%: %+v", st)
	}
	if st := lin.StateAt(10*time.Second, 1); st.Status != StatusCompleted || st.Progress != 100 || st.PageCount != 42 {
		t.Fatalf("linear at end: %+v", st)
	}
	// Defaults apply when called directly.
	if st := (ExportBehavior{}).StateAt(DefaultExportDuration-time.Millisecond, 1); st.Status != StatusRunning {
		t.Fatalf("default duration: %+v", st)
	}
	queued := ExportBehavior{Duration: time.Second, Queue: time.Second}
	if st := queued.StateAt(999*time.Millisecond, 1); st.Status != StatusQueued {
		t.Fatalf("queue: %+v", st)
	}

	noisy := ExportBehavior{Duration: 10 * time.Second, Progress: Noisy, PageCount: 500}
	var widest float64 // largest deviation from the trend over all seeds
	for seed := int64(1); seed <= 50; seed++ {
		var last JobState
		for ms := 1; ms < 10000; ms += 7 {
			st := noisy.StateAt(time.Duration(ms)*time.Millisecond, seed)
			if st.Status != StatusRunning {
				t.Fatalf("seed %d at %dms: %+v", seed, ms, st)
			}
			if st.Progress < last.Progress || st.PageCount < last.PageCount {
				t.Fatalf("seed %d: noisy progress went backwards at %dms: %+v after %+v", seed, ms, st, last)
			}
			// Within 3 points of the trend, plus rounding to one decimal.
			trend := min(float64(ms)/100, 99.9)
			dev := math.Abs(st.Progress - trend)
			if dev > 3.05+1e-9 {
				t.Fatalf("seed %d at %dms: progress %.1f is %.2f points from the trend %.2f", seed, ms, st.Progress, dev, trend)
			}
			widest = max(widest, dev)
			if again := noisy.StateAt(time.Duration(ms)*time.Millisecond, seed); again != st {
				t.Fatalf("not deterministic: %+v vs %+v", st, again)
			}
			last = st
		}
		if st := noisy.StateAt(10*time.Second, seed); st.Status != StatusCompleted || st.Progress != 100 || st.PageCount != 500 {
			t.Fatalf("seed %d: noisy end %+v", seed, st)
		}
	}
	if widest < 2 {
		t.Fatalf("noisy progress strays at most %.2f points from the trend; want noise of up to 3", widest)
	}
	if noisy.StateAt(3*time.Second, 1) == noisy.StateAt(3*time.Second, 2) && noisy.StateAt(6*time.Second, 1) == noisy.StateAt(6*time.Second, 2) {
		t.Fatal("different seeds give the same noisy curve")
	}

	stall := ExportBehavior{Duration: 20 * time.Second, Progress: Stalling}
	if st := stall.StateAt(2500*time.Millisecond, 1); st.Progress != 30 {
		t.Fatalf("stalling climb: %+v", st)
	}
	a, b := stall.StateAt(6*time.Second, 1), stall.StateAt(19900*time.Millisecond, 1)
	if a.Progress != 60 || b.Progress != 60 || a.PageCount != b.PageCount || b.Status != StatusRunning {
		t.Fatalf("stalling plateau: %+v %+v", a, b)
	}
	if st := stall.StateAt(20*time.Second, 1); st.Status != StatusCompleted || st.Progress != 100 {
		t.Fatalf("stalling end: %+v", st)
	}

	fail := ExportBehavior{Duration: time.Second, Fail: true, Progress: Stalling}
	if st := fail.StateAt(time.Second, 1); st.Status != StatusFailed || st.Error != DefaultFailMessage || st.Progress != 60 {
		t.Fatalf("failed: %+v", st)
	}
	omit := ExportBehavior{OmitProgress: true}
	if st := omit.StateAt(time.Second, 1); st.HasProgress || st.Progress != 0 || st.PageCount != 0 || st.Status != StatusRunning {
		t.Fatalf("omit: %+v", st)
	}
}

func TestServerUsesStateAt(t *testing.T) {
	// The server's answers are exactly StateAt with seed = job sequence number.
	s, clock := newTestServer(t, Config{})
	b := ExportBehavior{Duration: 7 * time.Second, Progress: Noisy, PageCount: 300}
	s.SetExportBehavior("docs.example.com", b)
	startExport(t, s, `{"domain":"other.example.com"}`) // seed 1
	id := startExport(t, s, `{"domain":"docs.example.com"}`)
	for elapsed := time.Duration(0); elapsed <= 8*time.Second; elapsed += 333 * time.Millisecond {
		clock.Advance(testStart.Add(elapsed).Sub(clock.Now()))
		want := b.StateAt(elapsed, 2)
		job := getJob(t, s, id)
		if job["status"] != want.Status || job["progress"] != want.Progress || job["pageCount"] != float64(want.PageCount) {
			t.Fatalf("at %v: %v, want %+v", elapsed, job, want)
		}
	}
}
