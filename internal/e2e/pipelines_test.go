package e2e

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// pipelineSettings are the CI settings the example pipelines read, each
// documented in examples/pipelines/ci/README.md.
var pipelineSettings = []string{
	"DOCSADMIN_BASE_URL",
	"DOCSADMIN_API_KEY_READ",
	"DOCSADMIN_API_KEY_WRITE",
	"DOCS_DOMAIN",
	"DOCS_CHART_REPOSITORY",
	"DOCS_CHART_VERSION",
	"TF_BACKEND_CONFIG",
	"DOCS_KUBECONFIG_READ",
	"DOCS_KUBECONFIG",
	"TF_STATE_AWS_ACCESS_KEY_ID",
	"TF_STATE_AWS_SECRET_ACCESS_KEY",
}

var (
	// topLevelVariable finds a variable block of a configuration and its body;
	// tfVarName, a TF_VAR_ variable being set (a YAML key or a shell assignment).
	topLevelVariable = regexp.MustCompile(`(?ms)^variable "([a-z_]+)" \{\n(.*?)^\}`)
	tfVarName        = regexp.MustCompile(`TF_VAR_([a-z_]+)(?::|=)`)
)

// TestExamplePipelinesAreAlike checks that the GitHub Actions and GitLab CI
// pipelines are configured alike: the same CI settings, every variable of the
// configuration they apply that has no default set through TF_VAR_, the
// backend settings passed to init, and the lock file honoured when present.
// actionlint and GitLab's schema check them further (make lint-pipelines).
func TestExamplePipelinesAreAlike(t *testing.T) {
	t.Parallel()
	checkPipelinesAlike(t, pipelineFamily{
		what:      "the Helm configuration",
		pipelines: []string{"github-actions.yml", "gitlab-ci.yml"},
		configs:   []string{"examples/pipelines/helm/main.tf", "examples/pipelines/helm/write-only/main.tf"},
		settings:  pipelineSettings,
	})
}

// staticHostSettings are the CI settings the static-host pipelines read, each
// documented in examples/pipelines/ci/README.md.
var staticHostSettings = []string{
	"DOCSADMIN_BASE_URL",
	"DOCSADMIN_API_KEY_WRITE",
	"DOCS_DOMAIN",
	"DOCS_SITE_BUCKET",
	"TF_BACKEND_CONFIG_EXPORT",
	"TF_BACKEND_CONFIG_SITE",
	"DOCS_AWS_ACCESS_KEY_ID",
	"DOCS_AWS_SECRET_ACCESS_KEY",
}

// TestStaticHostPipelinesAreAlike checks the static-host pipelines as
// TestExamplePipelinesAreAlike checks the Helm ones: the same settings, and
// every variable without a default of the two stages they apply set through
// TF_VAR_ in both.
func TestStaticHostPipelinesAreAlike(t *testing.T) {
	t.Parallel()
	checkPipelinesAlike(t, pipelineFamily{
		what:      "the static-host configurations",
		pipelines: []string{"static-host-github-actions.yml", "static-host-gitlab-ci.yml"},
		configs:   []string{"examples/pipelines/static-host/export/main.tf", "examples/pipelines/static-host/s3-cloudfront/main.tf"},
		settings:  staticHostSettings,
		steps:     []string{"terraform output -raw job_id"},
	})
}

// pipelineFamily is a GitHub Actions and a GitLab CI pipeline (files of
// examples/pipelines/ci) that apply the same configurations.
type pipelineFamily struct {
	what      string   // the configurations, as messages name them
	pipelines []string // the pipeline files
	configs   []string // the configurations they apply
	settings  []string // the CI settings they read
	steps     []string // what each runs beyond init and apply
}

// checkPipelinesAlike checks that a family's pipelines read the same CI
// settings, each documented in the pipelines' README, set through TF_VAR_
// the same variables, among them every variable of the configurations that
// has no default, pass backend settings to init, and honour the lock file
// when it is present.
func checkPipelinesAlike(t *testing.T, f pipelineFamily) {
	t.Helper()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	read := func(rel string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	var required []string
	for _, config := range f.configs {
		for _, m := range topLevelVariable.FindAllStringSubmatch(read(config), -1) {
			if !regexp.MustCompile(`(?m)^\s+default\s+=`).MatchString(m[2]) && !slices.Contains(required, m[1]) {
				required = append(required, m[1])
			}
		}
	}
	if len(required) == 0 {
		t.Fatalf("found no required variable in %s", f.what)
	}

	var tfVars map[string]bool
	for _, name := range f.pipelines {
		content := read("examples/pipelines/ci/" + name)
		for _, setting := range f.settings {
			if !strings.Contains(content, setting) {
				t.Errorf("%s does not read the setting %s", name, setting)
			}
		}
		set := map[string]bool{}
		for _, m := range tfVarName.FindAllStringSubmatch(content, -1) {
			set[m[1]] = true
		}
		for _, variable := range required {
			if !set[variable] {
				t.Errorf("%s never sets TF_VAR_%s, which %s requires", name, variable, f.what)
			}
		}
		if tfVars == nil {
			tfVars = set
		} else if !maps.Equal(tfVars, set) {
			t.Errorf("the pipelines set different TF_VAR_ variables: %v and %v", slices.Sorted(maps.Keys(tfVars)), slices.Sorted(maps.Keys(set)))
		}
		for _, want := range append([]string{"-backend-config=", "-lockfile=readonly", "[ -f .terraform.lock.hcl ]", "terraform apply tfplan"}, f.steps...) {
			if !strings.Contains(content, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
	readme := read("examples/pipelines/ci/README.md")
	for _, setting := range f.settings {
		if !strings.Contains(readme, "`"+setting+"`") {
			t.Errorf("README.md of the pipelines does not document the setting %s", setting)
		}
	}
}
