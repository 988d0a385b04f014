package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
)

var (
	_ resource.ResourceWithConfigure      = (*deploymentResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*deploymentResource)(nil)
	_ resource.ResourceWithValidateConfig = (*deploymentResource)(nil)
)

// NewDeploymentResource is the docsadmin_deployment resource.
func NewDeploymentResource() resource.Resource { return &deploymentResource{} }

type deploymentResource struct {
	data *providerData
}

type deploymentResourceModel struct {
	ID        types.String   `tfsdk:"id"`
	ProjectID types.String   `tfsdk:"project_id"`
	Triggers  types.Map      `tfsdk:"triggers"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
	deploymentStatusModel
}

func (r *deploymentResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_deployment"
}

func (r *deploymentResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := deploymentStatusResourceAttributes()
	attrs["id"] = schema.StringAttribute{
		MarkdownDescription: "Identifier of the latest deployment's status (same as `status_id`): it changes with every deployment.",
		Computed:            true,
	}
	attrs["project_id"] = projectIDAttribute("Project to deploy. Default: the provider's `project_id` (or `DOCSADMIN_PROJECT_ID`); one of them must be set. Changing it replaces the resource.")
	attrs["triggers"] = triggersAttribute("Arbitrary strings whose change deploys again, in place, for example `{ docs_commit = var.docs_commit }` to deploy "+
		"every publication. Not sent to the API.", false)
	resp.Schema = schema.Schema{
		MarkdownDescription: "Deploys the project from its configured deployment branch and waits until the deployment ends: apply queues a " +
			"deployment update, follows it until `success` or `failure`, and records the commit it built (`commit_sha`). A change of " +
			"`triggers`, or a failed deployment in state, deploys again in place on the next apply. Destroy only forgets the deployment: " +
			"the API cannot undo one.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create:            true,
				Update:            true,
				CreateDescription: "Longest wait for the first deployment to end, as a duration such as `45m`. Default: `" + duration.Written(defaultDeploymentWait) + "`.",
				UpdateDescription: "Longest wait for a new deployment (a change of `triggers`), or for one an earlier apply left unfinished, to end. Default: `" + duration.Written(defaultDeploymentWait) + "`.",
			}),
		},
	}
}

// ValidateConfig refuses zero and negative timeouts at plan time.
func (r *deploymentResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(validateTimeouts[timeouts.Value](ctx, req.Config)...)
}

func (r *deploymentResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// deploymentKind is how messages name a deployment update.
const deploymentKind = "deployment"

func (r *deploymentResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan deploymentResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, limit, ok := beginOperation(ctx, r.data, "no deployment can be queued", plan.Timeouts.Create, defaultDeploymentWait, &resp.Diagnostics)
	if !ok {
		return
	}
	projectID := r.data.project(plan.ProjectID, &resp.Diagnostics)
	if projectID == "" {
		return
	}
	plan.ProjectID = types.StringValue(projectID)
	resp.Diagnostics.Append(recordPlace(ctx, resp.Private, r.data.here(""))...)

	// A deployment that an interrupted create of the same inputs left
	// running is followed rather than queued a second time.
	key := r.data.deploymentResumeKey(projectID, plan.Triggers)
	offered, resumed, err := r.data.resumeOffered(ctx, key, func(id string) string { return deploymentSubject(deploymentKind, id) + " of project " + projectID },
		r.data.deploymentOver, func(work offeredWork) {
			plan.kept(work)
			plan.ID = types.StringValue(work.ID)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		})
	if err != nil {
		resp.Diagnostics.AddError("Cannot continue the unfinished deployment", sentence(err.Error()))
		return
	}
	statusID := offered.ID
	if !resumed {
		start, err := r.data.client.TriggerDeployment(ctx, projectID)
		if err != nil {
			resp.Diagnostics.AddError("Cannot deploy the project", deploymentStartError("a deployment of project "+projectID, err))
			return
		}
		statusID = start.StatusID
		tflog.Info(ctx, "queued a deployment", map[string]any{"status_id": statusID, "project_id": projectID})
		warnMalformed(&resp.Diagnostics, "the deployment call for project "+projectID, start.Malformed)
	}
	if r.deploy(ctx, &plan, statusID, timeoutCreate, limit, &resp.State, &resp.Diagnostics) {
		resp.Diagnostics.Append(markCreateFinished(ctx, resp.Private)...)
	}
}

// deploy records a deployment just queued or left unfinished, waits for
// it and records how it ended. It reports whether it saw it end.
func (r *deploymentResource) deploy(ctx context.Context, m *deploymentResourceModel, statusID string, name timeoutName, limit time.Duration,
	state *tfsdk.State, diags *diag.Diagnostics) bool {
	return r.data.followDeployment(ctx, deploymentFollow{
		subject:  deploymentSubject(deploymentKind, statusID) + " of project " + m.ProjectID.ValueString(),
		statusID: statusID,
		timeout:  name,
		limit:    limit,
		status:   &m.deploymentStatusModel,
		save: func() diag.Diagnostics {
			m.ID = types.StringValue(statusID)
			return state.Set(ctx, m)
		},
		again: "The failed status is saved in state, so the next terraform apply deploys again. Fix the cause (the full log is on the dashboard) " +
			"and run terraform apply.",
	}, diags)
}

func (r *deploymentResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state deploymentResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireConfigured(r.data, &resp.Diagnostics, "the deployment cannot be read") {
		return
	}
	ctx = r.data.maskSecrets(ctx)
	gone := func(err error) (string, string) {
		return goneFromState(fmt.Sprintf("deployment %s of project %s", state.StatusID.ValueString(), state.ProjectID.ValueString()), "the next apply deploys again.", err)
	}
	if r.data.refreshDeployment(ctx, &state.deploymentStatusModel, "Cannot read the deployment", gone, resp) {
		state.ID = state.StatusID
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	}
}

// Update deploys again when triggers changed or the last deployment failed,
// and otherwise continues waiting for a deployment an earlier apply left
// unfinished. A change of timeouts alone only updates state.
func (r *deploymentResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state deploymentResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	ctx, limit, ok := beginDeploymentUpdate(ctx, r.data, "no deployment can be queued", &plan, plan.Status, plan.Timeouts, resp)
	if !ok {
		return
	}
	plan.ProjectID = state.ProjectID
	statusID := state.StatusID.ValueString()
	if redeployNeeded(plan.Triggers, state.Triggers, state.deploymentStatusModel) {
		start, err := r.data.client.TriggerDeployment(ctx, state.ProjectID.ValueString())
		if err != nil {
			// The prior state stays: the next plan tries again.
			resp.Diagnostics.AddError("Cannot deploy the project", deploymentStartError("a deployment of project "+state.ProjectID.ValueString(), err))
			return
		}
		statusID = start.StatusID
		tflog.Info(ctx, "queued a deployment", map[string]any{"status_id": statusID, "project_id": state.ProjectID.ValueString()})
		warnMalformed(&resp.Diagnostics, "the deployment call for project "+state.ProjectID.ValueString(), start.Malformed)
	} else {
		tflog.Info(ctx, "continuing the deployment an earlier apply left unfinished", map[string]any{"status_id": statusID})
	}
	r.deploy(ctx, &plan, statusID, timeoutUpdate, limit, &resp.State, &resp.Diagnostics)
}

// Delete forgets the deployment: the API cannot undo one. A deployment whose
// create did not see it end (a timeout, an interrupt: see
// privateCreateFinished) is offered, unless it is over (failed, or ended
// with a status the provider does not know), to a create of the same inputs
// in this run: the replacement of the tainted resource follows it instead
// of queuing another.
func (r *deploymentResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state deploymentResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	r.data.offerUnfinished(r.data.deploymentResumeKey(state.ProjectID.ValueString(), state.Triggers), unfinishedWork{
		work:     state.offered(),
		over:     state.over(),
		finished: createFinished(ctx, req.Private),
	})
}

// ModifyPlan plans a new deployment, in place, when triggers changed or the
// last one failed, and the rest of the wait for one left unfinished;
// otherwise the recorded deployment stays as it is.
func (r *deploymentResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var plan, state deploymentResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.deploymentStatusModel, plan.ID = state.deploymentStatusModel, state.ID
	switch {
	case redeployNeeded(plan.Triggers, state.Triggers, state.deploymentStatusModel):
		plan.unknown()
		plan.ID = types.StringUnknown()
	case !state.status().Final():
		plan.unknown()
		plan.StatusID = state.StatusID
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// redeployNeeded tells whether a new deployment is due: triggers changed
// (an empty map being the same as none), or the recorded one is over
// (failed, or ended with a status the provider does not know).
func redeployNeeded(planned, prior types.Map, last deploymentStatusModel) bool {
	return triggersChanged(planned, prior) || last.over()
}

// deploymentResumeKey identifies a deployment by the API it runs on, its
// project and its triggers.
func (d *providerData) deploymentResumeKey(projectID string, triggers types.Map) string {
	return fingerprint(struct {
		Kind     string            `json:"k"`
		BaseURL  string            `json:"b"`
		Project  string            `json:"p"`
		Triggers map[string]string `json:"t"`
	}{"deployment", d.baseURL, projectID, triggerValues(triggers)})
}
