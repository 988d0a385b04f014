package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

// revisionServer plays a server of part E (project), of parts A/B
// (domain), or both, scripted by route, and logs what it was sent.
type revisionServer struct {
	mu      sync.Mutex
	log     []string                               // "METHOD path body"
	answers map[string]func(w http.ResponseWriter) // by "METHOD path"
}

func (s *revisionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	key := r.Method + " " + r.URL.Path
	s.mu.Lock()
	s.log = append(s.log, strings.TrimSpace(key+" "+string(body)))
	answer := s.answers[key]
	s.mu.Unlock()
	if answer == nil {
		// A router's own 404: it speaks of the route, not of any job.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"statusCode":404,"message":"Cannot `+key+`","error":"Not Found"}`)
		return
	}
	answer(w)
}

func (s *revisionServer) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.log...)
}

func scripted(status int, body string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		if status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "1800")
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

const (
	projectJobID = "6520f3a1c9b1a20012ab34cd"
	projectStart = "POST /v1/static-export/p1/jobs"
	projectGet   = "GET /v1/static-export/p1/jobs/" + projectJobID
	domainStart  = "POST /v1/static-export/jobs"
	queuedJob    = `{"jobId":"` + projectJobID + `","status":"queued","createdAt":"2026-11-22T08:00:00Z","updatedAt":"2026-11-22T08:00:00Z"}`
	completedJob = `{"jobId":"` + projectJobID + `","status":"completed","createdAt":"2026-11-22T08:00:00Z","updatedAt":"2026-11-22T08:05:00Z",` +
		`"bundleUrl":"https://b.example/` + projectJobID + `/export.zip?X-Amz-Signature=abc","sizeBytes":1234,"expiresAt":"2026-11-22T09:05:00Z"}`
)

func newRevisionClient(t *testing.T, answers map[string]func(http.ResponseWriter), edit func(*client.Config)) (*client.Client, *revisionServer) {
	t.Helper()
	srv := &revisionServer{answers: answers}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	cfg := testConfig(ts.URL)
	cfg.ProjectID = "p1"
	if edit != nil {
		edit(&cfg)
	}
	return newClient(t, cfg), srv
}

func TestStartStaticExport_choosesTheRevisionTheServerSpeaks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answers  map[string]func(http.ResponseWriter)
		edit     func(*client.Config)
		want     client.ExportRevision
		requests []string
	}{
		{
			name:     "domain revision served: used, with its body",
			answers:  map[string]func(http.ResponseWriter){domainStart: scripted(202, `{"jobId":"se_1","status":"queued"}`)},
			want:     client.RevisionDomain,
			requests: []string{domainStart + ` {"domain":"docs.example.com"}`},
		},
		{
			name:     "only the project revision: the collection's 404 started nothing, so the project route is tried, without a body",
			answers:  map[string]func(http.ResponseWriter){projectStart: scripted(202, queuedJob)},
			want:     client.RevisionProject,
			requests: []string{domainStart + ` {"domain":"docs.example.com"}`, projectStart},
		},
		{
			name:     "a 405 on the domain route is not served either",
			answers:  map[string]func(http.ResponseWriter){domainStart: scripted(405, `{"error":"method not allowed"}`), projectStart: scripted(202, queuedJob)},
			want:     client.RevisionProject,
			requests: []string{domainStart + ` {"domain":"docs.example.com"}`, projectStart},
		},
		{
			name:     "pinned to the project revision: the domain route is never asked",
			answers:  map[string]func(http.ResponseWriter){domainStart: scripted(202, `{"jobId":"se_1"}`), projectStart: scripted(202, queuedJob)},
			edit:     func(c *client.Config) { c.ExportRevision = client.RevisionProject },
			want:     client.RevisionProject,
			requests: []string{projectStart},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, srv := newRevisionClient(t, tc.answers, tc.edit)
			job, err := c.StartStaticExport(context.Background(), client.StartStaticExportRequest{Domain: "docs.example.com"})
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			if job.Revision != tc.want {
				t.Errorf("revision = %q, want %q", job.Revision, tc.want)
			}
			if got := srv.requests(); strings.Join(got, "\n") != strings.Join(tc.requests, "\n") {
				t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.requests, "\n"))
			}
		})
	}
}

