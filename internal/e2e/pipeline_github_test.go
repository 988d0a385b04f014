//go:build unix

package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"go.yaml.in/yaml/v3"
)

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

// runGitHubWorkflow runs the workflow's jobs in the order of their needs,
// each on a fresh checkout, its run steps in bash as a runner runs them: with
// the workflow's env, the job's over it, what earlier steps wrote to
// GITHUB_ENV over those, and the step's own env on top. It returns what the
// steps printed and stops at the first failed step.
func runGitHubWorkflow(ctx context.Context, t *testing.T, penv pipelineEnv, event pipelineEvent) (string, error) {
	t.Helper()
	var wf workflow
	if err := yaml.Unmarshal(penv.file, &wf); err != nil {
		t.Fatalf("github-actions.yml: %v", err)
	}
	eventName := "push"
	if event.schedule {
		eventName = "schedule"
	}
	var out strings.Builder
	for _, name := range jobOrder(t, wf) {
		job := wf.Jobs[name]
		checkout := t.TempDir()
		if err := os.CopyFS(checkout, os.DirFS(penv.repo)); err != nil {
			t.Fatal(err)
		}
		runnerTemp := t.TempDir()
		envFile := filepath.Join(runnerTemp, "github_env")
		global := map[string]string{}
		for _, env := range []map[string]string{wf.Env, job.Env} {
			for k, v := range env {
				global[k] = expandExpressions(t, v, penv.settings, eventName, event.commit)
			}
		}
		for _, step := range job.Steps {
			if step.Uses != "" {
				continue // checkout and setup-terraform: done by the test
			}
			if step.If != "" && !evalCondition(t, step.If, eventName) {
				continue
			}
			env := maps.Clone(global)
			for k, v := range step.Env {
				env[k] = expandExpressions(t, v, penv.settings, eventName, event.commit)
			}
			env["PATH"] = penv.bin + ":" + os.Getenv("PATH")
			env["RUNNER_TEMP"], env["GITHUB_ENV"], env["GITHUB_EVENT_NAME"], env["CI"] = runnerTemp, envFile, eventName, "true"
			if err := os.WriteFile(envFile, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "== %s: %s\n", name, step.Name)
			dir := filepath.Join(checkout, job.Defaults.Run.WorkingDirectory)
			if err := runScript(ctx, t, penv, dir, env, step.Run, &out, "bash", "--noprofile", "--norc", "-eo", "pipefail"); err != nil {
				return out.String(), fmt.Errorf("job %s, step %q: %w", name, step.Name, err)
			}
			for k, v := range readEnvFile(t, envFile) {
				global[k] = v
			}
		}
	}
	return out.String(), nil
}

// runScript runs script with shell in dir, in the runner's environment with
// env over it, bounded by three minutes.
func runScript(ctx context.Context, t *testing.T, penv pipelineEnv, dir string, env map[string]string, script string, out io.Writer, shell ...string) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.sh")
	acctest.WriteFile(t, path, script)
	cmd, err := penv.runner.Command(ctx, dir, env, "")
	if err != nil {
		t.Fatal(err)
	}
	shellPath, err := exec.LookPath(shell[0])
	if err != nil {
		t.Fatal(err)
	}
	cmd.Path, cmd.Args = shellPath, append(slices.Clone(shell), path)
	cmd.Stdout, cmd.Stderr = out, out
	runCtx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	stop := context.AfterFunc(runCtx, func() { _ = cmd.Cancel() })
	defer stop()
	return cmd.Run()
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
		for _, need := range stringOrList(job.Needs) {
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
func expandExpressions(t *testing.T, value string, settings map[string]string, eventName, commit string) string {
	t.Helper()
	return expression.ReplaceAllStringFunc(value, func(m string) string {
		expr := expression.FindStringSubmatch(m)[1]
		switch {
		case expr == "github.sha":
			return commit
		case expr == "github.event_name":
			return eventName
		case strings.HasPrefix(expr, "vars.") || strings.HasPrefix(expr, "secrets."):
			_, name, _ := strings.Cut(expr, ".")
			v, ok := settings[name]
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
func evalCondition(t *testing.T, cond, eventName string) bool {
	t.Helper()
	m := eventCondition.FindStringSubmatch(strings.TrimSpace(cond))
	if m == nil {
		t.Fatalf("the workflow has the condition %q, which the test cannot evaluate", cond)
	}
	return (eventName == m[2]) == (m[1] == "==")
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

// stringOrList reads a YAML value that is one name or a list of names, as
// GitHub's needs and GitLab's extends are.
func stringOrList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		names := make([]string, len(v))
		for i, name := range v {
			names[i] = fmt.Sprint(name)
		}
		return names
	}
	return nil
}
