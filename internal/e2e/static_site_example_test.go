package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// The resource page's example plans and applies on its first run, and
// again with a new commit.
func TestAccStaticSite_resourcePageExampleRuns(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "..", "examples", "resources", "docsadmin_static_site", "resource.tf"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "dist", "site")
	body := strings.Replace(string(example), `"${path.module}/dist/site"`, fmt.Sprintf("%q", dir), 1)
	if body == string(example) {
		t.Fatal("the example no longer publishes at ${path.module}/dist/site")
	}
	mock := acctest.NewMock(t, mockapi.Config{})
	config := func(commit string) string {
		return acctest.ProviderConfig(mock, "") + strings.Replace(body, "type = string", fmt.Sprintf("type = string\n  default = %q", commit), 1)
	}
	resource.ParallelTest(t, resource.TestCase{
		IsUnitTest:               true,
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{
			{Config: config("a1"), Check: resource.TestCheckResourceAttr("docsadmin_static_site.docs", "tree_intact", "true")},
			{Config: config("b2"), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("docsadmin_static_site.docs", plancheck.ResourceActionUpdate),
			}}},
		},
	})
}
