package e2e

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// The resource page's example plans and applies on its first run, and
// again with a new commit.
func TestStaticSite_resourcePageExampleRuns(t *testing.T) {
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
			{Config: config("a1"), Check: resource.ComposeTestCheckFunc(
				resource.TestCheckResourceAttr("docsadmin_static_site.docs", "tree_intact", "true"),
				storeAsThePageShowsIt(filepath.Join(filepath.Dir(dir), ".site.docsadmin", "manifests")),
			)},
			{Config: config("b2"), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
				plancheck.ExpectResourceAction("docsadmin_static_site.docs", plancheck.ResourceActionUpdate),
			}}},
		},
	})
}

// pageRecord finds the records of a release that the resource page's tree
// of the store lists: manifests/<release><suffix>.
var pageRecord = regexp.MustCompile(`(?m)^\s+manifests/\d{8}T\d{6}Z-[0-9a-f]+(\S+)`)

// storeAsThePageShowsIt checks that the records the provider wrote for a
// release in manifests, one publication's, end as the resource page's tree
// says, and that the page lists no other.
func storeAsThePageShowsIt(manifests string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		page, err := os.ReadFile(filepath.Join("..", "..", "templates", "resources", "static_site.md.tmpl"))
		if err != nil {
			return err
		}
		listed := map[string]bool{}
		for _, m := range pageRecord.FindAllStringSubmatch(string(page), -1) {
			listed[m[1]] = true
		}
		entries, err := os.ReadDir(manifests)
		if err != nil {
			return err
		}
		written := map[string]bool{}
		for _, e := range entries {
			if m := regexp.MustCompile(`^\d{8}T\d{6}Z-[0-9a-f]+(\S+)$`).FindStringSubmatch(e.Name()); m != nil {
				written[m[1]] = true
			} else {
				return fmt.Errorf("manifests/ holds %q, which is no release's record", e.Name())
			}
		}
		if len(written) == 0 || !maps.Equal(written, listed) {
			return fmt.Errorf("the provider wrote records ending %v for a release, the page lists %v", slices.Sorted(maps.Keys(written)), slices.Sorted(maps.Keys(listed)))
		}
		return nil
	}
}
