package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
)

var (
	_ resource.ResourceWithConfigure      = (*previewDeploymentResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*previewDeploymentResource)(nil)
	_ resource.ResourceWithValidateConfig = (*previewDeploymentResource)(nil)
)

// previewEntitlement names what an organisation needs for previews, in
// errors and docs alike.
const previewEntitlement = "preview deployments entitlement"

// NewPreviewDeploymentResource is the docsadmin_preview_deployment resource.
func NewPreviewDeploymentResource() resource.Resource { return &previewDeploymentResource{} }

type previewDeploymentResource struct {
	data *providerData
}

type previewDeploymentModel struct {
	ID         types.String   `tfsdk:"id"`
	ProjectID  types.String   `tfsdk:"project_id"`
	Branch     types.String   `tfsdk:"branch"`
	Triggers   types.Map      `tfsdk:"triggers"`
	Wait       types.Bool     `tfsdk:"wait"`
	PreviewURL types.String   `tfsdk:"preview_url"`
	Timeouts   timeouts.Value `tfsdk:"timeouts"`
	deploymentStatusModel
}

func (r *previewDeploymentResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_preview_deployment"
}

func (r *previewDeploymentResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := deploymentStatusResourceAttributes()
	attrs["id"] = schema.StringAttribute{
		MarkdownDescription: "Identifier of the latest build's status (same as `status_id`): it changes with every rebuild.",
		Computed:            true,
	}
	attrs["project_id"] = projectIDAttribute("Project of the preview. Default: the provider's `project_id` (or `DOCSADMIN_PROJECT_ID`); one of them must be set. Changing it replaces the resource.")
	attrs["branch"] = schema.StringAttribute{
		MarkdownDescription: "Branch of the docs repository to preview, such as `feature/new-navigation`. Changing it replaces the resource: another branch is another preview.",
		Required:            true,
		Validators:          []validator.String{notBlankValidator()},
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
	attrs["triggers"] = triggersAttribute("Arbitrary strings whose change rebuilds the preview, in place, for example `{ head = var.branch_head }`. Not sent to the API.", false)
	attrs["wait"] = schema.BoolAttribute{
		MarkdownDescription: "Whether apply waits until the build ends (`success` or `failure`, within the `timeouts`), and fails on a failed build. " +
			"With `false` apply ends once the build is queued, with `status` `queued`; refresh reads the status then. Default: `true`.",
		Optional: true,
		Computed: true,
		Default:  booldefault.StaticBool(true),
	}
	attrs["preview_url"] = schema.StringAttribute{
		MarkdownDescription: "Address of the preview, as the API returned it. The same for every rebuild of the branch. Only an https link (http where `base_url` is http) without a user name, password, signature or token is kept; anything else is null, with a warning naming the attribute.",
		Computed:            true,
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A preview deployment of a branch: apply creates it, or rebuilds it when `triggers` change, and by default waits " +
			"for the build. Needs the organisation's " + previewEntitlement + ". Destroy only forgets the preview: the API cannot delete one.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create:            true,
				Update:            true,
				CreateDescription: "Longest wait for the first build when `wait` is true, as a duration such as `20m`. Default: `" + duration.Written(defaultDeploymentWait) + "`.",
				UpdateDescription: "Longest wait for a rebuild when `wait` is true. Default: `" + duration.Written(defaultDeploymentWait) + "`.",
			}),
		},
	}
}

// ValidateConfig refuses zero and negative timeouts at plan time.
func (r *previewDeploymentResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(validateTimeouts[timeouts.Value](ctx, req.Config)...)
}

func (r *previewDeploymentResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *previewDeploymentResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan previewDeploymentModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, limit, ok := beginOperation(ctx, r.data, "no preview can be built", plan.Timeouts.Create, defaultDeploymentWait, &resp.Diagnostics)
	if !ok {
		return
	}
	projectID := r.data.project(plan.ProjectID, &resp.Diagnostics)
	if projectID == "" {
		return
	}
	plan.ProjectID = types.StringValue(projectID)
	resp.Diagnostics.Append(recordPlace(ctx, resp.Private, r.data.here(""))...)
	// A build that an interrupted create of the same inputs left running is
	// followed rather than queued a second time.
	offered, ok, err := r.data.resumeOffered(ctx, r.previewResumeKey(plan),
		func(id string) string {
			return fmt.Sprintf("Preview deployment %s of branch %q in project %s", id, plan.Branch.ValueString(), projectID)
		}, r.data.deploymentOver, func(work offeredWork) {
			plan.kept(work)
			plan.ID = types.StringValue(work.ID)
			plan.PreviewURL = optionalString(work.URL)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		})
	if err != nil {
		resp.Diagnostics.AddError("Cannot continue the unfinished preview build", sentence(err.Error()))
		return
	}
	if ok {
		plan.PreviewURL = optionalString(offered.URL)
		if r.follow(ctx, &plan, offered.ID, timeoutCreate, limit, &resp.State, &resp.Diagnostics) {
			resp.Diagnostics.Append(markCreateFinished(ctx, resp.Private)...)
		}
		return
	}
	if r.build(ctx, &plan, timeoutCreate, limit, &resp.State, &resp.Diagnostics) {
		resp.Diagnostics.Append(markCreateFinished(ctx, resp.Private)...)
	}
}

// previewResumeKey identifies a preview build by the API, the project, the
// branch and the triggers.
func (r *previewDeploymentResource) previewResumeKey(m previewDeploymentModel) string {
	return r.data.deploymentResumeKey(m.ProjectID.ValueString()+"\x00preview\x00"+m.Branch.ValueString(), m.Triggers)
}

