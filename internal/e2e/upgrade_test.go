package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"
	tfjson "github.com/hashicorp/terraform-json"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// Upgrades never surprise: state written by an earlier release is taken over
// by this build without a replacement and without a second export, with at
// most an in-place update, after which the plan is empty. Each row installs a
// build of an earlier revision of this repository from a filesystem mirror,
// as a user installs a release, applies its configuration against the mock of
// this tree, then upgrades to this tree's build (terraform init -upgrade),
// plans and applies, and plans again. It runs on the acceptance CLI
// (TF_ACC_TERRAFORM_PATH, else terraform on PATH), so CI runs it on every
// engine it tests.
//
// No release has been made yet, and state of a development build is not
// migrated (CHANGELOG), so the one row upgrades from the commit checked out
// (HEAD) to this tree: it keeps the machinery working. Each release adds a
// row with its tag (v0.1.0 first), and a change of a resource's schema after
// it adds one too: the last release before the change, a configuration that
// uses what changed, and what the upgrade may do. See "Compatibility and
// upgrades" in DESIGN.md.

// upgradeCase is one earlier release and what upgrading from it may do.
type upgradeCase struct {
	// rev is a revision of this repository, as git names it; its build is
	// installed as version tfrunner.RevisionVersion(rev).
	rev string
	// what the revision's state lacks or has that this build changes.
	what string
	// config is the root module both builds apply; "provider" settings come
	// from the environment.
	config string
	// mock configures the mock both builds apply against.
	mock mockapi.Config
	// renamedConfig, when set, is config as a user rewrites it for this
	// build after a rename, before the first plan with it.
	renamedConfig string
	// domains are the domains of the exports config starts: each is
	// exported once, by the earlier build, and never again.
	domains []string
	// mayUpdate are the resources the upgrade may update in place; every
	// other resource must plan no change.
	mayUpdate []string
	// hadIdentity says whether the earlier build records a resource
	// identity (Terraform 1.12+); this build records one either way.
	hadIdentity bool
	// noDownload says that the upgrade downloads no archive.
	noDownload bool
	// check, when set, checks the state after the upgrade's apply.
	check func(t *testing.T, state *tfjson.State)
}

var upgradeCases = []upgradeCase{
	{
		rev:  "HEAD",
		what: "the commit checked out: every resource that keeps state on disk or at the API plans no change",
		config: upgradeRequiredProviders + `
resource "docsadmin_static_export" "site" {
  domain         = "docs.example.com"
  triggers       = { docs_commit = "abc123" }
  renew_triggers = { rotated = "2026-11-23" }
}

resource "docsadmin_static_export_file" "copy" {
  job_id   = docsadmin_static_export.site.job_id
  filename = "${path.module}/site.tar.gz"
}

resource "docsadmin_static_site" "site" {
  job_id          = docsadmin_static_export.site.job_id
  directory       = "${path.module}/dist/site"
  expected_sha256 = docsadmin_static_export.site.archive_sha256
}

resource "docsadmin_agent_job" "fix" {
  project_id = "proj_1"
  prompt     = "Fix the typos"
  triggers   = { release = "1.0.0" }
  wait       = true
}
`,
		// The job completes soon, so that the earlier build's wait ends.
		mock:        mockapi.Config{AgentJobOutcome: mockapi.AgentCompleted, AgentJobDuration: time.Second},
		domains:     []string{"docs.example.com"},
		hadIdentity: true,
		noDownload:  true,
	},
}

const upgradeRequiredProviders = `terraform {
  required_providers {
    docsadmin = {
      source = "docsadmin/docsadmin"
    }
  }
}

provider "docsadmin" {}
`

// upgradeVersion is the version under which this tree's build is mirrored.
const upgradeVersion = "0.0.2-current"

