package mockapi

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// wantUnrouted checks the generic router 404 that ServeHTTP answers for a
// path it does not route.
func wantUnrouted(t *testing.T, r response, method, path string) {
	t.Helper()
	wantStatus(t, r, http.StatusNotFound)
	wantJSON(t, r)
	m := r.json(t)
	if m["statusCode"] != 404.0 || m["error"] != "Not Found" || m["message"] != "Cannot "+method+" "+path {
		t.Fatalf("%s %s: %s is not the router's 404", method, path, r.body)
	}
}

func TestRevisionsServeTheirRoutes(t *testing.T) {
	const domainJob, projectJob = "se_0000000000000000", "6520f3a1c9b1a20012ab34cd"
	requests := []struct {
		method, path, body string
		endpoint           Endpoint
	}{
		{"POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`, EndpointStartExport},
		{"GET", "/v1/static-export/jobs/" + domainJob, "", EndpointGetExport},
		{"POST", "/v1/static-export/jobs/" + domainJob + "/bundle", "", EndpointBundle},
		{"POST", "/v1/static-export/proj_1/jobs", "", EndpointStartProjectExport},
		{"GET", "/v1/static-export/proj_1/jobs/" + projectJob, "", EndpointGetProjectExport},
	}
	for _, tc := range []struct {
		revision APIRevision
		served   []Endpoint
	}{
		{"", []Endpoint{EndpointStartExport, EndpointGetExport, EndpointBundle}},
		{RevisionDomain, []Endpoint{EndpointStartExport, EndpointGetExport, EndpointBundle}},
		{RevisionProject, []Endpoint{EndpointStartProjectExport, EndpointGetProjectExport}},
		{RevisionBoth, []Endpoint{EndpointStartExport, EndpointGetExport, EndpointBundle, EndpointStartProjectExport, EndpointGetProjectExport}},
	} {
		t.Run(string(tc.revision), func(t *testing.T) {
			s, _ := newTestServer(t, Config{APIRevision: tc.revision})
			if want := cmp.Or(tc.revision, RevisionDomain); s.APIRevision() != want {
				t.Fatalf("APIRevision = %q, want %q", s.APIRevision(), want)
			}
			for _, rq := range requests {
				r := call(t, s, rq.method, rq.path, rq.body)
				routed := s.Requests(rq.endpoint) == 1
				if served := slices.Contains(tc.served, rq.endpoint); served != routed {
					t.Errorf("%s %s: routed %v, want %v (status %d)", rq.method, rq.path, routed, served, r.status)
				} else if !served {
					wantUnrouted(t, r, rq.method, rq.path)
				}
			}
			// The agent and deployment routes are served whatever the revision.
			s.SeedAgentJob("p", AgentJob{ID: "a"})
			wantStatus(t, call(t, s, "GET", "/v2/agent/p/job/a", ""), http.StatusOK)
		})
	}
}

// TestJobsAcrossRevisions reads jobs through the other revision's route,
// with both served and after switches.
func TestJobsAcrossRevisions(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	domainJob := startExport(t, s, `{"domain":"docs.example.com"}`)
	wantUnrouted(t, call(t, s, "POST", projectJobsPath("proj_1"), ""), "POST", projectJobsPath("proj_1"))

	s.SetAPIRevision(RevisionProject)
	projectJob := startProjectExport(t, s, "proj_1")
	clock.Advance(DefaultExportDuration)
	// A job of part B has no project: any project's route reads it, as part
	// E does, link included, which names the archive as part B does.
	for _, project := range []string{"proj_1", "proj_2"} {
		job := getProjectJob(t, s, project, domainJob)
		if job["status"] != "completed" || job["progress"] != nil || job["domain"] != nil ||
			!strings.Contains(job["bundleUrl"].(string), "/bundles/"+domainJob+"/bundle.tar.gz?") {
			t.Fatalf("part B's job through %s's route = %v", project, job)
		}
	}
	s.ForgetProject("proj_gone")
	if r := call(t, s, "GET", projectJobsPath("proj_gone")+"/"+domainJob, ""); r.status != http.StatusNotFound || r.errorMessage(t) != ProjectNotFoundMessage {
		t.Fatalf("an unknown project's route: %d %s", r.status, r.body)
	}
	// Part B's bundle call is not served: the job's link is renewed by a read.
	bundlePath := "/v1/static-export/jobs/" + domainJob + "/bundle"
	wantUnrouted(t, call(t, s, "POST", bundlePath, ""), "POST", bundlePath)

	s.SetAPIRevision(RevisionDomain)
	job := getJob(t, s, projectJob)
	if job["status"] != "completed" || job["domain"] != DefaultProjectDomain || job["progress"] != nil || job["pageCount"] != nil {
		t.Fatalf("part E's job through part B's route = %v", job)
	}
	link := bundle(t, s, projectJob)["bundleUrl"].(string)
	if !strings.Contains(link, "/bundles/"+projectJob+"/export.zip?") {
		t.Fatalf("part E's job bundled by part B's call: link %s", link)
	}
	resp, err := http.Get(link)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("download: %v %v", err, resp)
	}
	resp.Body.Close()
	path := projectJobsPath("proj_1") + "/" + projectJob
	wantUnrouted(t, call(t, s, "GET", path, ""), "GET", path)

	s.SetAPIRevision(RevisionBoth)
	other := startExport(t, s, `{"domain":"other.example.com"}`)
	both := startProjectExport(t, s, "proj_2")
	if getProjectJob(t, s, "proj_1", other)["jobId"] != other || getJob(t, s, both)["jobId"] != both {
		t.Fatal("with both revisions served, a job does not read through the other's route")
	}
	s.CompleteExportJob(both)
	bundle(t, s, both)
	getProjectJob(t, s, "proj_2", both)
	if s.BundlesGenerated(both) != 2 {
		t.Fatalf("BundlesGenerated = %d, want 2: one bundle call and one read", s.BundlesGenerated(both))
	}
	if r := call(t, s, "GET", projectJobsPath("proj_1")+"/"+both, ""); r.status != http.StatusNotFound || r.errorMessage(t) != ProjectJobNotFoundMessage {
		t.Fatalf("another project's job: %d %s", r.status, r.body)
	}
}