// build asks for a build of the branch's preview and, with wait, follows it.
// It reports whether nothing is left to wait for.
func (r *previewDeploymentResource) build(ctx context.Context, m *previewDeploymentModel, name timeoutName, limit time.Duration,
	state *tfsdk.State, diags *diag.Diagnostics) bool {
	projectID, branch := m.ProjectID.ValueString(), m.Branch.ValueString()
	start, err := r.data.client.CreatePreviewDeployment(ctx, projectID, branch)
	if err != nil {
		diags.AddError("Cannot build the preview deployment", previewStartError(projectID, branch, err))
		return true
	}
	tflog.Info(ctx, "queued a preview deployment", map[string]any{"status_id": start.StatusID, "project_id": projectID, "branch": branch})
	warnMalformed(diags, fmt.Sprintf("the preview call for branch %q of project %s", branch, projectID), start.Malformed)
	if start.PreviewURL != nil {
		// A link state may not keep is null, with a warning; a rebuild
		// keeps the address planned from state.
		if link := r.data.apiLinkValue("preview_url", start.PreviewURL, diags); !link.IsNull() || m.PreviewURL.IsUnknown() {
			m.PreviewURL = link
		}
	} else if m.PreviewURL.IsUnknown() {
		m.PreviewURL = types.StringNull()
	}
	return r.follow(ctx, m, start.StatusID, name, limit, state, diags)
}

// follow records the build in state and, with wait, waits for it. It
// reports whether nothing is left to wait for: the build ended, or wait is
// false.
func (r *previewDeploymentResource) follow(ctx context.Context, m *previewDeploymentModel, statusID string, name timeoutName, limit time.Duration,
	state *tfsdk.State, diags *diag.Diagnostics) bool {
	save := func() diag.Diagnostics {
		m.ID = types.StringValue(statusID)
		return state.Set(ctx, m)
	}
	if !m.Wait.ValueBool() {
		m.started(statusID)
		diags.Append(save()...)
		return true
	}
	return r.data.followDeployment(ctx, deploymentFollow{
		subject:  fmt.Sprintf("preview deployment %s of branch %q in project %s", statusID, m.Branch.ValueString(), m.ProjectID.ValueString()),
		statusID: statusID,
		timeout:  name,
		limit:    limit,
		status:   &m.deploymentStatusModel,
		save:     save,
		again: "The failed status is saved in state, so the next terraform apply rebuilds the preview. Fix the cause on the branch " +
			"(the full log is on the dashboard) and run terraform apply.",
	}, diags)
}

// previewStartError explains a failed preview call; a 403 that says the
// plan has no previews names the entitlement.
func previewStartError(projectID, branch string, err error) string {
	if client.Classify(err).Kind == client.KindForbidden {
		return fmt.Sprintf("The API refused a preview of branch %q in project %s: %s. Preview deployments need the organization's %s: "+
			"an organization whose plan lacks it gets this answer for every preview. Ask an administrator to add previews to the plan, "+
			"or remove the docsadmin_preview_deployment resource. (A key without the write scope, or a caller outside the key's allowlist, "+
			"gets a 403 too; the API's message above says which.)", branch, projectID, err, previewEntitlement)
	}
	return deploymentStartError(fmt.Sprintf("a preview of branch %q in project %s", branch, projectID), err)
}

func (r *previewDeploymentResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state previewDeploymentModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireConfigured(r.data, &resp.Diagnostics, "the preview cannot be read") {
		return
	}
	ctx = r.data.maskSecrets(ctx)
	gone := func(err error) (string, string) {
		return goneFromState(fmt.Sprintf("status %s of the preview of branch %q", state.StatusID.ValueString(), state.Branch.ValueString()), "the next apply rebuilds the preview.", err)
	}
	if r.data.refreshDeployment(ctx, &state.deploymentStatusModel, "Cannot read the preview deployment", gone, resp) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	}
}

// Update rebuilds when triggers changed or the last build failed, and
// otherwise, with wait, continues waiting for a build an earlier apply left
// unfinished.
func (r *previewDeploymentResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state previewDeploymentModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	ctx, limit, ok := beginDeploymentUpdate(ctx, r.data, "no preview can be built", &plan, plan.Status, plan.Timeouts, resp)
	if !ok {
		return
	}
	plan.ProjectID, plan.PreviewURL = state.ProjectID, state.PreviewURL
	if redeployNeeded(plan.Triggers, state.Triggers, state.deploymentStatusModel) {
		r.build(ctx, &plan, timeoutUpdate, limit, &resp.State, &resp.Diagnostics)
		return
	}
	r.follow(ctx, &plan, state.StatusID.ValueString(), timeoutUpdate, limit, &resp.State, &resp.Diagnostics)
}

// Delete forgets the preview: the API cannot delete one. A build whose
// create did not see it end (a timeout, an interrupt: see
// privateCreateFinished) is offered, unless it is over (failed, or ended
// with a status the provider does not know), to a create of the same inputs
// in this run: the replacement of the tainted resource follows it instead
// of queuing another.
func (r *previewDeploymentResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state previewDeploymentModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	work := state.offered()
	work.URL = state.PreviewURL.ValueString()
	r.data.offerUnfinished(r.previewResumeKey(state), unfinishedWork{
		work:     work,
		over:     state.over(),
		finished: createFinished(ctx, req.Private),
	})
}

// ModifyPlan plans a rebuild, in place, when triggers changed or the last
// build failed, and, with wait, the rest of the wait for a build left
// unfinished.
func (r *previewDeploymentResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var plan, state previewDeploymentModel
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
	case !state.status().Final() && plan.Wait.ValueBool() && !plan.Wait.IsUnknown():
		plan.unknown()
		plan.StatusID = state.StatusID
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}
