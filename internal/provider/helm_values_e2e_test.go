package provider

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// The end-to-end test renders the fixture chart with the real helm, pinned in
// tools/helm/go.mod and built once per machine into the user cache.

var (
	helmOnce      sync.Once
	helmPath      string
	helmBuildTime time.Duration
	helmErr       error
)

// helmBinary returns the pinned helm, building it on first use.
func helmBinary(t *testing.T) string {
	t.Helper()
	helmOnce.Do(func() { helmPath, helmBuildTime, helmErr = buildHelm() })
	if helmErr != nil {
		t.Fatalf("cannot build the pinned helm that renders the fixture chart: %v", helmErr)
	}
	if helmBuildTime > 0 {
		t.Logf("built helm from tools/helm/go.mod in %s into %s", helmBuildTime.Round(time.Second), helmPath)
	}
	return helmPath
}

// buildHelm builds helm from tools/helm into a cache directory keyed by the
// module's go.mod and go.sum, so that a version bump builds afresh and
// every later run reuses the binary. It returns the build time, or 0 when
// the binary was already there.
func buildHelm() (string, time.Duration, error) {
	moduleDir, err := filepath.Abs(filepath.Join("..", "..", "tools", "helm"))
	if err != nil {
		return "", 0, err
	}
	key := sha256.New()
	for _, name := range []string{"go.mod", "go.sum"} {
		content, err := os.ReadFile(filepath.Join(moduleDir, name))
		if err != nil {
			return "", 0, fmt.Errorf("reading the helm tool module: %w", err)
		}
		key.Write(content)
	}
	cacheRoot, err := os.UserCacheDir()
	if err != nil {
		cacheRoot = os.TempDir()
	}
	dir := filepath.Join(cacheRoot, "docsadmin-tools", "helm-"+hex.EncodeToString(key.Sum(nil))[:16])
	bin := filepath.Join(dir, "helm")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if info, err := os.Stat(bin); err == nil && info.Mode().IsRegular() {
		return bin, 0, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, err
	}

	// Built under a temporary name and renamed, so that test processes
	// building at the same time never run a half-written binary.
	tmp := fmt.Sprintf("%s.tmp-%d", bin, os.Getpid())
	start := time.Now()
	cmd := exec.Command("go", "build", "-o", tmp, "helm.sh/helm/v3/cmd/helm")
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		return "", 0, fmt.Errorf("go build helm.sh/helm/v3/cmd/helm in %s failed after %s: %v\n%s\n"+
			"The first build downloads helm's modules from the Go module proxy (GOPROXY): check that it is reachable, or build once by hand with\n"+
			"  (cd tools/helm && go build -o %s helm.sh/helm/v3/cmd/helm)",
			moduleDir, time.Since(start).Round(time.Second), err, out, bin)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", 0, err
	}
	return bin, time.Since(start), nil
}

// rendering is what `helm template` made of the fixture chart.
type rendering struct {
	manifest string
	env      map[string]string
	checksum string
}

var checksumAnnotation = regexp.MustCompile(`(?m)^\s+checksum/static-export: ([0-9a-f]{64})$`)

// helmTemplate renders the fixture chart with the given values file content.
func helmTemplate(t *testing.T, helm, values string) (rendering, error) {
	dir := t.TempDir()
	valuesFile := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(valuesFile, []byte(values), 0o600); err != nil {
		return rendering{}, err
	}
	chart, err := filepath.Abs(filepath.Join("testdata", "chart"))
	if err != nil {
		return rendering{}, err
	}
	cmd := exec.Command(helm, "template", "docs", chart, "--namespace", "docs", "--values", valuesFile)
	// Keep helm away from the user's configuration and repositories.
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(dir, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(dir, "config"),
		"HELM_DATA_HOME="+filepath.Join(dir, "data"),
	)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return rendering{}, fmt.Errorf("helm template: %v: %s", err, stderr.String())
	}
	r := rendering{manifest: string(out), env: containerEnv(string(out))}
	if m := checksumAnnotation.FindStringSubmatch(r.manifest); m != nil {
		r.checksum = m[1]
	}
	return r, nil
}

// containerEnv reads the name/value pairs of the rendered container env.
func containerEnv(manifest string) map[string]string {
	env := map[string]string{}
	var name string
	scanner := bufio.NewScanner(strings.NewReader(manifest))
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		switch {
		case strings.HasPrefix(line, "- name: "):
			name = strings.TrimPrefix(line, "- name: ")
		case strings.HasPrefix(line, "value: ") && name != "":
			value := strings.TrimPrefix(line, "value: ")
			if unquoted, err := strconv.Unquote(value); err == nil {
				value = unquoted
			}
			env[name] = value
			name = ""
		default:
			name = ""
		}
	}
	return env
}

