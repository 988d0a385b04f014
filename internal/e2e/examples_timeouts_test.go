package e2e

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/provider"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// resourcesWithUpdateTimeout lists the provider's resource types whose
// timeouts block has update: those whose update can start work (a new
// export, a deployment, a publication), as their schemas say.
func resourcesWithUpdateTimeout(t *testing.T) []string {
	t.Helper()
	ctx := context.Background()
	var names []string
	for _, newResource := range provider.New("test")().Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "docsadmin"}, &meta)
		var schema resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &schema)
		block, ok := schema.Schema.Blocks["timeouts"]
		if !ok {
			continue
		}
		if _, ok := block.GetNestedObject().GetAttributes()["update"]; ok {
			names = append(names, meta.TypeName)
		}
	}
	return names
}

// TestExamplesBoundUpdateWhereTheyBoundCreate reads every example: a
// resource whose update can start work and whose timeouts block sets
// create sets update too, since a new export or deployment for changed
// triggers is an update, bounded by update alone.
func TestExamplesBoundUpdateWhereTheyBoundCreate(t *testing.T) {
	t.Parallel()
	types := resourcesWithUpdateTimeout(t)
	for _, want := range []string{"docsadmin_static_export", "docsadmin_deployment"} {
		if !slices.Contains(types, want) {
			t.Fatalf("the schemas give %v a timeouts.update; want %s among them", types, want)
		}
	}
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(filepath.Join(root, "examples"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".tf") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		file, diags := hclsyntax.ParseConfig(src, rel, hcl.InitialPos)
		if diags.HasErrors() {
			t.Errorf("%s: %s", rel, diags.Error())
			return nil
		}
		for _, block := range file.Body.(*hclsyntax.Body).Blocks {
			if block.Type != "resource" || len(block.Labels) != 2 || !slices.Contains(types, block.Labels[0]) {
				continue
			}
			for _, inner := range block.Body.Blocks {
				if inner.Type != "timeouts" {
					continue
				}
				checked++
				_, create := inner.Body.Attributes["create"]
				_, update := inner.Body.Attributes["update"]
				if create && !update {
					t.Errorf("%s:%d: %s.%s bounds create but not update, which bounds its every later export, deployment or publication",
						rel, inner.TypeRange.Start.Line, block.Labels[0], block.Labels[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("found no timeouts block of such a resource in the examples")
	}
}
