package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// refusedUnderCreateBeforeDestroy is the refusal of a replacement whose new
// object meets the directory the old one still publishes.
var refusedUnderCreateBeforeDestroy = regexp.MustCompile(`(?s)is\s+published\s+by\s+another\s+docsadmin_static_site.*most\s+likely\s+the\s+object\s+this\s+resource\s+replaces.*create_before_destroy\s+cannot\s+take\s+the\s+directory\s+over.*remove\s+create_before_destroy`)

// replace_triggered_by replaces the site as -replace does: without
// create_before_destroy a new publication with a new id is served; with it
// the apply is refused and the old site stays, with its id.
func TestStaticSite_replaceTriggeredBy(t *testing.T) {
	t.Parallel()
	for _, cbd := range []bool{false, true} {
		t.Run(fmt.Sprintf("create_before_destroy=%v", cbd), func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{})
			parent := t.TempDir()
			dir := filepath.Join(parent, "site")
			if err := os.WriteFile(filepath.Join(parent, "notes.txt"), []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			lifecycle := "replace_triggered_by = [terraform_data.trigger]"
			if cbd {
				lifecycle += "\n    create_before_destroy = true"
			}
			config := func(trigger string) string {
				return acctest.ExportConfig(mock, `  domain = "docs.example.com"`) + fmt.Sprintf(`
resource "terraform_data" "trigger" {
  input = %q
}

resource "docsadmin_static_site" "site" {
  job_id    = docsadmin_static_export.site.job_id
  directory = %q
  lifecycle {
    %s
  }
}
`, trigger, dir, lifecycle)
			}
			var oldID, oldTarget, newID string
			first := resource.TestStep{
				Config: config("a"),
				Check: resource.ComposeTestCheckFunc(captureAttr(siteAddress, "id", &oldID), func(*terraform.State) error {
					oldTarget = linkTarget(t, dir)
					return servedBy(dir, oldID)
				}),
			}
			unchanged := func(*terraform.State) error {
				if target := linkTarget(t, dir); target != oldTarget {
					return fmt.Errorf("the link moved from %s to %s", oldTarget, target)
				}
				return servedBy(dir, oldID)
			}
			steps := []resource.TestStep{first}
			if !cbd {
				steps = append(steps, resource.TestStep{
					Config: config("b"),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(siteAddress, plancheck.ResourceActionDestroyBeforeCreate),
					}},
					Check: resource.ComposeTestCheckFunc(captureAttr(siteAddress, "id", &newID), func(*terraform.State) error {
						if newID == oldID {
							return fmt.Errorf("the replacement kept the id %s", oldID)
						}
						if target := linkTarget(t, dir); target == oldTarget {
							return fmt.Errorf("the link still points to the old release %s", target)
						}
						return servedBy(dir, newID)
					}),
				})
			} else {
				steps = append(steps,
					resource.TestStep{Config: config("b"), ExpectError: refusedUnderCreateBeforeDestroy},
					resource.TestStep{Config: config("b"), Check: resource.ComposeTestCheckFunc(resource.TestCheckResourceAttrPtr(siteAddress, "id", &oldID), unchanged)},
				)
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps:                    steps,
				CheckDestroy: func(*terraform.State) error {
					entries, err := os.ReadDir(parent)
					if err != nil {
						return err
					}
					if len(entries) != 1 || entries[0].Name() != "notes.txt" {
						return fmt.Errorf("destroy left %d entries beside the user's file", len(entries))
					}
					return nil
				},
			})
		})
	}
}
