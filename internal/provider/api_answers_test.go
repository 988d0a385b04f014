package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// What the API answers is judged before it is believed: a base URL that
// ends in an API version is refused at plan, a missing route never removes
// a resource from state, a deployment that ended with a status nobody
// documents ends the wait at once, and a wait that gives up after failed
// polls says why they failed.

func TestBaseURLVersionSuffix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, use string }{
		{"https://api.example.com/v1", "https://api.example.com"},
		{"https://api.example.com/v2/", "https://api.example.com"},
		{"https://api.example.com/V1//", "https://api.example.com"},
		{"https://gw.example.com/docsadmin/v1", "https://gw.example.com/docsadmin"},
		{"http://127.0.0.1:8080/v12", "http://127.0.0.1:8080"},
	} {
		problem, _ := baseURLProblem(tc.url)
		if !strings.Contains(problem, "ends in the API version") || !strings.Contains(problem, fmt.Sprintf("Use %q", tc.use)) {
			t.Errorf("baseURLProblem(%q) = %q, want it refused, naming %q", tc.url, problem, tc.use)
		}
	}
	for _, ok := range []string{"https://gw.example.com/docsadmin", "https://gw.example.com/docsadmin/", "https://api.example.com/v1beta", "https://api.example.com/v1/docs", "https://api.example.com/version1"} {
		if problem, _ := baseURLProblem(ok); problem != "" {
			t.Errorf("baseURLProblem(%q) = %q, want it accepted", ok, problem)
		}
	}
}

// A base URL that ends in /v1 or /v2 is refused at plan, from the
// attribute and from the environment alike, naming the value to use; a
// reverse proxy's prefix works.
func TestProvider_baseURLWithAPIVersionRefusedAtPlan(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t, mockapi.Config{})
	for _, tc := range []struct {
		name, baseURL, env string
	}{
		{"attribute /v1", mock.URL + "/v1", ""},
		{"attribute /v2/", mock.URL + "/v2/", ""},
		{"environment /v1", "", mock.URL + "/v1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setting := ""
			if tc.baseURL != "" {
				setting = fmt.Sprintf("base_url = %q", tc.baseURL)
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{Getenv: environment(map[string]string{envBaseURL: tc.env})}),
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf("provider \"docsadmin\" {\n  %s\n  api_key = %q\n}\n", setting, mock.APIKey) +
						"resource \"docsadmin_static_export\" \"site\" {\n  domain = \"docs.example.com\"\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`ends\s+in\s+the\s+API\s+version\s+/v[12][\s\S]*Use\s+"` + regexp.QuoteMeta(mock.URL) + `"`),
				}},
			})
		})
	}
	if n := mock.TotalRequests(); n != 0 {
		t.Errorf("%d requests reached the API from a plan that was refused", n)
	}

	t.Run("a reverse proxy's prefix", func(t *testing.T) {
		proxy := httptest.NewServer(http.StripPrefix("/docsadmin", mock))
		t.Cleanup(proxy.Close)
		config := fmt.Sprintf("provider \"docsadmin\" {\n  base_url = %q\n  api_key  = %q\n}\n", proxy.URL+"/docsadmin/", mock.APIKey) +
			"resource \"docsadmin_static_export\" \"site\" {\n  domain = \"docs.example.com\"\n}\n"
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testFactories(Options{}),
			Steps: []resource.TestStep{
				{Config: config, Check: acctest.ExpectCount("exports started through the proxy", 1, func() int { return mock.ExportsStarted("docs.example.com") })},
				{Config: config, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			},
		})
	})
}

