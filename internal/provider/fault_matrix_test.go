package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// The fault matrix: every way the API can misbehave that the contract leaves
// open or documents as an error, played by the mock against a
// real Terraform apply. A row either succeeds with exactly one export started,
// or fails with a message that names the endpoint, the HTTP status, the API's
// message, the job and what to do, and never dumps a proxy's page, panics or
// outlives its timeout.

const faultDomain = "docs.example.com"

// faultReadOnlyKey is a key with the read scope only; no error may show it.
const faultReadOnlyKey = "dsa_monitor_r34d0nly9c8b7a6f"

// faultRow is one row of the matrix.
type faultRow struct {
	name string
	// export scripts the export jobs of faultDomain; zero keeps acctest.NewMock's quick job.
	export mockapi.ExportBehavior
	// providerExtra goes inside the provider block.
	providerExtra string
	// createTimeout is the resource's timeouts.create (default 20s, so that
	// no row can hang for the default hour).
	createTimeout string
	// inject queues faults just before the apply.
	inject func(mock *mockapi.Server)
	// during runs alongside the apply and is cancelled when it ends; it notes
	// the job's id in job before doing anything that would make it vanish.
	during func(ctx context.Context, mock *mockapi.Server, job *faultJobNote)
	// config replaces the default configuration (a resource exporting faultDomain).
	config func(t *testing.T, mock *mockapi.Server) string
	// wantErr lists what the error must say, whitespace-normalised, with
	// {job} standing for the export job's id. Empty: the apply must succeed.
	wantErr []string
	// forbid lists what the error must not say, beyond the common list.
	forbid []string
	// stateChecks and check run after a successful apply.
	stateChecks []statecheck.StateCheck
	check       func(mock *mockapi.Server) error
	// after runs once Terraform is done, for either outcome.
	after func(t *testing.T, mock *mockapi.Server)
	// spareFaults marks rows that queue more faults than a run consumes.
	spareFaults bool
}

// Text that no error may contain: signs of a crash, of a hung plugin, of a
// state Terraform refuses (unknown values left after apply), or of a proxy's
// page pasted into the message.
var faultForbidden = []string{"panic", "goroutine ", "Plugin did not respond", providerBugText, "<html", "<body", "<!DOCTYPE"}

// providerBugText is how Terraform introduces a result that breaks the
// protocol, such as a state with unknown values after a failed apply.
const providerBugText = "bug in the provider"

