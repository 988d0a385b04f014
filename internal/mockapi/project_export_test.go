package mockapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
)

func projectJobsPath(project string) string { return "/v1/static-export/" + project + "/jobs" }

// startProjectExport starts a job of project through part E's route and
// returns its id.
func startProjectExport(t *testing.T, s *Server, project string) string {
	t.Helper()
	r := call(t, s, "POST", projectJobsPath(project), "")
	wantStatus(t, r, http.StatusAccepted)
	wantJSON(t, r)
	id, _ := r.json(t)["jobId"].(string)
	if id == "" {
		t.Fatalf("no jobId in %s", r.body)
	}
	return id
}

func getProjectJob(t *testing.T, s *Server, project, id string) map[string]any {
	t.Helper()
	r := call(t, s, "GET", projectJobsPath(project)+"/"+id, "")
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, r)
	return r.json(t)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestProjectExportLifecycle(t *testing.T) {
	s, clock := newTestServer(t, Config{APIRevision: RevisionProject, QueueDuration: time.Second, ExportDuration: 4 * time.Second})
	r := call(t, s, "POST", projectJobsPath("proj_1"), "")
	wantStatus(t, r, http.StatusAccepted)
	wantJSON(t, r)
	job := r.json(t)
	id, _ := job["jobId"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{24}$`).MatchString(id) {
		t.Fatalf("jobId %q is not 24 lower-case hex digits", id)
	}
	unfinished := []string{"createdAt", "jobId", "status", "updatedAt"}
	if got := sortedKeys(job); !slices.Equal(got, unfinished) || job["status"] != "queued" || job["createdAt"] != "2026-11-22T08:00:00Z" {
		t.Fatalf("start answer = %v", job)
	}

	for _, st := range []struct {
		advance time.Duration
		status  string
		updated string
	}{
		{500 * time.Millisecond, "queued", "2026-11-22T08:00:00Z"},
		{2 * time.Second, "running", "2026-11-22T08:00:02Z"},
		{2400 * time.Millisecond, "running", "2026-11-22T08:00:04Z"},
	} {
		clock.Advance(st.advance)
		job := getProjectJob(t, s, "proj_1", id)
		if got := sortedKeys(job); !slices.Equal(got, unfinished) || job["status"] != st.status || job["updatedAt"] != st.updated {
			t.Fatalf("at %v: %v, want status %s, updatedAt %s and the fields %v alone", clock.Now().Sub(testStart), job, st.status, st.updated, unfinished)
		}
	}
	if s.BundlesGenerated(id) != 0 {
		t.Fatal("a link was counted before the job completed")
	}

	clock.Advance(100 * time.Millisecond) // 5s: completed
	links := map[string]bool{}
	for i := range 2 {
		job := getProjectJob(t, s, "proj_1", id)
		want := []string{"bundleUrl", "createdAt", "expiresAt", "jobId", "sizeBytes", "status", "updatedAt"}
		if got := sortedKeys(job); !slices.Equal(got, want) || job["status"] != "completed" || job["updatedAt"] != "2026-11-22T08:00:05Z" {
			t.Fatalf("completed job = %v, want the fields %v", job, want)
		}
		link := job["bundleUrl"].(string)
		pattern := `^` + regexp.QuoteMeta(s.URL+"/bundles/"+id+"/export.zip?") + `X-Amz-Algorithm=AWS4-HMAC-SHA256&.*X-Amz-Date=` +
			clock.Now().UTC().Format(amzDateFormat) + `&X-Amz-Expires=3600&.*X-Amz-Signature=[0-9a-f]{64}$`
		if !regexp.MustCompile(pattern).MatchString(link) {
			t.Fatalf("read %d: link %q does not match %s", i, link, pattern)
		}
		if got, want := job["expiresAt"], clock.Now().Add(time.Hour).Format(time.RFC3339); got != want {
			t.Fatalf("read %d: expiresAt = %v, want %s", i, got, want)
		}
		links[link] = true
		resp, err := http.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := (archive.Limits{}).Files(context.Background(), resp.Body, archive.UnpackOptions{})
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || resp.ContentLength != int64(job["sizeBytes"].(float64)) || sum.Size != resp.ContentLength {
			t.Fatalf("download: %s, %v, Content-Length %d, sizeBytes %v", resp.Status, err, resp.ContentLength, job["sizeBytes"])
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/zip" {
			t.Fatalf("export.zip labelled %q, want application/zip (the bytes are a gzip'd tar all the same)", ct)
		}
		clock.Advance(time.Minute)
	}
	if len(links) != 2 || s.BundlesGenerated(id) != 2 || s.ArchiveDownloads(id) != 2 {
		t.Fatalf("%d distinct links, BundlesGenerated %d, ArchiveDownloads %d, want 2 of each", len(links), s.BundlesGenerated(id), s.ArchiveDownloads(id))
	}

	snap, ok := s.ExportJob(id)
	if !ok || snap.Project != "proj_1" || snap.Domain != DefaultProjectDomain || snap.HasProgress {
		t.Fatalf("snapshot = %+v, %v", snap, ok)
	}
	if got := s.ExportsStarted(DefaultProjectDomain); got != 1 {
		t.Fatalf("ExportsStarted = %d", got)
	}
	if ids := s.ExportJobIDs(DefaultProjectDomain); !slices.Equal(ids, []string{id}) {
		t.Fatalf("ExportJobIDs = %v", ids)
	}
}

// TestProjectJobsFollowTheirDomain scripts a project's jobs through the
// helpers of its domain.
func TestProjectJobsFollowTheirDomain(t *testing.T) {
	s, clock := newTestServer(t, Config{APIRevision: RevisionProject})
	s.SetProjectDomain("proj_bad", "bad.example.com")
	s.SetExportBehavior("bad.example.com", ExportBehavior{Fail: true, FailMessage: "boom", Duration: 10 * time.Second})
	id := startProjectExport(t, s, "proj_bad")
	clock.Advance(10 * time.Second)
	job := getProjectJob(t, s, "proj_bad", id)
	if job["status"] != "failed" || job["error"] != "boom" || job["bundleUrl"] != nil || job["progress"] != nil {
		t.Fatalf("failed job = %v", job)
	}
	if s.ExportsStarted("bad.example.com") != 1 || s.ExportsStarted(DefaultProjectDomain) != 0 ||
		!slices.Equal(s.ExportJobIDs("bad.example.com"), []string{id}) {
		t.Fatal("the job is not counted and listed under its project's domain")
	}

	id2 := startProjectExport(t, s, "proj_bad") // the failed job is not in progress
	s.CompleteExportJob(id2)
	if !s.SetArchive(id2, ArchiveDotDot) {
		t.Fatal("SetArchive does not find a project job")
	}
	resp, err := http.Get(getProjectJob(t, s, "proj_bad", id2)["bundleUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	_, err = (archive.Limits{}).Files(context.Background(), resp.Body, archive.UnpackOptions{})
	resp.Body.Close()
	if !errors.Is(err, archive.ErrUnsafePath) {
		t.Fatalf("Verify = %v, want the archive SetArchive chose", err)
	}
	s.DeleteExportJob(id2)
	r := call(t, s, "GET", projectJobsPath("proj_bad")+"/"+id2, "")
	wantStatus(t, r, http.StatusNotFound)
	if got := r.errorMessage(t); got != ProjectJobNotFoundMessage {
		t.Fatalf("deleted job: %q", got)
	}
}

func TestProjectStartRefusesABody(t *testing.T) {
	s, _ := newTestServer(t, Config{APIRevision: RevisionProject})
	for _, body := range []string{`{"domain":"docs.example.com"}`, `{}`, `null`, ` `} {
		r := call(t, s, "POST", projectJobsPath("proj_1"), body)
		wantStatus(t, r, http.StatusBadRequest)
		wantJSON(t, r)
		if msg := r.errorMessage(t); !strings.Contains(msg, "takes no request body") || !strings.Contains(msg, fmt.Sprintf("%d bytes", len(body))) {
			t.Errorf("body %q: error %q", body, msg)
		}
	}
	if n := s.ExportsStarted(DefaultProjectDomain); n != 0 {
		t.Fatalf("a start with a body started %d jobs", n)
	}
	startProjectExport(t, s, "proj_1")
}

func TestProjectIDsAndUnknownProjects(t *testing.T) {
	s, _ := newTestServer(t, Config{APIRevision: RevisionProject})
	id := startProjectExport(t, s, "proj_1")
	long := strings.Repeat("p", 64)
	startProjectExport(t, s, long)
	startProjectExport(t, s, "A-z_09")

	for _, tc := range []struct {
		project string
		status  int
		want    string
	}{
		{strings.Repeat("p", 65), http.StatusBadRequest, "malformed"},
		{"proj.1", http.StatusBadRequest, "malformed"},
		{"proj%201", http.StatusBadRequest, `"proj 1" is malformed`},
		{"proj%2F1", http.StatusBadRequest, "malformed"},
		{"gone", http.StatusNotFound, ProjectNotFoundMessage},
	} {
		s.ForgetProject("gone")
		for _, rq := range []struct{ method, path string }{
			{"POST", projectJobsPath(tc.project)},
			{"GET", projectJobsPath(tc.project) + "/" + id},
		} {
			r := call(t, s, rq.method, rq.path, "")
			wantStatus(t, r, tc.status)
			wantJSON(t, r)
			if msg := r.errorMessage(t); !strings.Contains(msg, tc.want) {
				t.Errorf("%s %s: error %q, want %q", rq.method, rq.path, msg, tc.want)
			}
		}
	}
	if got := s.ExportsStarted(DefaultProjectDomain); got != 3 {
		t.Fatalf("ExportsStarted = %d, want 3: refused starts started jobs", got)
	}
}

func TestProjectJobReadThroughAnotherProject(t *testing.T) {
	s, _ := newTestServer(t, Config{APIRevision: RevisionProject})
	id := startProjectExport(t, s, "proj_1")
	getProjectJob(t, s, "proj_1", id)
	for _, path := range []string{projectJobsPath("proj_2") + "/" + id, projectJobsPath("proj_1") + "/6520f3a1c9b1a20012ab34cd"} {
		r := call(t, s, "GET", path, "")
		wantStatus(t, r, http.StatusNotFound)
		wantJSON(t, r)
		if got := r.errorMessage(t); got != ProjectJobNotFoundMessage {
			t.Errorf("GET %s: error %q, want %q", path, got, ProjectJobNotFoundMessage)
		}
	}
}

func TestOneProjectExportAtATime(t *testing.T) {
	s, clock := newTestServer(t, Config{APIRevision: RevisionProject, QueueDuration: time.Second})
	id := startProjectExport(t, s, "proj_1")
	for _, advance := range []time.Duration{0, 2 * time.Second} { // queued, then running
		clock.Advance(advance)
		r := call(t, s, "POST", projectJobsPath("proj_1"), "")
		wantStatus(t, r, http.StatusConflict)
		wantJSON(t, r)
		if got := r.errorMessage(t); got != ProjectExportConflictMessage {
			t.Fatalf("409 error = %q", got)
		}
		if strings.Contains(string(r.body), id) {
			t.Fatalf("409 names the running job: %s", r.body)
		}
	}
	other := startProjectExport(t, s, "proj_2") // another deployment
	s.CompleteExportJob(id)
	id2 := startProjectExport(t, s, "proj_1")
	if ids := s.ExportJobIDs(DefaultProjectDomain); !slices.Equal(ids, []string{id, other, id2}) {
		t.Fatalf("ExportJobIDs = %v", ids)
	}
}

func TestProjectExportStartLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		limit int
	}{
		{"default", Config{}, DefaultProjectExportStartsPerHour},
		{"configured", Config{ProjectExportStartsPerHour: 3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.APIRevision = RevisionBoth
			s, clock := newTestServer(t, tc.cfg)
			// A 409 and a start through part B's route do not count.
			startProjectExport(t, s, "proj_0")
			wantStatus(t, call(t, s, "POST", projectJobsPath("proj_0"), ""), http.StatusConflict)
			startExport(t, s, `{"domain":"docs.example.com"}`)
			for i := 1; i < tc.limit; i++ { // one start a minute, one project each: counted per server
				clock.Advance(time.Minute)
				startProjectExport(t, s, fmt.Sprintf("proj_%d", i))
			}
			clock.Advance(time.Minute + 500*time.Millisecond)
			r := call(t, s, "POST", projectJobsPath("proj_new"), "")
			wantStatus(t, r, http.StatusTooManyRequests)
			wantJSON(t, r)
			// The first start (t=0) leaves the window at t=1h; now is
			// t=limit min + 0.5 s: the rest, rounded up to whole seconds.
			want := 3600 - 60*tc.limit
			if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra != want {
				t.Fatalf("Retry-After = %q, want %d", r.header.Get("Retry-After"), want)
			}
			if msg := r.errorMessage(t); !strings.Contains(msg, strconv.Itoa(tc.limit)+" static export job starts per organization per hour") {
				t.Fatalf("429 error = %q", msg)
			}
			if got := s.ExportsStarted(DefaultProjectDomain); got != tc.limit+1 { // and the domain start
				t.Fatalf("ExportsStarted = %d after a 429, want %d", got, tc.limit+1)
			}
			clock.Advance(time.Duration(want)*time.Second - time.Second)
			wantStatus(t, call(t, s, "POST", projectJobsPath("proj_new"), ""), http.StatusTooManyRequests)
			clock.Advance(time.Second)
			startProjectExport(t, s, "proj_new")
			wantStatus(t, call(t, s, "POST", projectJobsPath("proj_newer"), ""), http.StatusTooManyRequests)
			s.ResetProjectExportLimit()
			startProjectExport(t, s, "proj_newer")
		})
	}
}

func TestProjectRoutesAuth(t *testing.T) {
	const readOnly = "dsa_mock_readonly_5ecret"
	s, _ := newTestServer(t, Config{APIRevision: RevisionProject, ReadOnlyAPIKeys: []string{readOnly}})
	id := startProjectExport(t, s, "proj_1")
	for _, key := range []string{"", "dsa_mock_wrong"} {
		for _, rq := range []struct{ method, path string }{{"POST", projectJobsPath("proj_1")}, {"GET", projectJobsPath("proj_1") + "/" + id}} {
			r := callKey(t, s, key, rq.method, rq.path, "")
			wantStatus(t, r, http.StatusUnauthorized)
			if got := r.errorMessage(t); got != "authentication failed: missing or invalid API key" {
				t.Errorf("%s %s: %q", rq.method, rq.path, got)
			}
		}
	}
	wantStatus(t, callKey(t, s, readOnly, "GET", projectJobsPath("proj_1")+"/"+id, ""), http.StatusOK)
	// A 403 comes before the checks of the path and the body.
	for _, project := range []string{"proj_2", "not.valid"} {
		r := callKey(t, s, readOnly, "POST", projectJobsPath(project), `{"domain":"docs.example.com"}`)
		wantStatus(t, r, http.StatusForbidden)
		msg := r.errorMessage(t)
		for _, want := range []string{"lacks write permission", "read scope only", "POST " + projectJobsPath(project) + " needs the write scope"} {
			if !strings.Contains(msg, want) {
				t.Errorf("403 error %q does not say %q", msg, want)
			}
		}
		if strings.Contains(string(r.body), "5ecret") {
			t.Errorf("403 body echoes the key: %s", r.body)
		}
	}
	if n := s.ExportsStarted(DefaultProjectDomain); n != 1 {
		t.Fatalf("ExportsStarted = %d, want 1", n)
	}
}

func TestProjectRoutesInRequestLogAndFaults(t *testing.T) {
	s, _ := newTestServer(t, Config{APIRevision: RevisionProject})
	s.InjectFault(EndpointStartProjectExport, Fault{Status: http.StatusServiceUnavailable})
	wantStatus(t, call(t, s, "POST", projectJobsPath("proj_1"), ""), http.StatusServiceUnavailable)
	wantStatus(t, call(t, s, "POST", projectJobsPath("proj_1"), `{"domain":"docs.example.com"}`), http.StatusBadRequest)
	id := startProjectExport(t, s, "proj_1")
	s.InjectFault(EndpointGetProjectExport, Fault{Status: http.StatusBadGateway})
	wantStatus(t, call(t, s, "GET", projectJobsPath("proj_1")+"/"+id, ""), http.StatusBadGateway)
	getProjectJob(t, s, "proj_1", id)

	want := []LoggedRequest{
		{Endpoint: EndpointStartProjectExport, Method: "POST", Path: "/v1/static-export/proj_1/jobs", Status: 503},
		{Endpoint: EndpointStartProjectExport, Method: "POST", Path: "/v1/static-export/proj_1/jobs", Body: `{"domain":"docs.example.com"}`, Status: 400},
		{Endpoint: EndpointStartProjectExport, Method: "POST", Path: "/v1/static-export/proj_1/jobs", Status: 202},
		{Endpoint: EndpointGetProjectExport, Method: "GET", Path: "/v1/static-export/proj_1/jobs/" + id, Status: 502},
		{Endpoint: EndpointGetProjectExport, Method: "GET", Path: "/v1/static-export/proj_1/jobs/" + id, Status: 200},
	}
	got := s.RequestLog()
	for i := range got {
		got[i].At = time.Time{}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("RequestLog =\n%+v\nwant\n%+v", got, want)
	}
	if s.Requests(EndpointStartProjectExport) != 3 || s.Requests(EndpointGetProjectExport) != 2 {
		t.Fatalf("Requests = %d, %d", s.Requests(EndpointStartProjectExport), s.Requests(EndpointGetProjectExport))
	}
}

// TestExportZipLinks checks that a link opens the archive it was signed
// for, under its own name only.
func TestExportZipLinks(t *testing.T) {
	s, _ := newTestServer(t, Config{APIRevision: RevisionProject, LinkTTL: time.Minute})
	id := startProjectExport(t, s, "proj_1")
	s.CompleteExportJob(id)
	link := getProjectJob(t, s, "proj_1", id)["bundleUrl"].(string)
	renamed := strings.Replace(link, "/export.zip?", "/bundle.tar.gz?", 1)
	for _, tc := range []struct {
		link   string
		status int
	}{{link, http.StatusOK}, {renamed, http.StatusForbidden}} {
		resp, err := http.Get(tc.link)
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 2)
		_, _ = io.ReadFull(resp.Body, head)
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Fatalf("GET %s: %s, want %d", tc.link, resp.Status, tc.status)
		}
		if tc.status == http.StatusOK && string(head) != "\x1f\x8b" {
			t.Fatalf("export.zip starts with %x, not gzip's magic", head)
		}
	}
	if s.Requests(EndpointDownloadZip) != 1 || s.Requests(EndpointDownload) != 1 || s.ArchiveDownloads(id) != 1 {
		t.Fatalf("downloads routed zip %d, tar.gz %d; served %d", s.Requests(EndpointDownloadZip), s.Requests(EndpointDownload), s.ArchiveDownloads(id))
	}
}
