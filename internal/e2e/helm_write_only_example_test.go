package e2e

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

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// writeOnlyRevisionLogic is the part of the write-only Helm example that
// decides set_wo_revision: its locals, its docsadmin_static_export (whose
// renew_triggers follow the release's other inputs) and the expression, read
// from the example itself so that the test proves what users copy.
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
	for _, opening := range []string{"locals {", `resource "docsadmin_static_export" "docs" {`} {
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

// TestHelmWriteOnlyRevision_risesOnEveryInputChange applies the write-only
// example's revision logic (without helm_release, which needs a cluster)
// against the mock: the revision must stay put while nothing changes, and be
// higher after an apply whenever any input of the release changed (the chart
// version, also back to an earlier one; a renewal that fell due; a new
// export). The helm provider sends set_wo only on such a rise.
func TestHelmWriteOnlyRevision_risesOnEveryInputChange(t *testing.T) {
	logic := readWriteOnlyRevisionLogic(t)
	clock := &acctest.ShiftedClock{}
	mock := acctest.NewMock(t, mockapi.Config{LinkTTL: 24 * time.Hour, Now: clock.Now})
	type inputs struct{ chartVersion, docsCommit string }
	config := func(in inputs) string {
		return acctest.ProviderConfig(mock, "") + fmt.Sprintf(`
variable "docs_domain" {
  default = "docs.example.com"
}

variable "docs_commit" {
  default = %q
}

variable "chart_repository" {
  default = "oci://registry.example.com/charts"
}

variable "chart_version" {
  default = %q
}
`, in.docsCommit, in.chartVersion) + logic.blocks + `
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
	risen := func(v int64) error {
		if last := revisions[len(revisions)-1]; v <= last {
			return fmt.Errorf("revision %d is not higher than %d", v, last)
		}
		return record(v)
	}
	same := func(v int64) error {
		if last := revisions[len(revisions)-1]; v != last {
			return fmt.Errorf("revision went from %d to %d with no input changed", last, v)
		}
		return nil
	}
	// changed plans a change of the export (a new link) and a revision the
	// plan cannot know yet, which helm_release sees as a change; after the
	// apply the revision is higher.
	changed := func(in inputs, export plancheck.ResourceActionType, before func()) resource.TestStep {
		return resource.TestStep{
			PreConfig: before,
			Config:    config(in),
			ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("docsadmin_static_export.docs", export),
				plancheck.ExpectUnknownOutputValue("revision"),
			}},
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownOutputValue("revision", knownvalue.Int64Func(risen))},
		}
	}
	unchanged := func(in inputs) resource.TestStep {
		return resource.TestStep{
			Config:            config(in),
			ConfigPlanChecks:  resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownOutputValue("revision", knownvalue.Int64Func(same))},
		}
	}
	// Past renew_before = "12h" of a 24-hour link: a renewal falls due.
	renewalDue := func() { clock.Advance(13 * time.Hour) }

	first := inputs{chartVersion: "1.0.0", docsCommit: "a1b2c3"}
	newChart := first
	newChart.chartVersion = "1.1.0"
	reexported := newChart
	reexported.docsCommit = "d4e5f6"
	rolledBack := reexported
	rolledBack.chartVersion = "1.0.0"

	resource.ParallelTest(t, resource.TestCase{
		IsUnitTest:               true,
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: factories(clock),
		Steps: []resource.TestStep{
			{
				Config:            config(first),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownOutputValue("revision", knownvalue.Int64Func(record))},
			},
			unchanged(first),
			changed(newChart, plancheck.ResourceActionUpdate, nil),
			unchanged(newChart),
			changed(newChart, plancheck.ResourceActionUpdate, renewalDue),
			unchanged(newChart),
			changed(reexported, plancheck.ResourceActionUpdate, nil), // a new export, in place
			unchanged(reexported),
			// Back to an earlier chart version: still a higher revision.
			changed(rolledBack, plancheck.ResourceActionUpdate, nil),
			unchanged(rolledBack),
		},
	})
	if len(revisions) != 5 {
		t.Fatalf("%d revisions recorded, want 5: %v", len(revisions), revisions)
	}
}