func TestAccHelmValues_renderedChartFollowsLinkAndExport(t *testing.T) {
	helm := helmBinary(t)
	clock := &shiftedClock{}
	mock := newMock(t, mockapi.Config{LinkTTL: 2 * time.Hour, Now: clock.Now})
	config := func(docsCommit string) string {
		return exportConfig(mock, fmt.Sprintf(`
  domain       = "docs.example.com"
  version      = "v2"
  renew_before = "30m"
  triggers     = { docs_commit = %q }`, docsCommit)) + `
output "values" {
  value     = yamlencode(provider::docsadmin::helm_values(docsadmin_static_export.site.bundle_url, "v2"))
  sensitive = true
}
`
	}

	type observed struct {
		rendering
		jobID, bundleURL string
	}
	var seen []observed
	// render reads the values output from state, renders the chart with it
	// and checks that the Deployment carries the link and version in state.
	render := func(s *terraform.State) error {
		output, ok := s.RootModule().Outputs["values"]
		if !ok {
			return errors.New("output values not in state")
		}
		values, ok := output.Value.(string)
		if !ok {
			return fmt.Errorf("output values is a %T, want a YAML string", output.Value)
		}
		r, err := helmTemplate(t, helm, values)
		if err != nil {
			return err
		}
		attrs := s.RootModule().Resources[exportAddress].Primary.Attributes
		if got, want := r.env["STATIC_EXPORT_BUNDLE_URL"], attrs["bundle_url"]; got != want || want == "" {
			return fmt.Errorf("the Deployment fetches %q; the export's link is %q", got, want)
		}
		if got := r.env["STATIC_EXPORT_VERSION"]; got != "v2" {
			return fmt.Errorf("the Deployment pins version %q, want v2", got)
		}
		if r.checksum == "" {
			return fmt.Errorf("no checksum/static-export annotation in:\n%s", r.manifest)
		}
		seen = append(seen, observed{rendering: r, jobID: attrs["job_id"], bundleURL: attrs["bundle_url"]})
		return nil
	}
	last := func(back int) observed { return seen[len(seen)-1-back] }
	unchanged := func(*terraform.State) error {
		if last(0).manifest != last(1).manifest {
			return fmt.Errorf("an unchanged apply changed the rendering:\n%s\nbecame\n%s", last(1).manifest, last(0).manifest)
		}
		return nil
	}
	rolled := func(why string) func(*terraform.State) error {
		return func(*terraform.State) error {
			now, before := last(0), last(1)
			if now.bundleURL == before.bundleURL {
				return fmt.Errorf("%s kept the link", why)
			}
			if now.checksum == before.checksum {
				return fmt.Errorf("%s left the pod template's checksum at %s: pods would not roll", why, now.checksum)
			}
			return nil
		}
	}

	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: testFactories(Options{Clock: clock}),
		Steps: []resource.TestStep{
			{
				Config: config("a1b2c3"),
				Check:  render,
			},
			{
				Config:           config("a1b2c3"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            resource.ComposeTestCheckFunc(render, unchanged),
			},
			{
				// 1h40m into a 2h link: renewed in place, same export.
				PreConfig: func() { clock.Advance(100 * time.Minute) },
				Config:    config("a1b2c3"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(exportAddress, plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeTestCheckFunc(render, rolled("a link renewal"), func(*terraform.State) error {
					if last(0).jobID != last(1).jobID {
						return fmt.Errorf("renewal changed the job from %s to %s", last(1).jobID, last(0).jobID)
					}
					return expectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") })(nil)
				}),
			},
			{
				Config:           config("a1b2c3"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check:            resource.ComposeTestCheckFunc(render, unchanged),
			},
			{
				// New content published: a new export, a new link, a new rollout.
				Config: config("d4e5f6"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(exportAddress, plancheck.ResourceActionReplace)},
				},
				Check: resource.ComposeTestCheckFunc(render, rolled("a re-export"), func(*terraform.State) error {
					if last(0).jobID == last(1).jobID {
						return fmt.Errorf("changing triggers kept job %s", last(0).jobID)
					}
					return expectCount("exports started", 2, func() int { return mock.ExportsStarted("docs.example.com") })(nil)
				}),
			},
		},
	})
}
