//go:build unix

package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// The pipelines of examples/pipelines/ci, GitHub Actions and GitLab CI, run
// as their runners run them (pipeline_github_test.go, pipeline_gitlab_test.go):
// each job on a fresh checkout, its scripts in a shell with the pipeline's
// variables. Terraform installs the provider from a filesystem mirror with
// the lock file that `terraform providers lock` makes, and keeps its state in
// an HTTP backend with locking, played here. The configuration is the
// air-gapped example's connected side, which needs only this provider: the
// Helm configuration the pipelines deploy needs the helm provider, which
// cannot be installed here. Both name the export docsadmin_static_export.docs
// and read docs_commit, which is all the pipelines rely on.

const pipelineExport = "docsadmin_static_export.docs"

// pipelineEvent is what a run of the workflow is started by.
type pipelineEvent struct {
	schedule bool   // a scheduled run, else a push to the default branch
	commit   string // the commit the run is for
}

// stateBackend plays Terraform's HTTP backend with locking: GET and POST the
// state, LOCK and UNLOCK it.
type stateBackend struct {
	mu      sync.Mutex
	state   []byte
	lockID  string
	locks   int
	refused int
}

func (b *stateBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.URL.Path == "/state" && r.Method == http.MethodGet:
		if b.state == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		_, _ = w.Write(b.state)
	case r.URL.Path == "/state" && r.Method == http.MethodPost:
		if b.lockID != "" && r.URL.Query().Get("ID") != b.lockID {
			http.Error(w, "state is locked by another run", http.StatusConflict)
			return
		}
		b.state = body
	case r.URL.Path == "/state/lock" && r.Method == "LOCK":
		if b.lockID != "" {
			b.refused++
			w.WriteHeader(http.StatusLocked)
			return
		}
		id := regexp.MustCompile(`"ID":"([^"]+)"`).FindSubmatch(body)
		if id == nil {
			http.Error(w, "no lock ID", http.StatusBadRequest)
			return
		}
		b.lockID = string(id[1])
		b.locks++
	case r.URL.Path == "/state/lock" && r.Method == "UNLOCK":
		b.lockID = ""
	default:
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusMethodNotAllowed)
	}
}

func (b *stateBackend) snapshot() (state string, locks int, held bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.state), b.locks, b.lockID != ""
}

// pipelineCI is one CI system's way to run its pipeline file.
type pipelineCI struct {
	file string
	run  func(ctx context.Context, t *testing.T, env pipelineEnv, event pipelineEvent) (string, error)
}

// pipelineEnv is what a run of a pipeline has at hand: the project's CI
// settings, a checkout to copy for each job, and the commands on PATH.
type pipelineEnv struct {
	file     []byte            // the pipeline file
	settings map[string]string // CI settings by name: variables and secrets
	files    map[string]bool   // settings that GitLab keeps as File variables
	repo     string            // the repository as checked out
	bin      string            // put first on PATH: terraform and stand-ins
	runner   *tfrunner.Runner
}