func TestAccUpgrade_fromEarlierRevisions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds earlier revisions and upgrades from them: slow; runs in make test")
	}
	acctest.RequireCLI(t)
	// This tree's build, mirrored once for every row.
	current, err := tfrunner.New(acctest.CLI(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	currentInst, err := current.BuildMirror(t.Context(), upgradeVersion)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built this tree as %s in %s", upgradeVersion, time.Since(start).Round(time.Millisecond))
	if err := current.Install(currentInst); err != nil {
		t.Fatal(err)
	}
	identities := acceptsIdentityImports(t, current)

	acctest.RunSubtests(t, upgradeCases, func(c upgradeCase) string { return c.rev }, func(t *testing.T, c upgradeCase) {
		testUpgrade(t, c, currentInst, identities)
	})
}

func testUpgrade(t *testing.T, c upgradeCase, currentInst tfrunner.Installation, identities bool) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	t.Logf("upgrading from %s: %s", c.rev, c.what)
	if c.rev == "HEAD" {
		// Built under a commit id: a version's prerelease part is read
		// in lower case, which "HEAD" is not.
		root, err := tfrunner.ModuleRoot()
		if err != nil {
			t.Fatal(err)
		}
		commit, err := tfrunner.ResolveRevision(ctx, root, c.rev)
		if err != nil {
			t.Fatal(err)
		}
		c.rev = commit[:12]
	}

	earlier, err := tfrunner.New(acctest.CLI(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	inst, err := earlier.RevisionMirror(ctx, c.rev)
	if err != nil {
		t.Fatalf("the build of revision %s: %v", c.rev, err)
	}
	t.Logf("%s (%s)", inst, time.Since(start).Round(time.Millisecond))
	if err := earlier.Install(inst); err != nil {
		t.Fatal(err)
	}

	mock := acctest.NewMock(t, c.mock)
	env := map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey}
	work := t.TempDir()
	acctest.WriteFile(t, filepath.Join(work, "main.tf"), c.config)

	// The earlier release: init from its mirror, apply.
	out := &tfrunner.Transcript{}
	if err := earlier.Init(ctx, work, out, out); err != nil {
		t.Fatalf("init with revision %s: %v\n%s", c.rev, err, out)
	}
	if said := out.String(); !strings.Contains(said, "docsadmin/docsadmin v"+inst.Version()) {
		t.Fatalf("init did not install %s from the mirror:\n%s", inst.Version(), said)
	}
	tf, err := earlier.Workdir(work, env)
	if err != nil {
		t.Fatal(err)
	}
	out = tfrunner.Record(tf)
	if err := tf.Apply(ctx); err != nil {
		t.Fatalf("apply with revision %s against this tree's mock: %v\n%s", c.rev, err, out)
	}
	before, err := tf.Show(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, domain := range c.domains {
		if n := mock.ExportsStarted(domain); n != 1 {
			t.Fatalf("revision %s started %d exports of %s, want 1:\n%s", c.rev, n, domain, out)
		}
	}
	checkIdentities(t, "revision "+c.rev, before, identities && c.hadIdentity)
	downloads := mock.Downloads()

	// This tree's build: init -upgrade moves the lock file to it, as a user
	// upgrades to a new release.
	upgraded, err := tfrunner.New(acctest.CLI(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := upgraded.Install(currentInst); err != nil {
		t.Fatal(err)
	}
	out = &tfrunner.Transcript{}
	if err := upgraded.Init(ctx, work, out, out, tfexec.Upgrade(true)); err != nil {
		t.Fatalf("init -upgrade to this tree's build: %v\n%s", err, out)
	}
	if said := out.String(); !strings.Contains(said, "docsadmin/docsadmin v"+upgradeVersion) {
		t.Fatalf("init -upgrade did not install %s:\n%s", upgradeVersion, said)
	}
	if c.renamedConfig != "" {
		acctest.WriteFile(t, filepath.Join(work, "main.tf"), c.renamedConfig)
	}
	tf, err = upgraded.Workdir(work, env)
	if err != nil {
		t.Fatal(err)
	}
	out = tfrunner.Record(tf)
	planFile := filepath.Join(work, "upgrade.tfplan")
	if _, err := tf.Plan(ctx, tfexec.Out(planFile)); err != nil {
		t.Fatalf("the first plan after the upgrade: %v\n%s", err, out)
	}
	plan, err := tf.ShowPlanFile(ctx, planFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, rc := range plan.ResourceChanges {
		if rc.Mode != tfjson.ManagedResourceMode || rc.Change == nil {
			continue
		}
		switch actions := rc.Change.Actions; {
		case actions.NoOp():
		case actions.Update() && slices.Contains(c.mayUpdate, rc.Address):
			t.Logf("%s: updated in place, as the row allows: %s", rc.Address, changedAttributes(rc.Change))
		default:
			t.Errorf("upgrading from %s plans %v for %s (the row allows %s); changed: %s",
				c.rev, actions, rc.Address, allowed(c.mayUpdate, rc.Address), changedAttributes(rc.Change))
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	if err := tf.Apply(ctx, tfexec.DirOrPlan(planFile)); err != nil {
		t.Fatalf("applying the upgrade's plan: %v\n%s", err, out)
	}
	for _, domain := range c.domains {
		if n := mock.ExportsStarted(domain); n != 1 {
			t.Errorf("after the upgrade the API has started %d exports of %s, want the earlier build's 1", n, domain)
		}
	}

	// Then nothing is left to do.
	if err := os.Remove(planFile); err != nil {
		t.Fatal(err)
	}
	changes, err := tf.Plan(ctx, tfexec.Out(planFile))
	if err != nil {
		t.Fatalf("the plan after the upgrade's apply: %v\n%s", err, out)
	}
	if changes {
		plan, err := tf.ShowPlanFile(ctx, planFile)
		if err != nil {
			t.Fatal(err)
		}
		var changed []string
		for _, rc := range plan.ResourceChanges {
			if rc.Change != nil && !rc.Change.Actions.NoOp() {
				changed = append(changed, fmt.Sprintf("%s %v (%s)", rc.Address, rc.Change.Actions, changedAttributes(rc.Change)))
			}
		}
		t.Errorf("the plan after the upgrade is not empty: %s", strings.Join(changed, "; "))
	}
	after, err := tf.Show(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkIdentities(t, "this tree's build", after, identities)
	if c.noDownload && mock.Downloads() != downloads {
		t.Errorf("the upgrade downloaded %d archives, want none", mock.Downloads()-downloads)
	}
	if c.check != nil {
		c.check(t, after)
	}
	for _, domain := range c.domains {
		if n := mock.ExportsStarted(domain); n != 1 {
			t.Errorf("the API has started %d exports of %s in all, want 1", n, domain)
		}
	}
}

// checkIdentities checks every docsadmin_static_export in state: with an
// identity naming its domain and job when want, else without one.
func checkIdentities(t *testing.T, who string, state *tfjson.State, want bool) {
	t.Helper()
	if state.Values == nil {
		t.Fatalf("%s left an empty state", who)
	}
	n := 0
	for _, r := range state.Values.RootModule.Resources {
		if r.Type != "docsadmin_static_export" || r.Mode != tfjson.ManagedResourceMode {
			continue
		}
		n++
		switch {
		case !want && len(r.IdentityValues) > 0:
			t.Errorf("%s recorded an identity for %s: %v; the row says it has none", who, r.Address, r.IdentityValues)
		case want && (r.IdentityValues["domain"] != r.AttributeValues["domain"] || r.IdentityValues["job_id"] != r.AttributeValues["job_id"]):
			t.Errorf("%s recorded the identity %v for %s (domain %v, job %v)", who, r.IdentityValues, r.Address, r.AttributeValues["domain"], r.AttributeValues["job_id"])
		}
	}
	if n == 0 {
		t.Errorf("%s left no docsadmin_static_export in state", who)
	}
}

func allowed(mayUpdate []string, address string) string {
	if slices.Contains(mayUpdate, address) {
		return "an update in place"
	}
	return "no change"
}

// changedAttributes names the attributes a change sets to another value,
// or leaves unknown until apply.
func changedAttributes(c *tfjson.Change) string {
	before, _ := c.Before.(map[string]any)
	after, _ := c.After.(map[string]any)
	unknown, _ := c.AfterUnknown.(map[string]any)
	var names []string
	seen := map[string]bool{}
	for _, m := range []map[string]any{before, after, unknown} {
		for name := range m {
			if seen[name] {
				continue
			}
			seen[name] = true
			if unknown[name] == true {
				names = append(names, name+" (known after apply)")
			} else if fmt.Sprint(before[name]) != fmt.Sprint(after[name]) {
				names = append(names, fmt.Sprintf("%s: %v -> %v", name, redactBundleURL(name, before[name]), redactBundleURL(name, after[name])))
			}
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}

func redactBundleURL(name string, v any) any {
	if name == "bundle_url" && v != nil {
		return "(a link)"
	}
	return v
}
