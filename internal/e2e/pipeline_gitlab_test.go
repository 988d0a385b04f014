//go:build unix

package e2e

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"go.yaml.in/yaml/v3"
)

// gitlabJob is the part of a GitLab CI job that the runner reads.
type gitlabJob struct {
	Extends      any               `yaml:"extends"`
	Stage        string            `yaml:"stage"`
	Variables    map[string]string `yaml:"variables"`
	BeforeScript []string          `yaml:"before_script"`
	Script       []string          `yaml:"script"`
	Rules        []struct {
		If string `yaml:"if"`
	} `yaml:"rules"`
}

// gitlabPipeline is a .gitlab-ci.yml: its global keys and its jobs, hidden
// ones (.name) included, for extends.
type gitlabPipeline struct {
	stages    []string
	variables map[string]string
	workflow  []string // the workflow's rules
	jobs      map[string]gitlabJob
}

var gitlabGlobalKeys = []string{"stages", "default", "variables", "workflow", "include"}

func parseGitLabPipeline(t *testing.T, raw []byte) gitlabPipeline {
	t.Helper()
	var top map[string]yaml.Node
	if err := yaml.Unmarshal(raw, &top); err != nil {
		t.Fatalf("gitlab-ci.yml: %v", err)
	}
	p := gitlabPipeline{jobs: map[string]gitlabJob{}}
	decode := func(key string, dst any) {
		if node, ok := top[key]; ok {
			if err := node.Decode(dst); err != nil {
				t.Fatalf("gitlab-ci.yml %s: %v", key, err)
			}
		}
	}
	decode("stages", &p.stages)
	decode("variables", &p.variables)
	var workflow struct {
		Rules []struct {
			If string `yaml:"if"`
		} `yaml:"rules"`
	}
	decode("workflow", &workflow)
	for _, r := range workflow.Rules {
		p.workflow = append(p.workflow, r.If)
	}
	for key := range top {
		if slices.Contains(gitlabGlobalKeys, key) {
			continue
		}
		var job gitlabJob
		decode(key, &job)
		p.jobs[key] = job
	}
	return p
}

// resolve merges a job with what it extends, as GitLab does: variables
// merge, the child's keys win, lists are replaced whole.
func (p gitlabPipeline) resolve(t *testing.T, name string, depth int) gitlabJob {
	t.Helper()
	job, ok := p.jobs[name]
	if !ok || depth > 10 {
		t.Fatalf("gitlab-ci.yml: %s does not exist or extends in a cycle", name)
	}
	merged := gitlabJob{Variables: map[string]string{}}
	for _, parent := range stringOrList(job.Extends) {
		merged.overlay(p.resolve(t, parent, depth+1))
	}
	merged.overlay(job)
	return merged
}

// overlay puts what src sets over j, as extends does.
func (j *gitlabJob) overlay(src gitlabJob) {
	maps.Copy(j.Variables, src.Variables)
	j.Stage = cmp.Or(src.Stage, j.Stage)
	j.BeforeScript = cmpOrSlice(src.BeforeScript, j.BeforeScript)
	j.Script = cmpOrSlice(src.Script, j.Script)
	if src.Rules != nil {
		j.Rules = src.Rules
	}
}

func cmpOrSlice(a, b []string) []string {
	if a != nil {
		return a
	}
	return b
}

// runGitLabPipeline runs the pipeline's visible jobs whose rules let them
// run, stage by stage, each on a fresh checkout, before_script and script in
// one POSIX shell that stops at the first failing command, as GitLab's shell
// executor runs them. CI/CD variables reach the jobs as environment
// variables, File variables as the path of a file holding the value.
func runGitLabPipeline(ctx context.Context, t *testing.T, penv pipelineEnv, event pipelineEvent) (string, error) {
	t.Helper()
	p := parseGitLabPipeline(t, penv.file)
	predefined := map[string]string{
		"CI":                 "true",
		"CI_COMMIT_SHA":      event.commit,
		"CI_COMMIT_BRANCH":   "main",
		"CI_DEFAULT_BRANCH":  "main",
		"CI_PIPELINE_SOURCE": "push",
	}
	if event.schedule {
		predefined["CI_PIPELINE_SOURCE"] = "schedule"
	}
	filesDir := t.TempDir()
	for name, value := range penv.settings {
		if penv.files[name] {
			path := filepath.Join(filesDir, name)
			acctest.WriteFile(t, path, value)
			value = path
		}
		predefined[name] = value
	}
	if !gitlabRulesAllow(t, p.workflow, predefined) {
		return "", fmt.Errorf("the workflow's rules create no pipeline")
	}
	var out strings.Builder
	for _, stage := range p.stages {
		for _, name := range slices.Sorted(maps.Keys(p.jobs)) {
			if strings.HasPrefix(name, ".") {
				continue
			}
			job := p.resolve(t, name, 0)
			if job.Stage != stage {
				continue
			}
			var rules []string
			for _, r := range job.Rules {
				rules = append(rules, r.If)
			}
			if len(rules) > 0 && !gitlabRulesAllow(t, rules, predefined) {
				continue
			}
			// Global variables, then the job's, each expanded with what
			// is defined before it.
			env := maps.Clone(predefined)
			for _, vars := range []map[string]string{p.variables, job.Variables} {
				for _, k := range slices.Sorted(maps.Keys(vars)) {
					env[k] = os.Expand(vars[k], func(name string) string { return env[name] })
				}
			}
			env["PATH"] = penv.bin + ":" + os.Getenv("PATH")
			checkout := t.TempDir()
			if err := os.CopyFS(checkout, os.DirFS(penv.repo)); err != nil {
				t.Fatal(err)
			}
			script := "set -e\n" + strings.Join(append(slices.Clone(job.BeforeScript), job.Script...), "\n") + "\n"
			fmt.Fprintf(&out, "== %s\n", name)
			if err := runScript(ctx, t, penv, checkout, env, script, &out, "sh"); err != nil {
				return out.String(), fmt.Errorf("job %s: %w", name, err)
			}
		}
	}
	return out.String(), nil
}

var gitlabCondition = regexp.MustCompile(`^\$(\w+)\s*(==|!=)\s*(?:"([^"]*)"|\$(\w+))$`)

// gitlabRulesAllow tells whether any of the rules' conditions holds: the
// comparisons of variables the pipeline uses.
func gitlabRulesAllow(t *testing.T, conditions []string, vars map[string]string) bool {
	t.Helper()
	for _, cond := range conditions {
		m := gitlabCondition.FindStringSubmatch(strings.TrimSpace(cond))
		if m == nil {
			t.Fatalf("gitlab-ci.yml has the condition %q, which the test cannot evaluate", cond)
		}
		right := m[3]
		if m[4] != "" {
			right = vars[m[4]]
		}
		if (vars[m[1]] == right) == (m[2] == "==") {
			return true
		}
	}
	return false
}
