package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// UpgradeState carries a docsadmin_agent_job state of every earlier schema
// version to the current one (1); the framework does not chain upgraders.
func (r *agentJobResource) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: {PriorSchema: agentJobSchemaV0(ctx), StateUpgrader: upgradeAgentJobStateV0},
	}
}

// agentJobResourceModelV0 is the state of schema version 0, whose wait
// attribute was named wait_for_final_status.
type agentJobResourceModelV0 struct {
	ID                 types.String   `tfsdk:"id"`
	ProjectID          types.String   `tfsdk:"project_id"`
	Prompt             types.String   `tfsdk:"prompt"`
	Triggers           types.Map      `tfsdk:"triggers"`
	WaitForFinalStatus types.Bool     `tfsdk:"wait_for_final_status"`
	Status             types.String   `tfsdk:"status"`
	PRLink             types.String   `tfsdk:"pr_link"`
	Model              types.String   `tfsdk:"model"`
	CreatedAt          types.String   `tfsdk:"created_at"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
}

// agentJobSchemaV0 is schema version 0 as far as reading a state needs it:
// the attributes and their types, frozen here as they were.
func agentJobSchemaV0(ctx context.Context) *schema.Schema {
	return &schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id":                    schema.StringAttribute{Computed: true},
			"project_id":            schema.StringAttribute{Optional: true, Computed: true},
			"prompt":                schema.StringAttribute{Required: true, Sensitive: true},
			"triggers":              schema.MapAttribute{ElementType: types.StringType, Optional: true},
			"wait_for_final_status": schema.BoolAttribute{Optional: true, Computed: true},
			"status":                schema.StringAttribute{Computed: true},
			"pr_link":               schema.StringAttribute{Computed: true},
			"model":                 schema.StringAttribute{Computed: true},
			"created_at":            schema.StringAttribute{Computed: true},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true}),
		},
	}
}

// upgradeAgentJobStateV0 renames wait_for_final_status to wait, keeping its
// value: a configuration that sets the one as it set the other plans no
// change.
func upgradeAgentJobStateV0(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	var old agentJobResourceModelV0
	resp.Diagnostics.Append(req.State.Get(ctx, &old)...)
	if resp.Diagnostics.HasError() {
		return
	}
	wait := old.WaitForFinalStatus
	if wait.IsNull() || wait.IsUnknown() {
		wait = types.BoolValue(false) // the default of both versions
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, agentJobResourceModel{
		ID:        old.ID,
		ProjectID: old.ProjectID,
		Prompt:    old.Prompt,
		Triggers:  old.Triggers,
		Wait:      wait,
		Status:    old.Status,
		PRLink:    old.PRLink,
		Model:     old.Model,
		CreatedAt: old.CreatedAt,
		Timeouts:  old.Timeouts,
	})...)
}