// A refresh never drops a resource for a missing route: a base URL whose
// path the server does not have is another place, where the object is not
// read (it stays, with a warning), and a proxy's HTML 404 page or another
// JSON API's 404 that does not name the object fails the refresh and keeps
// it. Once the URL is right the plan is empty, and nothing was started
// twice.
func TestMissingRouteKeepsState(t *testing.T) {
	t.Parallel()
	rows := []struct {
		name    string
		address string
		config  func(*mockapi.Server) string
		read    mockapi.Endpoint
		started func(*mockapi.Server) int
	}{
		{"export", acctest.ExportAddress, func(m *mockapi.Server) string { return acctest.ExportConfig(m, `domain = "docs.example.com"`) },
			mockapi.EndpointGetExport, func(m *mockapi.Server) int { return m.ExportsStarted("docs.example.com") }},
		{"deployment", deploymentAddress, func(m *mockapi.Server) string { return deploymentConfig(m, "a", "") },
			mockapi.EndpointDeploymentStatus, func(m *mockapi.Server) int { return len(m.DeploymentIDs(deployProject)) }},
		{"agent job", agentJobResourceAddress, func(m *mockapi.Server) string { return agentJobResourceConfig(m, "1.0", "") },
			mockapi.EndpointGetAgentJob, func(m *mockapi.Server) int { return len(m.AgentJobsCreated("proj_1")) }},
		{"preview", previewAddress, func(m *mockapi.Server) string {
			m.PublishCommit(deployProject, previewBranch, commitV1)
			return previewConfig(m, "a", "")
		}, mockapi.EndpointDeploymentStatus, func(m *mockapi.Server) int { return len(m.DeploymentIDs(deployProject)) }},
	}
	acctest.RunSubtests(t, rows, func(r struct {
		name    string
		address string
		config  func(*mockapi.Server) string
		read    mockapi.Endpoint
		started func(*mockapi.Server) int
	}) string {
		return r.name
	}, func(t *testing.T, row struct {
		name    string
		address string
		config  func(*mockapi.Server) string
		read    mockapi.Endpoint
		started func(*mockapi.Server) int
	}) {
		mock := newDeployMock(t, mockapi.Config{})
		config := row.config(mock)
		wrongPath := strings.Replace(config, fmt.Sprintf("%q", mock.URL), fmt.Sprintf("%q", mock.URL+"/docsadmin"), 1)
		if wrongPath == config {
			t.Fatal("the configuration does not name the mock's URL")
		}
		keep := regexp.MustCompile(`HTTP\s+404[\s\S]*no\s+such\s+route\s+at\s+base_url`)
		steps := []resource.TestStep{
			{Config: config, Check: acctest.ExpectCount("started", 1, func() int { return row.started(mock) })},
			// Another base_url is another place: the object is kept,
			// unread, with a warning (place.go), and nothing is planned.
			{Config: wrongPath, PlanOnly: true},
		}
		// A proxy's page, and another JSON API's 404s, which do not name
		// the object asked for.
		for _, fault := range []mockapi.Fault{
			{Status: 404, Body: "<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><hr>nginx</body></html>", Header: map[string]string{"Content-Type": "text/html"}},
			{Status: 404, Body: `{"error":"not_found"}`},
			{Status: 404, Body: `{"error":"Unknown endpoint"}`},
		} {
			steps = append(steps, resource.TestStep{
				PreConfig:   func() { mock.InjectFault(row.read, fault) },
				Config:      config,
				PlanOnly:    true,
				ExpectError: keep,
			})
		}
		steps = append(steps, resource.TestStep{
			Config:           config,
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check:            acctest.ExpectCount("started after the routes came back", 1, func() int { return row.started(mock) }),
		})
		resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testFactories(Options{}), Steps: steps})
	})
}

