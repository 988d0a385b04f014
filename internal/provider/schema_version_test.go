package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// No release has been made, so no state of an earlier schema exists to be
// upgraded: every resource's schema and identity are at version 0, with no
// upgrader. A schema change after the first release bumps the version and
// adds an upgrader from every earlier version (the framework does not chain
// them) and a row in internal/e2e's upgrade test; this test then holds
// every version above 0 to its upgraders (see "Compatibility and upgrades"
// in DESIGN.md).
func TestSchemaVersionsAreZero(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	p := New("test")()
	for _, newResource := range p.Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "docsadmin"}, &meta)
		name := meta.TypeName

		var schema resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &schema)
		if schema.Diagnostics.HasError() {
			t.Fatalf("%s: %v", name, schema.Diagnostics)
		}
		if v := schema.Schema.Version; v != 0 {
			t.Errorf("%s is at schema version %d; before the first release every schema is at 0", name, v)
		}
		if _, ok := r.(resource.ResourceWithUpgradeState); ok {
			t.Errorf("%s has state upgraders; no release wrote a state of an earlier schema", name)
		}

		withIdentity, ok := r.(resource.ResourceWithIdentity)
		if !ok {
			continue
		}
		var identity resource.IdentitySchemaResponse
		withIdentity.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &identity)
		if v := identity.IdentitySchema.Version; v != 0 {
			t.Errorf("%s's identity is at version %d; before the first release every identity schema is at 0", name, v)
		}
		if _, ok := r.(resource.ResourceWithUpgradeIdentity); ok {
			t.Errorf("%s has identity upgraders; no release wrote an identity of an earlier schema", name)
		}
	}
}
