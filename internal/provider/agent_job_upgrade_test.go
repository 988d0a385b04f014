package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A docsadmin_agent_job state of schema version 0, as an earlier build wrote
// it, upgrades through the provider's server as Terraform asks for it: the
// value of wait_for_final_status becomes wait, and everything else is kept.
func TestAgentJobStateUpgradeFromV0(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      map[string]tftypes.Value
	}{
		{
			name: "waiting, with triggers and timeouts",
			raw: `{"id":"aj_3f9a2c1b8e7d4a06","project_id":"proj_1","prompt":"Fix the typos","triggers":{"release":"1.0.0"},` +
				`"wait_for_final_status":true,"status":"completed","pr_link":"https://github.com/example/docs/pull/9",` +
				`"model":"gpt-large","created_at":"2026-11-20T10:00:00Z","timeouts":{"create":"30m"}}`,
			want: map[string]tftypes.Value{
				"id":         tftypes.NewValue(tftypes.String, "aj_3f9a2c1b8e7d4a06"),
				"project_id": tftypes.NewValue(tftypes.String, "proj_1"),
				"prompt":     tftypes.NewValue(tftypes.String, "Fix the typos"),
				"triggers": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String},
					map[string]tftypes.Value{"release": tftypes.NewValue(tftypes.String, "1.0.0")}),
				"wait":       tftypes.NewValue(tftypes.Bool, true),
				"status":     tftypes.NewValue(tftypes.String, "completed"),
				"pr_link":    tftypes.NewValue(tftypes.String, "https://github.com/example/docs/pull/9"),
				"model":      tftypes.NewValue(tftypes.String, "gpt-large"),
				"created_at": tftypes.NewValue(tftypes.String, "2026-11-20T10:00:00Z"),
				"timeouts": tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"create": tftypes.String}},
					map[string]tftypes.Value{"create": tftypes.NewValue(tftypes.String, "30m")}),
			},
		},
		{
			name: "not waiting, nothing optional set",
			raw: `{"id":"aj_1","project_id":"proj_1","prompt":"Fix the typos","triggers":null,"wait_for_final_status":false,` +
				`"status":"active","pr_link":null,"model":null,"created_at":null,"timeouts":null}`,
			want: map[string]tftypes.Value{
				"id":         tftypes.NewValue(tftypes.String, "aj_1"),
				"triggers":   tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, nil),
				"wait":       tftypes.NewValue(tftypes.Bool, false),
				"status":     tftypes.NewValue(tftypes.String, "active"),
				"pr_link":    tftypes.NewValue(tftypes.String, nil),
				"timeouts":   tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"create": tftypes.String}}, nil),
				"created_at": tftypes.NewValue(tftypes.String, nil),
			},
		},
		{
			// An attribute missing from a state reads as null: the default applies.
			name: "wait_for_final_status missing",
			raw:  `{"id":"aj_2","project_id":"proj_1","prompt":"Fix the typos","status":"active"}`,
			want: map[string]tftypes.Value{"wait": tftypes.NewValue(tftypes.Bool, false)},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := upgradeAgentJobState(t, 0, tc.raw)
			for name, want := range tc.want {
				if !got[name].Equal(want) {
					t.Errorf("%s: got %s, want %s", name, got[name], want)
				}
			}
			if _, ok := got["wait_for_final_status"]; ok {
				t.Error("the upgraded state still has wait_for_final_status")
			}
		})
	}
}

// upgradeAgentJobState asks the provider's server to upgrade raw, a JSON
// state of version, and returns the attributes of the upgraded state.
func upgradeAgentJobState(t *testing.T, version int64, raw string) map[string]tftypes.Value {
	t.Helper()
	ctx := t.Context()
	server, err := testFactories(Options{})["docsadmin"]()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	s := schemas.ResourceSchemas["docsadmin_agent_job"]
	if s == nil {
		t.Fatal("the provider has no docsadmin_agent_job schema")
	}
	if s.Version <= version {
		t.Fatalf("docsadmin_agent_job is at schema version %d: nothing to upgrade from %d", s.Version, version)
	}
	resp, err := server.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{
		TypeName: "docsadmin_agent_job",
		Version:  version,
		RawState: &tfprotov6.RawState{JSON: []byte(raw)},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			t.Fatalf("upgrading %s: %s: %s", raw, d.Summary, d.Detail)
		}
	}
	value, err := resp.UpgradedState.Unmarshal(s.ValueType())
	if err != nil {
		t.Fatal(err)
	}
	var attrs map[string]tftypes.Value
	if err := value.As(&attrs); err != nil {
		t.Fatal(err)
	}
	return attrs
}