// TestSeparateRevisions plays the move that does not carry old jobs over:
// each revision's routes know only the jobs started through them, before
// and after a switch and with both served, and answer the others as they
// answer any unknown job.
func TestSeparateRevisions(t *testing.T) {
	s, clock := newTestServer(t, Config{SeparateRevisions: true, APIRevision: RevisionBoth})
	domainJob := startExport(t, s, `{"domain":"docs.example.com"}`)
	projectJob := startProjectExport(t, s, "proj_1")
	clock.Advance(DefaultExportDuration)
	unknown := func(method, path, want string) {
		t.Helper()
		if r := call(t, s, method, path, ""); r.status != http.StatusNotFound || r.errorMessage(t) != want {
			t.Fatalf("%s %s: %d %s, want 404 %q", method, path, r.status, r.body, want)
		}
	}
	for _, rev := range []APIRevision{RevisionBoth, RevisionProject} {
		s.SetAPIRevision(rev)
		unknown("GET", projectJobsPath("proj_1")+"/"+domainJob, ProjectJobNotFoundMessage)
		if getProjectJob(t, s, "proj_1", projectJob)["status"] != "completed" {
			t.Fatalf("%s: part E's job does not read through its own route", rev)
		}
	}
	for _, rev := range []APIRevision{RevisionBoth, RevisionDomain} {
		s.SetAPIRevision(rev)
		unknown("GET", "/v1/static-export/jobs/"+projectJob, "static export job "+projectJob+" not found")
		unknown("POST", "/v1/static-export/jobs/"+projectJob+"/bundle", "static export job "+projectJob+" not found")
		if getJob(t, s, domainJob)["status"] != "completed" || bundle(t, s, domainJob)["bundleUrl"] == "" {
			t.Fatalf("%s: part B's job does not read through its own route", rev)
		}
	}
}

func TestAPIRevisionRefusesUnknownValues(t *testing.T) {
	for _, f := range []func(){
		func() { NewHandler(Config{APIRevision: "v2"}) },
		func() { NewHandler(Config{}).SetAPIRevision("Domain") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("an unknown revision was accepted")
				}
			}()
			f()
		}()
	}
	s := NewHandler(Config{APIRevision: RevisionProject})
	s.SetAPIRevision("")
	if s.APIRevision() != RevisionDomain {
		t.Fatalf("SetAPIRevision(\"\") = %q, want domain", s.APIRevision())
	}
}