func TestAccPipeline_runsAsCopied(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the example pipelines end to end: slow; runs in make test")
	}
	acctest.RequireCLI(t)
	for _, tool := range []string{"bash", "sh", "jq"} {
		testtools.LookPath(t, tool, "the pipelines' steps run it: "+testtools.MakeTools)
	}
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	runner, err := tfrunner.New(acctest.CLI(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	inst, err := runner.BuildMirror(ctx, "0.1.0")
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.Install(inst); err != nil {
		t.Fatal(err)
	}
	// The steps call `terraform`: the acceptance CLI, first on PATH; and
	// GitLab's image installs jq with apk, which the machine already has.
	bin := t.TempDir()
	if err := os.Symlink(acctest.CLI(t), filepath.Join(bin, "terraform")); err != nil {
		t.Fatal(err)
	}
	acctest.WriteFile(t, filepath.Join(bin, "apk"), "#!/bin/sh\nexit 0\n")
	if err := os.Chmod(filepath.Join(bin, "apk"), 0o755); err != nil {
		t.Fatal(err)
	}

	// The repository as the pipelines check it out: the configuration in
	// deploy/, a backend block that the pipeline's settings complete, and
	// the lock file made as the pipelines' README says.
	repo := t.TempDir()
	deploy := filepath.Join(repo, "deploy")
	files, err := tfrunner.ModuleFiles("examples/pipelines/air-gapped/connected")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(deploy, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		acctest.WriteFile(t, filepath.Join(deploy, name), string(content))
	}
	acctest.WriteFile(t, filepath.Join(deploy, "backend.tf"), "terraform {\n  backend \"http\" {}\n}\n")
	lock, err := runner.Command(ctx, deploy, nil, "providers", "lock", "-fs-mirror="+inst.MirrorDir(), "-platform=linux_amd64")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := lock.CombinedOutput(); err != nil {
		t.Fatalf("terraform providers lock: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(deploy, tfrunner.LockFileName)); err != nil {
		t.Fatalf("terraform providers lock wrote no lock file: %v", err)
	}

	for _, ci := range []pipelineCI{
		{file: "examples/pipelines/ci/github-actions.yml", run: runGitHubWorkflow},
		{file: "examples/pipelines/ci/gitlab-ci.yml", run: runGitLabPipeline},
	} {
		t.Run(filepath.Base(ci.file), func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(root, ci.file))
			if err != nil {
				t.Fatal(err)
			}
			mock := acctest.NewMock(t, mockapi.Config{ReadOnlyAPIKeys: []string{"dsa_mock_read_only_key"}})
			backend := &stateBackend{}
			backendServer := httptest.NewServer(backend)
			t.Cleanup(backendServer.Close)
			env := pipelineEnv{
				file: raw,
				settings: map[string]string{
					"DOCSADMIN_BASE_URL":             mock.URL,
					"DOCS_DOMAIN":                    "docs.example.com",
					"DOCS_CHART_REPOSITORY":          "https://charts.example.com",
					"DOCS_CHART_VERSION":             "1.0.0",
					"TF_BACKEND_CONFIG":              fmt.Sprintf("address = %q\nlock_address = %q\nunlock_address = %q\n", backendServer.URL+"/state", backendServer.URL+"/state/lock", backendServer.URL+"/state/lock"),
					"DOCSADMIN_API_KEY_READ":         "dsa_mock_read_only_key",
					"DOCSADMIN_API_KEY_WRITE":        mock.APIKey,
					"DOCS_KUBECONFIG_READ":           "apiVersion: v1\nkind: Config\n",
					"DOCS_KUBECONFIG":                "apiVersion: v1\nkind: Config\n",
					"TF_STATE_AWS_ACCESS_KEY_ID":     "unused-by-the-http-backend",
					"TF_STATE_AWS_SECRET_ACCESS_KEY": "unused-by-the-http-backend",
				},
				files:  map[string]bool{"TF_BACKEND_CONFIG": true, "DOCS_KUBECONFIG_READ": true, "DOCS_KUBECONFIG": true},
				repo:   repo,
				bin:    bin,
				runner: runner,
			}
			pipelineScenario(t, mock, backend, deploy, func(event pipelineEvent) (string, error) {
				t.Helper()
				return ci.run(ctx, t, env, event)
			})
		})
	}
}

