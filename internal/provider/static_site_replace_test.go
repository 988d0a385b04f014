package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-exec/tfexec"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// refusedUnderCreateBeforeDestroy is the refusal of a replacement whose new
// object meets the directory the old one still publishes.
var refusedUnderCreateBeforeDestroy = regexp.MustCompile(`(?s)is\s+published\s+by\s+another\s+docsadmin_static_site.*most\s+likely\s+the\s+object\s+this\s+resource\s+replaces.*create_before_destroy\s+cannot\s+take\s+the\s+directory\s+over.*remove\s+create_before_destroy`)

// cliSiteModule writes a configuration of one export and its site at dir,
// with lifecycle inside the site's block, for the built provider that
// runner installs, pointed at mock.
func cliSiteModule(t *testing.T, runner *tfrunner.Runner, mock *mockapi.Server, dir, lifecycle string) *tfexec.Terraform {
	t.Helper()
	tf, err := runner.Module(filepath.Join(t.TempDir(), "module"), map[string][]byte{"main.tf": []byte(fmt.Sprintf(`terraform {
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin" }
  }
}

provider "docsadmin" {}

resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}

resource "docsadmin_static_site" "site" {
  job_id    = docsadmin_static_export.site.job_id
  directory = %q
  %s
}
`, dir, lifecycle))}, map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	return tf
}

// TestAccStaticSite_cliReplace runs `terraform apply -replace` as a user
// does (terraform-plugin-testing has no -replace). Without
// create_before_destroy the old site is withdrawn and a new publication,
// with a new id, is served. With create_before_destroy the new object meets the directory
// the old one publishes: the apply is refused, saying what to do, and the
// old site, its id and the state stay as they were.
func TestAccStaticSite_cliReplace(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC is not set: acceptance tests run the terraform CLI")
	}
	runner := acctest.CLIRunner(t)
	for _, cbd := range []bool{false, true} {
		t.Run(fmt.Sprintf("create_before_destroy=%v", cbd), func(t *testing.T) {
			mock := acctest.NewMock(t, mockapi.Config{})
			parent := t.TempDir()
			dir := filepath.Join(parent, "site")
			if err := os.WriteFile(filepath.Join(parent, "notes.txt"), []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			lifecycle := ""
			if cbd {
				lifecycle = "lifecycle {\n    create_before_destroy = true\n  }"
			}
			tf := cliSiteModule(t, runner, mock, dir, lifecycle)
			ctx := t.Context()
			stateID := func() string {
				t.Helper()
				s, err := tf.Show(ctx)
				if err != nil {
					t.Fatal(err)
				}
				v, err := valuesOf(s, siteAddress)
				if err != nil {
					t.Fatal(err)
				}
				return text(v["id"])
			}
			if err := tf.Apply(ctx); err != nil {
				t.Fatalf("apply: %v", err)
			}
			oldID, oldTarget := stateID(), linkTarget(t, dir)
			if err := servedBy(dir, oldID); err != nil {
				t.Fatal(err)
			}

			out := tfrunner.Record(tf)
			err := tf.Apply(ctx, tfexec.Replace(siteAddress))
			transcript := out.String()
			if !cbd {
				if err != nil {
					t.Fatalf("apply -replace: %v\n%s", err, transcript)
				}
				newID := stateID()
				if newID == oldID || newID == "" {
					t.Errorf("the replacement's id is %q, the old one's %q: want a new one", newID, oldID)
				}
				if target := linkTarget(t, dir); target == oldTarget {
					t.Errorf("the link still points to the old release %s", target)
				}
				if err := servedBy(dir, newID); err != nil {
					t.Error(err)
				}
			} else {
				if err == nil {
					t.Fatalf("apply -replace under create_before_destroy succeeded; want it refused:\n%s", transcript)
				}
				if !refusedUnderCreateBeforeDestroy.MatchString(transcript) {
					t.Errorf("the refusal does not say what to do:\n%s", transcript)
				}
				if id := stateID(); id != oldID {
					t.Errorf("after the refused replacement the state's id is %q, want %q", id, oldID)
				}
				if target := linkTarget(t, dir); target != oldTarget {
					t.Errorf("the link moved from %s to %s", oldTarget, target)
				}
				if err := servedBy(dir, oldID); err != nil {
					t.Error(err)
				}
			}
			changes, err := tf.Plan(ctx)
			if err != nil || changes {
				t.Errorf("the plan after apply -replace has changes (%v) or failed: %v\n%s", changes, err, out.String())
			}
		})
	}
}

// replace_triggered_by replaces the site as -replace does: without
// create_before_destroy a new publication with a new id is served; with it
// the apply is refused and the old site stays, with its id.
func TestAccStaticSite_replaceTriggeredBy(t *testing.T) {
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