const proxyErrorPage = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx/1.25.3 upstream-proxy-7f3a</center></body></html>
`

func faultWithBody(status int, body string) mockapi.Fault {
	return mockapi.Fault{Status: status, Body: body}
}

func faultRepeated(f mockapi.Fault, n int) []mockapi.Fault {
	out := make([]mockapi.Fault, n)
	for i := range out {
		out[i] = f
	}
	return out
}

// faultAfterFirstPoll runs action once the provider has polled the job at least once.
func faultAfterFirstPoll(action func(mock *mockapi.Server)) func(context.Context, *mockapi.Server, *faultJobNote) {
	return func(ctx context.Context, mock *mockapi.Server, job *faultJobNote) {
		for mock.Requests(mockapi.EndpointGetExport) < 1 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
		job.set(faultJobID(mock))
		action(mock)
	}
}

// faultJobNote keeps the export job's id once seen: some rows make the job
// vanish from the API before the error is checked.
type faultJobNote struct {
	mu sync.Mutex
	id string
}

func (n *faultJobNote) set(id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.id == "" {
		n.id = id
	}
}

func (n *faultJobNote) get() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.id
}

func faultJobID(mock *mockapi.Server) string {
	ids := mock.ExportJobIDs(faultDomain)
	if len(ids) == 0 {
		return ""
	}
	return ids[len(ids)-1]
}

func faultExpectRequests(mock *mockapi.Server, ep mockapi.Endpoint, atLeast int) error {
	if n := mock.Requests(ep); n < atLeast {
		return fmt.Errorf("%s was requested %d times; want at least %d (the fault was not retried)", ep, n, atLeast)
	}
	return nil
}

func faultExactRequests(t *testing.T, mock *mockapi.Server, ep mockapi.Endpoint, want int) {
	t.Helper()
	if n := mock.Requests(ep); n != want {
		t.Errorf("%s was requested %d times; want %d", ep, n, want)
	}
}

// faultElapsedAtLeast checks that a Retry-After was honoured: the apply cannot
// have finished sooner than the server asked to wait.
func faultElapsedAtLeast(since *time.Time, d time.Duration) error {
	if got := time.Since(*since); got < d {
		return fmt.Errorf("the apply finished %s after the 429 was queued; Retry-After asked for at least %s", got.Round(time.Millisecond), d)
	}
	return nil
}

func faultRows() []faultRow {
	var rows []faultRow

	// Transient answers to the status poll: retried by the client, invisible to the user.
	for _, status := range []int{500, 502, 503, 504} {
		rows = append(rows, faultRow{
			name:   fmt.Sprintf("GET %d is retried", status),
			inject: func(m *mockapi.Server) { m.InjectFault(mockapi.EndpointGetExport, faultWithBody(status, "")) },
			check:  func(m *mockapi.Server) error { return faultExpectRequests(m, mockapi.EndpointGetExport, 2) },
		})
	}

	var queuedAt time.Time
	rows = append(rows,
		faultRow{
			name: "start 500 after the server acted is not repeated",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointStartExport, mockapi.Fault{Status: 500, Body: `{"error":"internal error while queueing the export"}`, AfterHandling: true})
			},
			wantErr: []string{
				"Cannot start the static export", "POST /v1/static-export/jobs", "HTTP 500", "internal error while queueing the export",
				"may have started the export", "not repeated", "terraform apply again",
			},
			forbid: []string{"persisted through retries"},
			after:  func(t *testing.T, m *mockapi.Server) { faultExactRequests(t, m, mockapi.EndpointStartExport, 1) },
		},
		faultRow{
			// A gateway passed the start on, then answered 503 with Retry-After.
			name: "start 503 with Retry-After after the API acted is not repeated",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointStartExport, mockapi.Fault{Status: 503, Body: `{"error":"upstream timed out"}`, Header: map[string]string{"Retry-After": "1"}, AfterHandling: true})
			},
			wantErr: []string{
				"Cannot start the static export", "POST /v1/static-export/jobs", "HTTP 503", "(Retry-After 1s)", "upstream timed out",
				"may have started the export", "gateway's 502, 503 or 504", "not repeated", "terraform apply again",
			},
			forbid: []string{"no export was started"},
			after: func(t *testing.T, m *mockapi.Server) {
				faultExactRequests(t, m, mockapi.EndpointStartExport, 1)
				if n := m.ExportsStarted(faultDomain); n != 1 {
					t.Errorf("%d exports started, want the 1 the API made", n)
				}
			},
		},
		faultRow{
			name: "start 429 with Retry-After in seconds is retried after the wait",
			inject: func(m *mockapi.Server) {
				queuedAt = time.Now()
				m.InjectFault(mockapi.EndpointStartExport, mockapi.Fault{Status: 429, Body: `{"error":"too many exports"}`, Header: map[string]string{"Retry-After": "3"}})
			},
			check: func(*mockapi.Server) error { return faultElapsedAtLeast(&queuedAt, 3*time.Second) },
			after: func(t *testing.T, m *mockapi.Server) { faultExactRequests(t, m, mockapi.EndpointStartExport, 2) },
		},
	)

	var dateQueuedAt time.Time
	rows = append(rows,
		faultRow{
			name: "GET 429 with Retry-After as an HTTP date is retried after the date",
			inject: func(m *mockapi.Server) {
				dateQueuedAt = time.Now()
				until := dateQueuedAt.Add(5 * time.Second).UTC().Format(http.TimeFormat)
				m.InjectFault(mockapi.EndpointGetExport, mockapi.Fault{Status: 429, Body: `{"error":"slow down"}`, Header: map[string]string{"Retry-After": until}})
			},
			// The date has whole seconds, so up to one second of it is lost.
			check: func(m *mockapi.Server) error {
				if err := faultElapsedAtLeast(&dateQueuedAt, 4*time.Second); err != nil {
					return err
				}
				return faultExpectRequests(m, mockapi.EndpointGetExport, 2)
			},
		},
		faultRow{
			name: "GET 429 with a malformed Retry-After is retried with backoff",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointGetExport, mockapi.Fault{Status: 429, Body: `{"error":"slow down"}`, Header: map[string]string{"Retry-After": "in a little while"}})
			},
			check: func(m *mockapi.Server) error { return faultExpectRequests(m, mockapi.EndpointGetExport, 2) },
		},
		faultRow{
			// Go's transport may repeat a GET on a reused keep-alive connection
			// by itself; either way the apply must not notice.
			name: "GET connection reset before the answer",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointGetExport, mockapi.Fault{ResetConnection: true})
			},
			check: func(m *mockapi.Server) error { return faultExpectRequests(m, mockapi.EndpointGetExport, 2) },
		},
		faultRow{
			// A Content-Length longer than the body: the connection closes mid-body.
			name: "GET connection lost mid-body",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointGetExport, mockapi.Fault{Status: 200, Body: `{"status":"running","progress":12.5,"pageC`, Header: map[string]string{"Content-Length": "4096", "Content-Type": "application/json"}})
			},
			check: func(m *mockapi.Server) error { return faultExpectRequests(m, mockapi.EndpointGetExport, 2) },
		},
		faultRow{
			name: "start connection reset after the server acted is not repeated",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointStartExport, mockapi.Fault{ResetConnection: true, AfterHandling: true})
			},
			wantErr: []string{"Cannot start the static export", "POST /v1/static-export/jobs", "request failed", "may have started the export", "not repeated", "terraform apply again"},
			after:   func(t *testing.T, m *mockapi.Server) { faultExactRequests(t, m, mockapi.EndpointStartExport, 1) },
		},
		faultRow{
			// The client's per-request timeout is 30s and not configurable, so
			// the wait's own timeout is what ends a stuck request.
			name:          "GET slower than the create timeout",
			createTimeout: "2s",
			inject:        func(m *mockapi.Server) { m.InjectFault(mockapi.EndpointGetExport, mockapi.Fault{Delay: time.Minute}) },
			wantErr: []string{
				"Static export did not complete", "waiting for export job {job} timed out after", "limit timeouts.create = 2s",
				"id is saved in state", "terraform apply again", "create =",
			},
		},
		faultRow{
			name:          "GET 502 HTML page from a proxy, persisting",
			providerExtra: "max_retries = 1",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointGetExport, faultRepeated(mockapi.Fault{Status: 502, Body: proxyErrorPage, Header: map[string]string{"Content-Type": "text/html; charset=utf-8"}}, 12)...)
			},
			wantErr: []string{
				"reading export job {job} failed 5 times in a row", "GET /v1/static-export/jobs/{job}", "HTTP 502 Bad Gateway",
				"not an API error (text/html", "try again later",
			},
			forbid: []string{"nginx", "upstream-proxy-7f3a", "<title>", "<h1>"},
			after: func(t *testing.T, m *mockapi.Server) {
				if n := m.Requests(mockapi.EndpointGetExport); n < 10 {
					t.Errorf("GET was requested %d times; want 10 (5 polls of 2 attempts)", n)
				}
			},
		},
		faultRow{
			name:   "GET empty 200",
			inject: func(m *mockapi.Server) { m.InjectFault(mockapi.EndpointGetExport, mockapi.Fault{Status: 200}) },
			check:  func(m *mockapi.Server) error { return faultExpectRequests(m, mockapi.EndpointGetExport, 2) },
		},
		faultRow{
			name: "start empty 200 after the server acted is not repeated",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointStartExport, mockapi.Fault{Status: 200, AfterHandling: true})
			},
			wantErr: []string{"Cannot start the static export", "POST /v1/static-export/jobs", "HTTP 200", "empty body", "may have started the export", "terraform apply again"},
			after:   func(t *testing.T, m *mockapi.Server) { faultExactRequests(t, m, mockapi.EndpointStartExport, 1) },
		},
		faultRow{
			name: "GET truncated JSON",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointGetExport, faultWithBody(200, `{"status":"runn`))
			},
			check: func(m *mockapi.Server) error { return faultExpectRequests(m, mockapi.EndpointGetExport, 2) },
		},
		faultRow{
			name: "GET body above the 1 MiB cap",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointGetExport, faultWithBody(200, `{"status":"running","padding":"`+strings.Repeat("x", 1<<20)+`"}`))
			},
			check: func(m *mockapi.Server) error { return faultExpectRequests(m, mockapi.EndpointGetExport, 2) },
		},
		faultRow{
			name: "GET unknown status is not final",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointGetExport, faultWithBody(200, `{"status":"paused_for_maintenance","progress":40,"pageCount":17}`))
			},
			check: func(m *mockapi.Server) error { return faultExpectRequests(m, mockapi.EndpointGetExport, 2) },
		},
		faultRow{
			name:   "GET with every field missing",
			inject: func(m *mockapi.Server) { m.InjectFault(mockapi.EndpointGetExport, faultWithBody(200, `{}`)) },
			check:  func(m *mockapi.Server) error { return faultExpectRequests(m, mockapi.EndpointGetExport, 2) },
		},
		faultRow{
			name: "bundle answer without size or expiry",
			// The link points at a bucket no test may reach: the row is about
			// reading the answer, so the archive is not downloaded.
			config: func(_ *testing.T, m *mockapi.Server) string {
				return strings.Replace(faultConfig(m, "", "20s"), "  timeouts {", "  verify_archive = false\n  timeouts {", 1)
			},
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointBundle, mockapi.Fault{Status: 200, AfterHandling: true, Body: `{"bundleUrl":"https://exports.s3.amazonaws.com/site/bundle.tar.gz"}`})
			},
			stateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url"), knownvalue.StringExact("https://exports.s3.amazonaws.com/site/bundle.tar.gz")),
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_expires_at"), knownvalue.Null()),
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_size_bytes"), knownvalue.Null()),
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("ready_for_renewal"), knownvalue.Bool(false)),
			},
		},
		faultRow{
			// The job is reported completed before the API can bundle it, so
			// the bundle endpoint really answers 409 "has not finished" first.
			name:   "bundle 409 right after completed",
			export: mockapi.ExportBehavior{Duration: 3 * time.Second},
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointGetExport, faultWithBody(200, `{"status":"completed","progress":100,"pageCount":42}`))
			},
			check: func(m *mockapi.Server) error {
				if err := faultExpectRequests(m, mockapi.EndpointBundle, 2); err != nil {
					return err
				}
				if n := m.BundlesGenerated(faultJobID(m)); n != 1 {
					return fmt.Errorf("bundles generated: %d, want 1", n)
				}
				return nil
			},
		},
		faultRow{
			name:          "bundle 409 persisting past the create timeout",
			createTimeout: "3s",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointBundle, faultRepeated(faultWithBody(409, `{"error":"bundle is being prepared"}`), 200)...)
			},
			wantErr: []string{
				"Cannot generate the export's bundle", "waiting for the bundle of export job {job} timed out", "limit timeouts.create = 3s",
				"POST /v1/static-export/jobs/{job}/bundle", "HTTP 409", "bundle is being prepared", "terraform apply again",
			},
		},
	)

	for _, tc := range []struct {
		name     string
		progress string
		want     float64
	}{
		{"progress 250 is clamped to 100", "250", 100},
		{"progress -5 is clamped to 0", "-5", 0},
	} {
		rows = append(rows, faultRow{
			name: tc.name,
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointGetExport, faultWithBody(200, `{"status":"completed","progress":`+tc.progress+`,"pageCount":7}`))
			},
			stateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("progress"), knownvalue.Float64Exact(tc.want)),
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("page_count"), knownvalue.Int64Exact(7)),
			},
		})
	}

	rows = append(rows,
		faultRow{
			name: "data source progress 250 stays within 0..100",
			config: func(t *testing.T, m *mockapi.Server) string {
				return exportDataConfig(m, startExportOutsideTerraform(t, m, faultDomain))
			},
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointGetExport, faultRepeated(faultWithBody(200, `{"status":"running","progress":250,"pageCount":3}`), 20)...)
			},
			spareFaults: true,
			stateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(exportDataAddress, tfjsonpath.New("progress"), knownvalue.Float64Exact(100)),
			},
		},
		faultRow{
			name:   "job vanishes (404) while being awaited",
			export: mockapi.ExportBehavior{Duration: 10 * time.Second},
			during: faultAfterFirstPoll(func(m *mockapi.Server) { m.DeleteExportJob(faultJobID(m)) }),
			wantErr: []string{
				"The API says there is no export job {job}", "It disappeared while being awaited", "GET /v1/static-export/jobs/{job}", "HTTP 404",
				"static export job {job} not found", "terraform apply again",
			},
		},
		faultRow{
			name:   "key expires in the middle of the apply (401)",
			export: mockapi.ExportBehavior{Duration: 10 * time.Second},
			during: faultAfterFirstPoll(func(m *mockapi.Server) { m.SetAPIKey("dsa_rotated_0f1e2d3c4b5a6978") }),
			wantErr: []string{
				"reading export job {job} failed", "GET /v1/static-export/jobs/{job}", "HTTP 401 Unauthorized",
				"missing or invalid API key", "generate a new admin API key",
			},
			forbid: []string{"dsa_rotated_0f1e2d3c4b5a6978"},
		},
		faultRow{
			name: "start 403: static export not enabled",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointStartExport, faultWithBody(403, `{"error":"static export is not enabled for this organization"}`))
			},
			wantErr: []string{
				"Cannot start the static export", "POST /v1/static-export/jobs", "HTTP 403 Forbidden",
				"static export is not enabled for this organization", "Enterprise plan", "scope",
			},
			after: func(t *testing.T, m *mockapi.Server) { faultExactRequests(t, m, mockapi.EndpointStartExport, 1) },
		},
		faultRow{
			// Not a queued fault: the mock's own scope check, as with a key
			// generated for monitoring.
			name: "start 403: read-only key",
			config: func(_ *testing.T, m *mockapi.Server) string {
				m.AddReadOnlyAPIKey(faultReadOnlyKey)
				return strings.Replace(faultConfig(m, "", "20s"), fmt.Sprintf("%q", m.APIKey), fmt.Sprintf("%q", faultReadOnlyKey), 1)
			},
			wantErr: []string{
				"Cannot start the static export", "POST /v1/static-export/jobs", "HTTP 403 Forbidden",
				"the API key has the read scope only", "needs the write scope", "check that the key has the needed scope",
			},
			forbid: []string{faultReadOnlyKey, "r34d0nly"},
			after: func(t *testing.T, m *mockapi.Server) {
				faultExactRequests(t, m, mockapi.EndpointStartExport, 1)
				if n := m.ExportsStarted(faultDomain); n != 0 {
					t.Errorf("the read-only key started %d exports", n)
				}
			},
		},
		faultRow{
			name: "GET 403: caller outside the key's allowlist",
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointGetExport, faultWithBody(403, `{"error":"caller IP 203.0.113.9 is not in the key's allowlist"}`))
			},
			wantErr: []string{
				"reading export job {job} failed", "GET /v1/static-export/jobs/{job}", "HTTP 403 Forbidden",
				"caller IP 203.0.113.9 is not in the key's allowlist", "IP address is in the key's allowlist",
			},
		},
	)
	return append(rows, deploymentFaultRows()...)
}

