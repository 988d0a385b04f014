package e2e

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
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

// rendering is what `helm template` made of the fixture chart, one manifest
// per kind (the fixture renders at most one of each).
type rendering struct {
	manifest string
	byKind   map[string]string
}

// helmTemplate renders the fixture chart as helm_release would install it:
// the configuration's output "values" holds the non-secret values
// (helm_release's values) and bundleURL arrives separately, like
// set_sensitive or set_wo.
func helmTemplate(t *testing.T, helm string, s *terraform.State, bundleURL string) (rendering, error) {
	output, ok := s.RootModule().Outputs["values"]
	if !ok {
		return rendering{}, errors.New("output values not in state")
	}
	values, ok := output.Value.(string)
	if !ok {
		return rendering{}, fmt.Errorf("output values is a %T, want a YAML string", output.Value)
	}
	dir := t.TempDir()
	valuesFile := filepath.Join(dir, "values.yaml")
	if err := os.WriteFile(valuesFile, []byte(values), 0o600); err != nil {
		return rendering{}, err
	}
	chart, err := filepath.Abs(filepath.Join("testdata", "chart"))
	if err != nil {
		return rendering{}, err
	}
	cmd := exec.Command(helm, "template", "docs", chart, "--namespace", "docs", "--values", valuesFile,
		"--set-string", "staticExport.bundleUrl="+bundleURL)
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
		// stderr may quote values; the link is not printed as such.
		return rendering{}, fmt.Errorf("helm template: %v: %s", err, strings.ReplaceAll(stderr.String(), bundleURL, "<bundle_url>"))
	}
	r := rendering{manifest: string(out), byKind: map[string]string{}}
	for _, doc := range strings.Split(r.manifest, "\n---\n") {
		if m := manifestKind.FindStringSubmatch(doc); m != nil {
			r.byKind[m[1]] = doc
		}
	}
	return r, nil
}

var (
	manifestKind     = regexp.MustCompile(`(?m)^kind: (\S+)$`)
	secretBundleURL  = regexp.MustCompile(`(?m)^  bundleUrl: "([A-Za-z0-9+/=]*)"$`)
	archiveDigestAnn = regexp.MustCompile(`(?m)^ +docsadmin\.io/archive-sha256: "?([0-9a-f]{64})"?$`)
	versionEnv       = regexp.MustCompile(`(?m)^ +- name: STATIC_EXPORT_VERSION\n +value: "([^"]*)"$`)
)

// podTemplate is the Deployment's spec.template block, as rendered.
func (r rendering) podTemplate() string {
	var block []string
	inside := false
	for _, line := range strings.Split(r.byKind["Deployment"], "\n") {
		switch {
		case line == "  template:":
			inside = true
		case inside && line != "" && !strings.HasPrefix(line, "   "):
			inside = false
		}
		if inside {
			block = append(block, line)
		}
	}
	return strings.Join(block, "\n")
}

// secretBundleURL is the link the Secret hands to the pods.
func (r rendering) secretBundleURL() (string, error) {
	m := secretBundleURL.FindStringSubmatch(r.byKind["Secret"])
	if m == nil {
		return "", fmt.Errorf("no bundleUrl in the rendered Secret:\n%s", r.byKind["Secret"])
	}
	decoded, err := base64.StdEncoding.DecodeString(m[1])
	return string(decoded), err
}