// A deployment whose status says it ended (endedAt) with a status nobody
// documents ends the wait at once with an error naming that status, rather
// than waiting out timeouts.create.
func TestDeploymentResource_unknownFinalStatusEndsTheWait(t *testing.T) {
	t.Parallel() // before the clock starts: a paused test waits for the serial ones
	mock := newDeployMock(t, mockapi.Config{})
	ended := time.Now().UTC().Format(time.RFC3339)
	for range 200 {
		mock.InjectFault(mockapi.EndpointDeploymentStatus, mockapi.Fault{AfterHandling: true,
			Patch: map[string]any{"status": "canceled", "endedAt": ended}})
	}
	start := time.Now()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config:      deploymentConfig(mock, "a", "  timeouts {\n    create = \"90s\"\n  }"),
			ExpectError: regexp.MustCompile(`ended\s+with\s+status\s+"canceled",\s+which\s+the\s+provider\s+does\s+not\s+know`),
		}},
	})
	if waited := time.Since(start); waited > 45*time.Second {
		t.Errorf("the apply took %s: the wait did not end at the unknown final status", waited.Round(time.Second))
	}
	if n := len(mock.DeploymentIDs(deployProject)); n != 1 {
		t.Errorf("%d deployments queued, want 1", n)
	}
}

// A wait that gives up after failed polls names why they failed: a status
// answer over the client's size limit, or one that trickles in a byte at a
// time past the time allowed for one attempt.
func TestDeploymentResource_failedPollsNameTheReason(t *testing.T) {
	t.Parallel()
	rows := []struct {
		name  string
		fault mockapi.Fault
		want  string
	}{
		{"over 1 MiB", mockapi.Fault{Status: 200, Body: `{"_id":"x","status":"in_progress","logs":["` + strings.Repeat("y", 1<<20) + `"]}`},
			`larger\s+than\s+the\s+1048576-byte\s+limit`},
		{"a byte every 5 seconds", mockapi.Fault{Status: 200, Body: `{"_id":"x","status":"in_progress"}`, Trickle: 5 * time.Second},
			`still\s+arriving\s+after\s+2s,\s+the\s+time\s+allowed\s+for\s+one\s+attempt\s+\(1\s+bytes`},
	}
	acctest.RunSubtests(t, rows, func(r struct {
		name  string
		fault mockapi.Fault
		want  string
	}) string {
		return r.name
	}, func(t *testing.T, row struct {
		name  string
		fault mockapi.Fault
		want  string
	}) {
		mock := newDeployMock(t, mockapi.Config{})
		for range 20 {
			mock.InjectFault(mockapi.EndpointDeploymentStatus, row.fault)
		}
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testFactories(Options{RequestTimeout: 2 * time.Second}),
			Steps: []resource.TestStep{{
				Config: acctest.BlockConfig(mock, "project_id = \"proj_1\"\n  max_retries = 0", `resource "docsadmin_deployment" "docs"`,
					"  triggers = { docs_commit = \"a\" }\n  timeouts {\n    create = \"5m\"\n  }"),
				ExpectError: regexp.MustCompile(`failed\s+5\s+times\s+in\s+a\s+row[\s\S]*` + row.want),
			}},
		})
	})
}

// A wait that reaches its limit names why the last poll failed, when it
// failed for a reason of its own; a poll cut by the limit adds nothing.
func TestWaitTimeoutNamesTheLastFailure(t *testing.T) {
	t.Parallel()
	w := waitFailure{subject: "deployment dep_1", timeout: timeoutCreate, limit: time.Minute, onTimeout: "Run terraform apply again."}
	slow := &client.RequestError{Endpoint: "GET /v1/project/update-status/dep_1", MaybeProcessed: true,
		Err: &client.SlowAnswerError{Limit: 30 * time.Second, Headers: true, Received: 6}}
	text, ok := w.explain(&poll.TimeoutError{Cause: context.DeadlineExceeded, Waited: time.Minute, LastErr: slow})
	if !ok || !strings.Contains(text, "the last poll failed: GET /v1/project/update-status/dep_1: request failed: the answer was still arriving after 30s") {
		t.Errorf("explain = %q, want the last failure named", text)
	}
	text, _ = w.explain(&poll.TimeoutError{Cause: context.DeadlineExceeded, Waited: time.Minute, LastErr: fmt.Errorf("reading: %w", context.DeadlineExceeded)})
	if strings.Contains(text, "last poll failed") {
		t.Errorf("explain = %q names a poll that the limit cut short", text)
	}
}