func TestStartStaticExport_triesNoOtherRevisionAfterAnAnswerThatMayHaveStartedOne(t *testing.T) {
	for _, status := range []int{400, 401, 403, 409, 429, 500, 502} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			c, srv := newRevisionClient(t, map[string]func(http.ResponseWriter){
				domainStart:  scripted(status, `{"error":"no"}`),
				projectStart: scripted(202, queuedJob),
			}, func(cfg *client.Config) { cfg.MaxRetries = new(0) })
			_, err := c.StartStaticExport(context.Background(), client.StartStaticExportRequest{Domain: "docs.example.com"})
			if client.StatusCode(err) != status {
				t.Fatalf("error = %v, want the %d", err, status)
			}
			for _, r := range srv.requests() {
				if strings.HasPrefix(r, projectStart) {
					t.Fatalf("the project revision was tried after a %d: %v", status, srv.requests())
				}
			}
		})
	}
}

func TestStartStaticExport_withoutAProjectIDOnlyTheDomainRevision(t *testing.T) {
	c, srv := newRevisionClient(t, map[string]func(http.ResponseWriter){}, func(cfg *client.Config) { cfg.ProjectID = "" })
	_, err := c.StartStaticExport(context.Background(), client.StartStaticExportRequest{Domain: "docs.example.com"})
	if client.Classify(err).Kind != client.KindNoSuchPath {
		t.Fatalf("error = %v (%s), want the domain route's 404", err, client.Classify(err).Kind)
	}
	if n := len(srv.requests()); n != 1 {
		t.Errorf("%d requests, want 1: %v", n, srv.requests())
	}

	c, srv = newRevisionClient(t, map[string]func(http.ResponseWriter){}, func(cfg *client.Config) {
		cfg.ProjectID, cfg.ExportRevision = "", client.RevisionProject
	})
	_, err = c.StartStaticExport(context.Background(), client.StartStaticExportRequest{Domain: "docs.example.com"})
	if !client.IsRevisionUnavailable(err) || !strings.Contains(err.Error(), "needs a project id") {
		t.Fatalf("error = %v, want one saying the project revision needs a project id", err)
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

func TestStartStaticExport_bothRoutesMissingSaysSoForEach(t *testing.T) {
	c, srv := newRevisionClient(t, map[string]func(http.ResponseWriter){
		projectStart: scripted(404, `{"error":"The project does not exist or is not in your organization."}`),
	}, nil)
	_, err := c.StartStaticExport(context.Background(), client.StartStaticExportRequest{Domain: "docs.example.com"})
	if !client.IsRevisionUnavailable(err) {
		t.Fatalf("error = %v, want a RevisionError", err)
	}
	for _, want := range []string{domainStart, projectStart, "The project does not exist"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if n := len(srv.requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestGetStaticExport_readsWhereTheJobWasFoundAndFollowsAServerThatMoved(t *testing.T) {
	answers := map[string]func(http.ResponseWriter){projectGet: scripted(200, queuedJob)}
	c, srv := newRevisionClient(t, answers, nil)
	c.KnowExport(projectJobID, client.RevisionDomain, "") // state says domain; the server moved
	job, err := c.GetStaticExport(context.Background(), projectJobID)
	if err != nil || job.Revision != client.RevisionProject {
		t.Fatalf("job = %+v, err = %v; want it found in the project revision", job, err)
	}
	if _, err := c.GetStaticExport(context.Background(), projectJobID); err != nil {
		t.Fatal(err)
	}
	want := []string{"GET /v1/static-export/jobs/" + projectJobID, projectGet, projectGet}
	if got := srv.requests(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant (the second read goes straight to where the job was found):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestGetStaticExport_goneInBothRevisionsIsNotFound(t *testing.T) {
	c, _ := newRevisionClient(t, map[string]func(http.ResponseWriter){
		projectGet: scripted(404, `{"error":"No job exists with the provided ID for this deployment."}`),
	}, nil)
	_, err := c.GetStaticExport(context.Background(), projectJobID)
	if !client.IsNotFound(err) {
		t.Fatalf("error = %v (%s), want not found: the API said so in one revision", err, client.Classify(err).Kind)
	}
}

// Once a job's revision is known, only that revision may say it is gone,
// or the place it was made at when the revision moved: the other revision
// is asked only when the known one answers that its route is not served,
// and what the other says of the job is a verdict only when the known one
// answered as no route does (a router's 404, a 405) and the other answers
// in the API's own words that it does not know the job.
func TestGetStaticExport_onlyTheJobsOwnRevisionOrItsMoveSaysItIsGone(t *testing.T) {
	domainGet := "GET /v1/static-export/jobs/" + projectJobID
	otherSaysGone := scripted(404, `{"error":"static export job `+projectJobID+` not found"}`)
	projectUnknown := scripted(404, `{"error":"The project does not exist or is not in your organization."}`)
	for _, row := range []struct {
		name       string
		own, other func(http.ResponseWriter) // the project route's and the domain route's answers; nil: a router's 404
		gone       bool                      // the job is gone, with the move
		unrouted   bool                      // neither answered as the API
		projectErr bool                      // the error unwraps to the project revision's answer
	}{
		{name: "its own route answers a router's 404, the other says it is gone", other: otherSaysGone, gone: true},
		{name: "its own route answers 405, the other says it is gone", own: scripted(405, `{"error":"Method Not Allowed"}`), other: otherSaysGone, gone: true},
		{name: "its own route answers another JSON API's 404, the other says it is gone", own: scripted(404, `{"error":"not_found"}`), other: otherSaysGone, gone: true},
		{name: "its own route answers an empty 404, the other says it is gone", own: scripted(404, ``), other: otherSaysGone, gone: true},
		{name: "its own route answers in the API's words of its project, the other says it is gone", own: projectUnknown, other: otherSaysGone, projectErr: true},
		{name: "neither answers as the API", unrouted: true, projectErr: true},
		{name: "its own route answers a router's 404, the other 405", other: scripted(405, ``), unrouted: true, projectErr: true},
		{name: "its own route answers a router's 404, the other a 401", other: scripted(401, `{"error":"authentication failed"}`)},
	} {
		t.Run(row.name, func(t *testing.T) {
			answers := map[string]func(http.ResponseWriter){}
			if row.own != nil {
				answers[projectGet] = row.own
			}
			if row.other != nil {
				answers[domainGet] = row.other
			}
			c, srv := newRevisionClient(t, answers, nil)
			c.KnowExport(projectJobID, client.RevisionProject, "")
			_, err := c.GetStaticExport(context.Background(), projectJobID)
			var revErr *client.RevisionError
			if !errors.As(err, &revErr) {
				t.Fatalf("error = %v, want a RevisionError", err)
			}
			if got := client.IsNotFound(err); got != row.gone || revErr.Moved() != row.gone {
				t.Errorf("error = %v (%s); gone: %v, Moved: %v, want %v", err, client.Classify(err).Kind, got, revErr.Moved(), row.gone)
			}
			if revErr.Unrouted() != row.unrouted || !revErr.KnownJob() {
				t.Errorf("Unrouted = %v, want %v; KnownJob = %v, want true", revErr.Unrouted(), row.unrouted, revErr.KnownJob())
			}
			if client.ProjectScoped(err) != row.projectErr {
				t.Errorf("the error unwraps to the project revision's answer: %v, want %v", client.ProjectScoped(err), row.projectErr)
			}
			if row.gone && !strings.Contains(err.Error(), "the project revision, is no longer served here") {
				t.Errorf("error %q does not say the job's revision is no longer served", err)
			}
			if row.unrouted && !strings.Contains(err.Error(), "neither revision of the static export API answers as the API does") {
				t.Errorf("error %q does not say that neither revision answers as the API", err)
			}
			if got := srv.requests(); len(got) != 2 || got[0] != projectGet || got[1] != domainGet {
				t.Errorf("requests %v, want its own route, then the other", got)
			}
		})
	}
	t.Run("its own route says it is gone", func(t *testing.T) {
		c, srv := newRevisionClient(t, map[string]func(http.ResponseWriter){
			projectGet: scripted(404, `{"error":"No job exists with the provided ID for this deployment."}`),
			domainGet:  scripted(200, queuedJob),
		}, nil)
		c.KnowExport(projectJobID, client.RevisionProject, "")
		_, err := c.GetStaticExport(context.Background(), projectJobID)
		if !client.IsNotFound(err) {
			t.Fatalf("error = %v (%s), want not found", err, client.Classify(err).Kind)
		}
		if got := srv.requests(); len(got) != 1 {
			t.Errorf("requests %v, want its own route alone", got)
		}
	})
	t.Run("a job not known: the other revision's words are no move", func(t *testing.T) {
		c, _ := newRevisionClient(t, map[string]func(http.ResponseWriter){domainGet: otherSaysGone}, nil)
		_, err := c.GetStaticExport(context.Background(), "6520f3a1c9b1a20012ab34cd")
		var revErr *client.RevisionError
		if errors.As(err, &revErr) && (revErr.Moved() || revErr.KnownJob()) {
			t.Errorf("error = %v: Moved %v, KnownJob %v; want neither", err, revErr.Moved(), revErr.KnownJob())
		}
	})
}

// The move, from the domain revision to the project revision, as part E's
// API words it: the job is gone there.
func TestGetStaticExport_domainJobGoneWithTheMove(t *testing.T) {
	c, _ := newRevisionClient(t, map[string]func(http.ResponseWriter){
		projectGet: scripted(404, `{"error":"No job exists with the provided ID for this deployment."}`),
	}, nil)
	c.KnowExport(projectJobID, client.RevisionDomain, "")
	_, err := c.GetStaticExport(context.Background(), projectJobID)
	var revErr *client.RevisionError
	if !client.IsNotFound(err) || !errors.As(err, &revErr) || !revErr.Moved() {
		t.Fatalf("error = %v (%s), want the job gone with the move", err, client.Classify(err).Kind)
	}
	for _, want := range []string{"the domain revision, is no longer served here", "the project revision, served here now, answers that it does not know the job",
		"No job exists with the provided ID for this deployment"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// A job is read in the project that holds it, as state records it, not in
// the project configured now.
func TestGetStaticExport_readsInTheRecordedProject(t *testing.T) {
	recorded := "GET /v1/static-export/p0/jobs/" + projectJobID
	c, srv := newRevisionClient(t, map[string]func(http.ResponseWriter){recorded: scripted(200, queuedJob)}, nil) // configured: p1
	c.KnowExport(projectJobID, client.RevisionProject, "p0")
	if _, err := c.GetStaticExport(context.Background(), projectJobID); err != nil {
		t.Fatal(err)
	}
	if got := srv.requests(); len(got) != 1 || got[0] != recorded {
		t.Errorf("requests %v, want %s", got, recorded)
	}
}

func TestCreateStaticExportLink_projectRevisionReadsTheJob(t *testing.T) {
	answers := map[string]func(http.ResponseWriter){projectGet: scripted(200, queuedJob)}
	c, srv := newRevisionClient(t, answers, func(cfg *client.Config) { cfg.ExportRevision = client.RevisionProject })
	_, err := c.CreateStaticExportLink(context.Background(), projectJobID)
	var notReady *client.LinkNotReadyError
	if !errors.As(err, &notReady) || !client.IsLinkNotReady(err) {
		t.Fatalf("error = %v, want a LinkNotReadyError for a queued job", err)
	}
	srv.mu.Lock()
	srv.answers[projectGet] = scripted(200, completedJob)
	srv.mu.Unlock()
	link, err := c.CreateStaticExportLink(context.Background(), projectJobID)
	if err != nil {
		t.Fatal(err)
	}
	if link.JobID != projectJobID || !strings.HasSuffix(strings.SplitN(link.BundleURL, "?", 2)[0], "export.zip") ||
		link.SizeBytes == nil || *link.SizeBytes != 1234 || link.ExpiresAt == nil || !link.ExpiresAt.Equal(time.Date(2026, 11, 22, 9, 5, 0, 0, time.UTC)) {
		t.Errorf("link = %+v", link)
	}
	for _, r := range srv.requests() {
		if strings.HasPrefix(r, "POST") {
			t.Errorf("the project revision has no bundle call, but %q was sent", r)
		}
	}
}

func TestStartStaticExport_aQuotaOf429IsNeitherRetriedNorHoldsOtherCalls(t *testing.T) {
	c, srv := newRevisionClient(t, map[string]func(http.ResponseWriter){
		projectStart: scripted(429, `{"error":"Too many export jobs started; try again later."}`),
		projectGet:   scripted(200, queuedJob),
	}, func(cfg *client.Config) { cfg.ExportRevision = client.RevisionProject; cfg.MaxRetryAfter = time.Hour })
	started := time.Now()
	_, err := c.StartStaticExport(context.Background(), client.StartStaticExportRequest{})
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.RetryAfter != 30*time.Minute {
		t.Fatalf("error = %v, want the 429 with its 30-minute Retry-After", err)
	}
	if _, err := c.GetStaticExport(context.Background(), projectJobID); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(started); elapsed > 5*time.Second {
		t.Errorf("took %s: the quota's 429 held the client", elapsed)
	}
	if got := srv.requests(); len(got) != 2 {
		t.Errorf("requests %v, want one start (not retried) and one read", got)
	}
}