// TestHelmValues_renderedChartRollsOnContentNotOnRenewal applies an export
// and the non-secret chart values the Helm example passes in values, renders
// the fixture chart with the link passed on its own (as set_sensitive does),
// and checks that a renewed link changes the Secret only, while a new export
// changes the pod template and so rolls the pods.
// Not parallel: it runs helm, built on first use (go build).
func TestHelmValues_renderedChartRollsOnContentNotOnRenewal(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the chart with helm end to end: slow; runs in make test")
	}
	helm := helmBinary(t)
	clock := &acctest.ShiftedClock{}
	mock := acctest.NewMock(t, mockapi.Config{LinkTTL: 2 * time.Hour, Now: clock.Now})
	// The output is not marked sensitive: Terraform refuses the
	// configuration if the values ever take in the link.
	config := func(docsCommit, rotation string) string {
		return acctest.ExportConfig(mock, fmt.Sprintf(`
  domain         = "docs.example.com"
  version        = "v2"
  renew_before   = "30m"
  triggers       = { docs_commit = %q }
  renew_triggers = { rotation = %q }`, docsCommit, rotation)) + `
output "values" {
  value = yamlencode({
    staticExport   = { enabled = true, version = "v2" }
    podAnnotations = provider::docsadmin::pod_annotations(docsadmin_static_export.site.archive_sha256)
  })
}
`
	}

	type observed struct {
		rendering
		jobID, bundleURL, archiveSHA256 string
	}
	var seen []observed
	// render renders the chart with the values output and the link in
	// state, and checks where each landed.
	render := func(s *terraform.State) error {
		attrs := s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes
		o := observed{jobID: attrs["job_id"], bundleURL: attrs["bundle_url"], archiveSHA256: attrs["archive_sha256"]}
		if o.bundleURL == "" || o.archiveSHA256 == "" {
			return fmt.Errorf("the export has no bundle_url or no archive_sha256 (%q)", o.archiveSHA256)
		}
		r, err := helmTemplate(t, helm, s, o.bundleURL)
		if err != nil {
			return err
		}
		o.rendering = r
		if got, err := r.secretBundleURL(); err != nil || got != o.bundleURL {
			return fmt.Errorf("the Secret does not hold the export's link (decoding: %v)", err)
		}
		if strings.Contains(r.byKind["Deployment"], o.bundleURL) {
			return errors.New("the link is in the Deployment; it belongs in the Secret only")
		}
		if m := archiveDigestAnn.FindStringSubmatch(r.podTemplate()); m == nil || m[1] != o.archiveSHA256 {
			return fmt.Errorf("the pod template does not carry archive_sha256 %s:\n%s", o.archiveSHA256, r.podTemplate())
		}
		if m := versionEnv.FindStringSubmatch(r.podTemplate()); m == nil || m[1] != "v2" {
			return fmt.Errorf("the pod template does not pin version v2:\n%s", r.podTemplate())
		}
		seen = append(seen, o)
		return nil
	}
	last := func(back int) observed { return seen[len(seen)-1-back] }
	unchanged := func(*terraform.State) error {
		if last(0).manifest != last(1).manifest {
			return fmt.Errorf("an unchanged apply changed the rendering:\n%s\nbecame\n%s", last(1).manifest, last(0).manifest)
		}
		return nil
	}
	// renewed: a new link to the same content reaches the Secret and
	// nothing else, so no pod restarts.
	renewed := func(*terraform.State) error {
		now, before := last(0), last(1)
		switch {
		case now.bundleURL == before.bundleURL:
			return errors.New("the renewal kept the link")
		case now.jobID != before.jobID:
			return fmt.Errorf("the renewal changed the job from %s to %s", before.jobID, now.jobID)
		case now.archiveSHA256 != before.archiveSHA256:
			return fmt.Errorf("the renewal changed archive_sha256 from %s to %s", before.archiveSHA256, now.archiveSHA256)
		case now.podTemplate() != before.podTemplate():
			return fmt.Errorf("the renewal changed the pod template, which rolls the pods:\n%s\nbecame\n%s", before.podTemplate(), now.podTemplate())
		case now.byKind["Deployment"] != before.byKind["Deployment"]:
			return errors.New("the renewal changed the Deployment")
		case now.byKind["Secret"] == before.byKind["Secret"]:
			return errors.New("the renewal left the Secret as it was: restarted pods would read the old link")
		}
		return acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") })(nil)
	}
	// reexported: new content changes the pod template, so the pods roll.
	reexported := func(*terraform.State) error {
		now, before := last(0), last(1)
		switch {
		case now.jobID == before.jobID:
			return fmt.Errorf("changing triggers kept job %s", now.jobID)
		case now.archiveSHA256 == before.archiveSHA256:
			return fmt.Errorf("the new export kept archive_sha256 %s", now.archiveSHA256)
		case now.podTemplate() == before.podTemplate():
			return errors.New("the new export left the pod template as it was: pods would not roll onto the new content")
		}
		return acctest.ExpectCount("exports started", 2, func() int { return mock.ExportsStarted("docs.example.com") })(nil)
	}
	emptyPlan := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	expect := func(action plancheck.ResourceActionType) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, action)}}
	}

	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: factories(clock),
		Steps: []resource.TestStep{
			{Config: config("a1b2c3", "r1"), Check: render},
			{Config: config("a1b2c3", "r1"), ConfigPlanChecks: emptyPlan, Check: resource.ComposeTestCheckFunc(render, unchanged)},
			{
				// A renewal forced through renew_triggers. The clock moves
				// first: links presigned within the same second are identical.
				PreConfig:        func() { clock.Advance(time.Minute) },
				Config:           config("a1b2c3", "r2"),
				ConfigPlanChecks: expect(plancheck.ResourceActionUpdate),
				Check:            resource.ComposeTestCheckFunc(render, renewed),
			},
			{Config: config("a1b2c3", "r2"), ConfigPlanChecks: emptyPlan, Check: resource.ComposeTestCheckFunc(render, unchanged)},
			{
				// A renewal that fell due: 1h40m into a 2h link.
				PreConfig:        func() { clock.Advance(100 * time.Minute) },
				Config:           config("a1b2c3", "r2"),
				ConfigPlanChecks: expect(plancheck.ResourceActionUpdate),
				Check:            resource.ComposeTestCheckFunc(render, renewed),
			},
			{
				// New content published: a new export (in place), a new pod template.
				Config:           config("d4e5f6", "r2"),
				ConfigPlanChecks: expect(plancheck.ResourceActionUpdate),
				Check:            resource.ComposeTestCheckFunc(render, reexported),
			},
			{Config: config("d4e5f6", "r2"), ConfigPlanChecks: emptyPlan, Check: resource.ComposeTestCheckFunc(render, unchanged)},
		},
	})
}
