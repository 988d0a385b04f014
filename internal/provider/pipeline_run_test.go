//go:build unix

package provider

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// The GitHub Actions pipeline of examples/pipelines/ci, run as a runner runs
// it: each job on a fresh checkout, each `run` step in bash with the
// workflow's, the job's and the step's environment and what earlier steps
// wrote to GITHUB_ENV. Terraform installs the provider from a filesystem
// mirror with the lock file that `terraform providers lock` makes, and keeps
// its state in an HTTP backend with locking, played here. The configuration
// is the air-gapped example's connected side, which needs only this
// provider: the Helm configuration the pipeline deploys needs the helm
// provider, which cannot be installed here. Both name the export
// docsadmin_static_export.docs and read docs_commit, which is all the
// pipeline relies on.

const pipelineExport = "docsadmin_static_export.docs"

// workflow is the part of a GitHub Actions workflow that the runner reads.
type workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Needs    any               `yaml:"needs"`
		Env      map[string]string `yaml:"env"`
		Defaults struct {
			Run struct {
				WorkingDirectory string `yaml:"working-directory"`
			} `yaml:"run"`
		} `yaml:"defaults"`
		Steps []struct {
			Name string            `yaml:"name"`
			Uses string            `yaml:"uses"`
			If   string            `yaml:"if"`
			Env  map[string]string `yaml:"env"`
			Run  string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// pipelineEvent is what a run of the workflow is started by.
type pipelineEvent struct {
	name   string // github.event_name
	commit string // github.sha
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

func TestAccPipeline_githubActionsRunsAsCopied(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("set TF_ACC=1 to run the pipeline with Terraform (make test does)")
	}
	for _, tool := range []string{"bash", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the pipeline's steps need %s on PATH (.ci/run installs it): %v", tool, err)
		}
	}
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "examples/pipelines/ci/github-actions.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatalf("github-actions.yml: %v", err)
	}

	ctx := t.Context()
	runner, err := tfrunner.New(acceptanceCLI(t), t.TempDir())
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
	// The steps call `terraform`: the acceptance CLI, first on PATH.
	bin := t.TempDir()
	if err := os.Symlink(acceptanceCLI(t), filepath.Join(bin, "terraform")); err != nil {
		t.Fatal(err)
	}

	mock := newMock(t, mockapi.Config{ReadOnlyAPIKeys: []string{"dsa_mock_read_only_key"}})
	backend := &stateBackend{}
	backendServer := httptest.NewServer(backend)
	t.Cleanup(backendServer.Close)

	// The repository as the pipeline checks it out: the configuration in
	// deploy/, a backend block that the pipeline's settings complete, and
	// the lock file made as the pipeline's README says.
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
		writeFile(t, filepath.Join(deploy, name), string(content))
	}
	writeFile(t, filepath.Join(deploy, "backend.tf"), "terraform {\n  backend \"http\" {}\n}\n")
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

	settings := map[string]string{
		"vars.DOCSADMIN_BASE_URL":                mock.URL,
		"vars.DOCS_DOMAIN":                       "docs.example.com",
		"vars.DOCS_CHART_REPOSITORY":             "https://charts.example.com",
		"vars.DOCS_CHART_VERSION":                "1.0.0",
		"vars.TF_BACKEND_CONFIG":                 fmt.Sprintf("address = %q\nlock_address = %q\nunlock_address = %q", backendServer.URL+"/state", backendServer.URL+"/state/lock", backendServer.URL+"/state/lock"),
		"secrets.DOCSADMIN_API_KEY_READ":         "dsa_mock_read_only_key",
		"secrets.DOCSADMIN_API_KEY_WRITE":        mock.APIKey,
		"secrets.DOCS_KUBECONFIG_READ":           "apiVersion: v1\nkind: Config\n",
		"secrets.DOCS_KUBECONFIG":                "apiVersion: v1\nkind: Config\n",
		"secrets.TF_STATE_AWS_ACCESS_KEY_ID":     "unused-by-the-http-backend",
		"secrets.TF_STATE_AWS_SECRET_ACCESS_KEY": "unused-by-the-http-backend",
	}
	run := func(event pipelineEvent) (string, error) {
		t.Helper()
		return runWorkflow(ctx, t, runner, wf, repo, bin, settings, event)
	}
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
	if out, err := run(pipelineEvent{name: "schedule", commit: "c0"}); err == nil || !strings.Contains(out, "nothing deployed yet") {
		t.Fatalf("a scheduled run on empty state: err %v; want the 'nothing deployed yet' refusal:\n%s", err, out)
	}
	expectExports("after a scheduled run on empty state", 0)

	// A publication exports, from fresh runners, with the lock file honoured.
	out, err := run(pipelineEvent{name: "push", commit: "c1"})
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
	out, err = run(pipelineEvent{name: "schedule", commit: "c2"})
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

	// A scheduled run never exports: when the export is gone from the API,
	// its plan would start one, and the run stops before applying.
	for _, id := range mock.ExportJobIDs("docs.example.com") {
		mock.DeleteExportJob(id)
	}
	out, err = run(pipelineEvent{name: "schedule", commit: "c2"})
	if err == nil || !strings.Contains(out, "a scheduled run only renews links") {
		t.Fatalf("a scheduled run whose plan exports: err %v; want the refusal:\n%s", err, out)
	}
	expectExports("after the refused scheduled run", 1)

	// The next publication exports again.
	if out, err := run(pipelineEvent{name: "push", commit: "c3"}); err != nil {
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

// runWorkflow runs the workflow's jobs in the order of their needs, each on
// a fresh copy of repo, and returns everything they printed. It stops at the
// first failed step.
func runWorkflow(ctx context.Context, t *testing.T, runner *tfrunner.Runner, wf workflow, repo, bin string, settings map[string]string, event pipelineEvent) (string, error) {
	t.Helper()
	var out strings.Builder
	for _, name := range jobOrder(t, wf) {
		job := wf.Jobs[name]
		checkout := t.TempDir()
		if err := os.CopyFS(checkout, os.DirFS(repo)); err != nil {
			t.Fatal(err)
		}
		runnerTemp := t.TempDir()
		envFile := filepath.Join(runnerTemp, "github_env")
		// What a runner holds for the whole job: the workflow's env, the
		// job's over it, and later what steps write to GITHUB_ENV.
		global := map[string]string{}
		for _, env := range []map[string]string{wf.Env, job.Env} {
			for k, v := range env {
				global[k] = expandExpressions(t, v, settings, event)
			}
		}
		for _, step := range job.Steps {
			if step.Uses != "" {
				continue // checkout and setup-terraform: done above
			}
			if step.If != "" && !evalCondition(t, step.If, event) {
				continue
			}
			env := maps.Clone(global)
			for k, v := range step.Env {
				env[k] = expandExpressions(t, v, settings, event)
			}
			env["PATH"] = bin + ":" + os.Getenv("PATH")
			env["RUNNER_TEMP"], env["GITHUB_ENV"], env["GITHUB_EVENT_NAME"], env["CI"] = runnerTemp, envFile, event.name, "true"
			script := filepath.Join(runnerTemp, "step.sh")
			writeFile(t, script, step.Run)
			if err := os.WriteFile(envFile, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			cmd, err := runner.Command(ctx, filepath.Join(checkout, job.Defaults.Run.WorkingDirectory), env, "")
			if err != nil {
				t.Fatal(err)
			}
			cmd.Path, cmd.Args = "/bin/bash", []string{"bash", "--noprofile", "--norc", "-eo", "pipefail", script}
			cmd.Stdout, cmd.Stderr = &out, &out
			fmt.Fprintf(&out, "== %s: %s\n", name, step.Name)
			runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
			cmd.Cancel = func() error { return cmd.Process.Kill() }
			stop := context.AfterFunc(runCtx, func() { _ = cmd.Cancel() })
			err = cmd.Run()
			stop()
			cancel()
			if err != nil {
				return out.String(), fmt.Errorf("job %s, step %q: %w", name, step.Name, err)
			}
			for k, v := range readEnvFile(t, envFile) {
				global[k] = v
			}
		}
	}
	return out.String(), nil
}

// jobOrder lists the workflow's jobs so that each comes after those it needs.
func jobOrder(t *testing.T, wf workflow) []string {
	t.Helper()
	var order []string
	var visit func(name string, depth int)
	visit = func(name string, depth int) {
		if slices.Contains(order, name) {
			return
		}
		if depth > len(wf.Jobs) {
			t.Fatalf("the jobs' needs form a cycle at %s", name)
		}
		job, ok := wf.Jobs[name]
		if !ok {
			t.Fatalf("a job needs %s, which does not exist", name)
		}
		var needs []string
		switch n := job.Needs.(type) {
		case string:
			needs = []string{n}
		case []any:
			for _, v := range n {
				needs = append(needs, fmt.Sprint(v))
			}
		}
		for _, need := range needs {
			visit(need, depth+1)
		}
		order = append(order, name)
	}
	for _, name := range slices.Sorted(maps.Keys(wf.Jobs)) {
		visit(name, 0)
	}
	return order
}

var expression = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// expandExpressions replaces the ${{ }} expressions the workflow's env uses:
// vars, secrets, github.sha and github.event_name. Any other fails the test,
// so that a new kind of expression is noticed.
func expandExpressions(t *testing.T, value string, settings map[string]string, event pipelineEvent) string {
	t.Helper()
	return expression.ReplaceAllStringFunc(value, func(m string) string {
		expr := expression.FindStringSubmatch(m)[1]
		switch {
		case expr == "github.sha":
			return event.commit
		case expr == "github.event_name":
			return event.name
		case strings.HasPrefix(expr, "vars.") || strings.HasPrefix(expr, "secrets."):
			v, ok := settings[expr]
			if !ok {
				t.Fatalf("the workflow reads %s, which the test does not set", expr)
			}
			return v
		}
		t.Fatalf("the workflow uses ${{ %s }}, which the test cannot evaluate", expr)
		return ""
	})
}

var eventCondition = regexp.MustCompile(`^github\.event_name\s*(==|!=)\s*'([a-z_]+)'$`)

// evalCondition evaluates a step's if: the comparisons of the event's name
// the workflow uses.
func evalCondition(t *testing.T, cond string, event pipelineEvent) bool {
	t.Helper()
	m := eventCondition.FindStringSubmatch(strings.TrimSpace(cond))
	if m == nil {
		t.Fatalf("the workflow has the condition %q, which the test cannot evaluate", cond)
	}
	return (event.name == m[2]) == (m[1] == "==")
}

// readEnvFile reads the NAME=value lines a step wrote to GITHUB_ENV.
func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := map[string]string{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		name, value, ok := strings.Cut(scanner.Text(), "=")
		if !ok {
			t.Fatalf("GITHUB_ENV line %q is not NAME=value (multi-line values are not played here)", scanner.Text())
		}
		env[name] = value
	}
	if err := scanner.Err(); err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return env
}