// deploymentFaultConfig deploys proj_1 and exports the deployed commit: a
// row that succeeds starts one export, after the deployment.
func deploymentFaultConfig(m *mockapi.Server) string {
	return deploymentConfig(m, "v1", "  timeouts {\n    create = \"20s\"\n  }") + `
resource "docsadmin_static_export" "site" {
  domain   = "` + faultDomain + `"
  triggers = { commit = docsadmin_deployment.docs.commit_sha }
}
`
}

// deploymentFaultRows play part D's endpoints misbehaving.
func deploymentFaultRows() []faultRow {
	config := func(_ *testing.T, m *mockapi.Server) string { return deploymentFaultConfig(m) }
	deployed := []statecheck.StateCheck{
		statecheck.ExpectKnownValue(deploymentAddress, tfjsonpath.New("status"), knownvalue.StringExact("success")),
		statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
	}
	return []faultRow{
		{
			name:   "deployment update 429 with Retry-After is retried",
			config: config,
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointDeploy, mockapi.Fault{Status: 429, Body: `{"error":"too many deployments"}`, Header: map[string]string{"Retry-After": "1"}})
			},
			stateChecks: deployed,
			after: func(t *testing.T, m *mockapi.Server) {
				faultExactRequests(t, m, mockapi.EndpointDeploy, 2)
				if ids := m.DeploymentIDs(deployProject); len(ids) != 1 {
					t.Errorf("deployments queued: %v, want one", ids)
				}
			},
		},
		{
			name:   "deployment status 502 and reset are retried",
			config: config,
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointDeploymentStatus, faultWithBody(502, ""), mockapi.Fault{ResetConnection: true})
			},
			stateChecks: deployed,
			check:       func(m *mockapi.Server) error { return faultExpectRequests(m, mockapi.EndpointDeploymentStatus, 3) },
		},
		{
			name:   "deployment update 500 after the server acted is not repeated",
			config: config,
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointDeploy, mockapi.Fault{Status: 500, Body: `{"error":"internal error while queueing the update"}`, AfterHandling: true})
			},
			wantErr: []string{
				"Cannot deploy the project", "POST /v1/project/update/proj_1", "HTTP 500", "internal error while queueing the update",
				"may have queued it", "not repeated", "terraform apply again",
			},
			forbid: []string{"persisted through retries"},
			after: func(t *testing.T, m *mockapi.Server) {
				faultExactRequests(t, m, mockapi.EndpointDeploy, 1)
				if n := m.ExportsStarted(faultDomain); n != 0 {
					t.Errorf("%d exports started although the deployment was not followed", n)
				}
			},
		},
		{
			name: "preview 403: no preview entitlement",
			config: func(_ *testing.T, m *mockapi.Server) string {
				return acctest.BlockConfig(m, `project_id = "proj_1"`, `resource "docsadmin_preview_deployment" "nav"`, `  branch = "feature/new-nav"`)
			},
			inject: func(m *mockapi.Server) {
				m.InjectFault(mockapi.EndpointPreview, faultWithBody(403, `{"error":"`+mockapi.PreviewNotAvailableMessage+`"}`))
			},
			wantErr: []string{
				"Cannot build the preview deployment", "POST /v1/project/preview/proj_1", "HTTP 403 Forbidden",
				mockapi.PreviewNotAvailableMessage, "preview deployments entitlement",
			},
			after: func(t *testing.T, m *mockapi.Server) { faultExactRequests(t, m, mockapi.EndpointPreview, 1) },
		},
	}
}

