package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// writeOnlyRevisionLogic is the part of the write-only Helm example that
// decides set_wo_revision: its locals, its terraform_data and the
// expression, read from the example itself so that the test proves what
// users copy.
type writeOnlyRevisionLogic struct {
	blocks, revision string
}

func readWriteOnlyRevisionLogic(t *testing.T) writeOnlyRevisionLogic {
	t.Helper()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	content, err := os.ReadFile(filepath.Join(root, "examples", "pipelines", "helm", "write-only", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	example := string(content)
	var logic writeOnlyRevisionLogic
	for _, opening := range []string{"locals {", `resource "terraform_data" "release_revision" {`} {
		start := strings.Index(example, "\n"+opening+"\n")
		if start < 0 {
			t.Fatalf("the write-only example has no top-level %s", opening)
		}
		end := strings.Index(example[start:], "\n}\n")
		if end < 0 {
			t.Fatalf("the write-only example's %s is not closed", opening)
		}
		logic.blocks += example[start:start+end+3] + "\n"
	}
	m := regexp.MustCompile(`(?m)^\s*set_wo_revision\s*=\s*(.+)$`).FindStringSubmatch(example)
	if m == nil {
		t.Fatal("the write-only example sets no set_wo_revision")
	}
	logic.revision = m[1]
	return logic
}

// TestAccHelmWriteOnlyRevision_risesOnEveryInputChange applies the write-only
// example's revision logic (without helm_release, which needs a cluster)
// against the mock: the revision must stay put while nothing changes, and
// rise, already known in the plan, whenever any input of the release
// changes, including a change back to an earlier value.
func TestAccHelmWriteOnlyRevision_risesOnEveryInputChange(t *testing.T) {
	logic := readWriteOnlyRevisionLogic(t)
	mock := newMock(t, mockapi.Config{})
	type inputs struct{ chartVersion, docsCommit, rotation string }
	config := func(in inputs) string {
		return providerConfig(mock, "") + fmt.Sprintf(`
variable "chart_repository" {
  default = "oci://registry.example.com/charts"
}

variable "chart_version" {
  default = %q
}

resource "docsadmin_static_export" "docs" {
  domain         = "docs.example.com"
  triggers       = { docs_commit = %q }
  renew_triggers = { rotation = %q }
}
`, in.chartVersion, in.docsCommit, in.rotation) + logic.blocks + `
output "revision" {
  value = ` + logic.revision + `
}
`
	}

	var revisions []int64
	record := func(v int64) error {
		revisions = append(revisions, v)
		return nil
	}
	// rises checks, in the plan, that the coming revision is known and
	// higher than the last one applied.
	rises := func(v int64) error {
		if last := revisions[len(revisions)-1]; v <= last {
			return fmt.Errorf("revision %d is not higher than %d", v, last)
		}
		return nil
	}
	same := func(v int64) error {
		if last := revisions[len(revisions)-1]; v != last {
			return fmt.Errorf("revision went from %d to %d with no input changed", last, v)
		}
		return nil
	}
	// The revision has a resolution of one second: let the clock pass one
	// before a plan that must raise it.
	nextSecond := func() {
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
	}
	changed := func(in inputs, export plancheck.ResourceActionType) resource.TestStep {
		return resource.TestStep{
			PreConfig: nextSecond,
			Config:    config(in),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("docsadmin_static_export.docs", export),
				plancheck.ExpectResourceAction("terraform_data.release_revision", plancheck.ResourceActionReplace),
				plancheck.ExpectKnownOutputValue("revision", knownvalue.Int64Func(rises)),
			}},
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownOutputValue("revision", knownvalue.Int64Func(record))},
		}
	}
	unchanged := func(in inputs) resource.TestStep {
		return resource.TestStep{
			PreConfig:         nextSecond,
			Config:            config(in),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownOutputValue("revision", knownvalue.Int64Func(same))},
		}
	}

	first := inputs{chartVersion: "1.0.0", docsCommit: "a1b2c3", rotation: "r1"}
	newChart := first
	newChart.chartVersion = "1.1.0"
	renewed := newChart
	renewed.rotation = "r2"
	reexported := renewed
	reexported.docsCommit = "d4e5f6"
	rolledBack := reexported
	rolledBack.chartVersion = "1.0.0"

	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config:            config(first),
				ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectKnownOutputValue("revision", knownvalue.NotNull())}},
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownOutputValue("revision", knownvalue.Int64Func(record))},
			},
			unchanged(first),
			changed(newChart, plancheck.ResourceActionNoop),
			unchanged(newChart),
			changed(renewed, plancheck.ResourceActionUpdate),
			changed(reexported, plancheck.ResourceActionReplace),
			unchanged(reexported),
			// Back to an earlier chart version: still a higher revision.
			changed(rolledBack, plancheck.ResourceActionNoop),
		},
	})
}
