package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// A schema version above 0 must come with an upgrader from every earlier
// version to it, for the resource's state and for its identity: the
// framework does not chain upgraders, and a state it cannot upgrade fails
// every plan after the upgrade (see "Compatibility and upgrades" in
// DESIGN.md).
func TestSchemaVersionsHaveUpgraders(t *testing.T) {
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
		if v := schema.Schema.Version; v > 0 {
			u, ok := r.(resource.ResourceWithUpgradeState)
			if !ok {
				t.Errorf("%s is at schema version %d and has no state upgraders (resource.ResourceWithUpgradeState)", name, v)
			} else {
				upgraders := u.UpgradeState(ctx)
				for from := range v {
					if _, ok := upgraders[from]; !ok {
						t.Errorf("%s is at schema version %d and cannot upgrade a state of version %d", name, v, from)
					}
				}
			}
		}

		withIdentity, ok := r.(resource.ResourceWithIdentity)
		if !ok {
			continue
		}
		var identity resource.IdentitySchemaResponse
		withIdentity.IdentitySchema(ctx, resource.IdentitySchemaRequest{}, &identity)
		if v := identity.IdentitySchema.Version; v > 0 {
			u, ok := r.(resource.ResourceWithUpgradeIdentity)
			if !ok {
				t.Errorf("%s's identity is at version %d and has no identity upgraders (resource.ResourceWithUpgradeIdentity)", name, v)
				continue
			}
			upgraders := u.UpgradeIdentity(ctx)
			for from := range v {
				if _, ok := upgraders[from]; !ok {
					t.Errorf("%s's identity is at version %d and cannot upgrade an identity of version %d", name, v, from)
				}
			}
		}
	}
}