func TestFaultMatrix(t *testing.T) {
	// A row's bound on how long a failing apply takes leaves room for the
	// -parallel tests that run beside it.
	t.Parallel()
	acctest.RunSubtests(t, faultRows(), func(row faultRow) string { return row.name }, runFaultRow)
}

func runFaultRow(t *testing.T, row faultRow) {
	mock := acctest.NewMock(t, mockapi.Config{DeploymentDuration: 400 * time.Millisecond})
	apiKey := mock.APIKey
	if row.export != (mockapi.ExportBehavior{}) {
		mock.SetExportBehavior(faultDomain, row.export)
	}
	if row.createTimeout == "" {
		row.createTimeout = "20s"
	}
	config := faultConfig(mock, row.providerExtra, row.createTimeout)
	if row.config != nil {
		config = row.config(t, mock)
	}
	limit, err := time.ParseDuration(row.createTimeout)
	if err != nil {
		t.Fatal(err)
	}

	ctx, stopDuring := context.WithCancel(context.Background())
	defer stopDuring()
	var duringDone sync.WaitGroup
	job := &faultJobNote{}
	failure := &stepFailure{step: 1}
	var started time.Time
	var applyTook time.Duration

	checks := []resource.TestCheckFunc{
		acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted(faultDomain) }),
		func(*terraform.State) error {
			if row.spareFaults {
				return nil
			}
			for _, ep := range []mockapi.Endpoint{mockapi.EndpointStartExport, mockapi.EndpointGetExport, mockapi.EndpointBundle,
				mockapi.EndpointDeploy, mockapi.EndpointDeploymentStatus, mockapi.EndpointPreview} {
				if n := mock.PendingFaults(ep); n != 0 {
					return fmt.Errorf("%d faults queued for %s were never served: the row did not test what it says", n, ep)
				}
			}
			return nil
		},
	}
	if row.check != nil {
		checks = append(checks, func(*terraform.State) error { return row.check(mock) })
	}
	stateChecks := row.stateChecks
	if row.config == nil {
		stateChecks = append([]statecheck.StateCheck{
			statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
			statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url"), knownvalue.NotNull()),
		}, stateChecks...)
	}

	first := resource.TestStep{
		PreConfig: func() {
			failure.enter(1)()
			if row.inject != nil {
				row.inject(mock)
			}
			if row.during != nil {
				duringDone.Add(1)
				go func() {
					defer duringDone.Done()
					row.during(ctx, mock, job)
				}()
			}
			started = time.Now()
		},
		Config: config,
	}
	if len(row.wantErr) == 0 {
		first.Check = resource.ComposeAggregateTestCheckFunc(checks...)
		first.ConfigStateChecks = stateChecks
	}
	// Whatever the first step left behind (a tainted resource, a rotated key,
	// unserved faults) is put right, then the resource is destroyed.
	cleanup := resource.TestStep{
		PreConfig: func() {
			applyTook = time.Since(started)
			stopDuring()
			duringDone.Wait()
			mock.ClearFaults()
			mock.SetAPIKey(apiKey)
			failure.enter(2)()
		},
		Config: acctest.ProviderConfig(mock, ""),
	}

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		ErrorCheck:               failure.capture,
		Steps:                    []resource.TestStep{first, cleanup},
	})
	t.Logf("apply took %s", applyTook.Round(time.Millisecond))

	// A failing row may not outlast its timeout by more than Terraform's own overhead.
	if len(row.wantErr) > 0 && applyTook > limit+15*time.Second {
		t.Errorf("the failing apply took %s; its create timeout is %s", applyTook, limit)
	}
	if row.after != nil {
		row.after(t, mock)
	}
	if len(row.wantErr) == 0 {
		if failure.text != "" {
			t.Errorf("the apply was expected to succeed; it failed with:\n%s", failure.text)
		}
		return
	}
	job.set(faultJobID(mock))
	jobID := job.get()
	want := make([]string, len(row.wantErr))
	for i, w := range row.wantErr {
		if strings.Contains(w, "{job}") && jobID == "" {
			t.Fatalf("the row expects a job id in the error, but the API has no job for %s", faultDomain)
		}
		want[i] = strings.ReplaceAll(w, "{job}", jobID)
	}
	forbid := append(append([]string{apiKey}, faultForbidden...), row.forbid...)
	failure.expect(t, want, forbid)
}