// pipelineScenario runs a pipeline through the life of a deployment:
// nothing deployed yet, a publication, scheduled renewals on fresh runners,
// scheduled runs that would export (again in place, or anew), and a second
// publication. deploy is the configuration's directory in the repository.
func pipelineScenario(t *testing.T, mock *mockapi.Server, backend *stateBackend, deploy string, run func(pipelineEvent) (string, error)) {
	t.Helper()
	deployedCommit := func() string {
		state, _, _ := backend.snapshot()
		m := regexp.MustCompile(`"docs_commit":\s*"([^"]+)"`).FindStringSubmatch(state)
		if m == nil {
			return ""
		}
		return m[1]
	}
	expectExports := func(when string, want int) {
		t.Helper()
		if n := mock.ExportsStarted("docs.example.com"); n != want {
			t.Fatalf("%s: %d exports started, want %d", when, n, want)
		}
	}

	// A scheduled run before anything was deployed refuses to start.
	if out, err := run(pipelineEvent{schedule: true, commit: "c0"}); err == nil || !strings.Contains(out, "nothing deployed yet") {
		t.Fatalf("a scheduled run on empty state: err %v; want the 'nothing deployed yet' refusal:\n%s", err, out)
	}
	expectExports("after a scheduled run on empty state", 0)

	// A publication exports, from fresh runners, with the lock file honoured.
	out, err := run(pipelineEvent{commit: "c1"})
	if err != nil {
		t.Fatalf("the publication's run failed: %v\n%s", err, out)
	}
	for _, want := range []string{pipelineExport + ": new export", "Apply complete!"} {
		if !strings.Contains(out, want) {
			t.Errorf("the publication's run does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "lock.hcl is missing") {
		t.Errorf("the pipeline did not find the lock file:\n%s", out)
	}
	expectExports("after the publication", 1)
	if got := deployedCommit(); got != "c1" {
		t.Fatalf("the backend's state records docs_commit %q, want c1", got)
	}
	if _, locks, held := backend.snapshot(); locks == 0 || held {
		t.Errorf("the backend was locked %d times and is still held: %v; want every run to lock and unlock it", locks, held)
	}

	// A scheduled run, on new runners with empty disks, after a commit that
	// was not published through this pipeline: it renews only, and writes
	// the archive again with one download, no export.
	downloads := mock.Requests(mockapi.EndpointDownload)
	out, err = run(pipelineEvent{schedule: true, commit: "c2"})
	if err != nil {
		t.Fatalf("the scheduled run failed: %v\n%s", err, out)
	}
	expectExports("after the scheduled run", 1)
	if got := deployedCommit(); got != "c1" {
		t.Errorf("the scheduled run changed docs_commit to %q; it must keep the deployed c1", got)
	}
	if n := mock.Requests(mockapi.EndpointDownload) - downloads; n != 1 {
		t.Errorf("the scheduled run downloaded the archive %d times, want once (the file on the new runner's empty disk)", n)
	}

	// A scheduled run never exports, not even in place: a trigger added on
	// the default branch plans the export again as an update, and the run
	// stops before applying.
	mainTF := filepath.Join(deploy, "main.tf")
	config, err := os.ReadFile(mainTF)
	if err != nil {
		t.Fatal(err)
	}
	const triggers = "triggers = { docs_commit = var.docs_commit }"
	if !strings.Contains(string(config), triggers) {
		t.Fatalf("the configuration no longer sets %s", triggers)
	}
	acctest.WriteFile(t, mainTF, strings.Replace(string(config), triggers, `triggers = { docs_commit = var.docs_commit, chart = "2" }`, 1))
	out, err = run(pipelineEvent{schedule: true, commit: "c2"})
	acctest.WriteFile(t, mainTF, string(config))
	if err == nil || !strings.Contains(out, "only renews links") || !strings.Contains(out, pipelineExport+": new export") {
		t.Fatalf("a scheduled run whose plan exports again in place: err %v; want the plan job's 'new export' and the refusal:\n%s", err, out)
	}
	expectExports("after the refused scheduled run that would export in place", 1)

	// A scheduled run never exports: when the export is gone from the API,
	// its plan would start one, and the run stops before applying.
	for _, id := range mock.ExportJobIDs("docs.example.com") {
		mock.DeleteExportJob(id)
	}
	out, err = run(pipelineEvent{schedule: true, commit: "c2"})
	if err == nil || !strings.Contains(out, "only renews links") {
		t.Fatalf("a scheduled run whose plan exports: err %v; want the refusal:\n%s", err, out)
	}
	expectExports("after the refused scheduled run", 1)

	// The next publication exports again.
	if out, err := run(pipelineEvent{commit: "c3"}); err != nil {
		t.Fatalf("the second publication's run failed: %v\n%s", err, out)
	}
	expectExports("after the second publication", 2)
	if got := deployedCommit(); got != "c3" {
		t.Errorf("the backend's state records docs_commit %q, want c3", got)
	}
	if strings.Contains(out, mock.APIKey) {
		t.Errorf("the pipeline's output shows the write key")
	}
}