func faultConfig(mock *mockapi.Server, providerExtra, createTimeout string) string {
	return acctest.ProviderConfig(mock, providerExtra) + fmt.Sprintf(`
resource "docsadmin_static_export" "site" {
  domain = %q
  timeouts {
    create = %q
  }
}
`, faultDomain, createTimeout)
}

// stepFailure records the error of the step expected to fail, so that its
// whole text can be checked for what it must and must not contain. Errors of
// any other step fail the test as usual. Each step's PreConfig calls enter.
type stepFailure struct {
	mu      sync.Mutex
	step    int // the step whose error is recorded, counted from 1
	current int
	text    string
}

// enter returns a PreConfig function marking the start of step n.
func (f *stepFailure) enter(n int) func() {
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.current = n
	}
}

func (f *stepFailure) capture(err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.current != f.step {
		return err
	}
	f.text += err.Error()
	return nil
}

// expect checks the recorded error, with Terraform's line wrapping undone.
func (f *stepFailure) expect(t *testing.T, want, forbid []string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.text == "" {
		t.Errorf("step %d was expected to fail and did not", f.step)
		return
	}
	flat := acctest.FlattenWhitespace(f.text)
	var missing, found []string
	for _, w := range want {
		if !strings.Contains(flat, acctest.FlattenWhitespace(w)) {
			missing = append(missing, w)
		}
	}
	for _, w := range forbid {
		if w != "" && strings.Contains(flat, w) {
			found = append(found, w)
		}
	}
	t.Logf("error as the user sees it: %s", flat)
	if len(missing) > 0 || len(found) > 0 {
		t.Errorf("the error does not say what it should.\nmissing: %q\nmust not contain: %q\nerror:\n%s", missing, found, f.text)
	}
}
