package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/resume"
)

// The one lifecycle of docsadmin_deployment and docsadmin_preview_deployment:
// a deployment of the project and a preview build of a branch are queued,
// saved in state before any wait, followed, refreshed, resumed after an
// interrupted create and forgotten on destroy alike. What tells them apart
// is a deploymentKind (names and schema) and the methods of each model
// (deploymentModel): what is started, how it is named, whether apply waits.

// deploymentBase is what the model of either kind holds.
type deploymentBase struct {
	ID        types.String   `tfsdk:"id"`
	ProjectID types.String   `tfsdk:"project_id"`
	Triggers  types.Map      `tfsdk:"triggers"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
	deploymentStatusModel
}

func (b *deploymentBase) base() *deploymentBase { return b }

// deploymentModel is a kind's model: *T, with the shared part and what the
// kind decides.
type deploymentModel[T any] interface {
	*T
	base() *deploymentBase
	// subject names the work in messages, such as "deployment 6743... of
	// project proj_1".
	subject(statusID string) string
	// resumeKey identifies the work for the resume protocol (resumeKey).
	resumeKey(d *providerData) resume.Key
	// start queues the work; it reports the status id, or false with an
	// error in diags.
	start(ctx context.Context, d *providerData, diags *diag.Diagnostics) (statusID string, ok bool)
	// waits reports whether apply waits for the work to end.
	waits() bool
	// gone words the warning of a refresh that finds the status gone.
	gone(err error) (summary, detail string)
}

// addressed is a kind whose work has an address of its own (a preview's):
// the same for every rebuild, so that a plan keeps it from the prior
// state, and registered with the work for the resume protocol.
type addressed interface {
	address() *types.String
}

// addressOf is m's address, or nil for a kind without one.
func addressOf(m any) *types.String {
	if a, ok := m.(addressed); ok {
		return a.address()
	}
	return nil
}

// setResumed records in m what the resume protocol registered of work
// beyond its status: the address, for a kind that has one.
func setResumed(m any, work resume.Work) {
	if a := addressOf(m); a != nil {
		*a = optionalString(work.URL)
	}
}

// deploymentKind names a kind of deployment in messages and describes its
// schema.
type deploymentKind struct {
	typeName       string // after the provider's name: "_deployment"
	description    string
	attributes     func() map[string]schema.Attribute // id, project_id, triggers and the kind's own; the status's are added
	createTimeout  string
	updateTimeout  string
	noStart        string // why nothing starts on an unconfigured provider: "no deployment can be queued"
	noRead         string // the same for a refresh: "the deployment cannot be read"
	unreadable     string // the summary of a failed refresh
	cannotContinue string // the summary of resumed work that cannot be read again
	again          string // what to do after a failure
}

var (
	_ resource.ResourceWithConfigure      = (*deploymentResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*deploymentResource)(nil)
	_ resource.ResourceWithValidateConfig = (*deploymentResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*previewDeploymentResource)(nil)
	_ resource.ResourceWithValidateConfig = (*previewDeploymentResource)(nil)
)

// deploymentLifecycle is the resource of one kind.
type deploymentLifecycle[T any, M deploymentModel[T]] struct {
	data *providerData
	kind deploymentKind
}

func (r *deploymentLifecycle[T, M]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + r.kind.typeName
}

func (r *deploymentLifecycle[T, M]) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := deploymentStatusResourceAttributes()
	for name, attr := range r.kind.attributes() {
		attrs[name] = attr
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: r.kind.description,
		Attributes:          attrs,
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create:            true,
				Update:            true,
				CreateDescription: r.kind.createTimeout + " Default: `" + duration.Written(defaultDeploymentWait) + "`.",
				UpdateDescription: r.kind.updateTimeout + " Default: `" + duration.Written(defaultDeploymentWait) + "`.",
			}),
		},
	}
}

// ValidateConfig refuses timeouts under a second at plan time (validateTimeouts).
func (r *deploymentLifecycle[T, M]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(validateTimeouts[timeouts.Value](ctx, req.Config)...)
}

func (r *deploymentLifecycle[T, M]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// Create queues the work and follows it; work that an interrupted create of
// the same inputs left running is followed rather than queued a second time.
func (r *deploymentLifecycle[T, M]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	plan := M(new(T))
	resp.Diagnostics.Append(req.Plan.Get(ctx, plan)...)
	b := plan.base()
	ctx, limit, ok := beginOperation(ctx, r.data, r.kind.noStart, b.Timeouts.Create, defaultDeploymentWait, &resp.Diagnostics)
	if !ok {
		return
	}
	projectID := r.data.project(b.ProjectID, &resp.Diagnostics)
	if projectID == "" {
		return
	}
	b.ProjectID = types.StringValue(projectID)
	resp.Diagnostics.Append(recordPlace(ctx, resp.Private, r.data.configuredPlace(""))...)
	registered, resumed, err := r.data.resumeRegistered(ctx, plan.resumeKey(r.data), func(id string) string { return capitalized(plan.subject(id)) },
		r.data.deploymentUnsuccessful, func(work resume.Work) {
			b.setUnread(work)
			b.ID = types.StringValue(work.ID)
			setResumed(plan, work)
			resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		})
	if err != nil {
		resp.Diagnostics.AddError(r.kind.cannotContinue, sentence(err.Error()))
		return
	}
	statusID := registered.ID
	if resumed {
		setResumed(plan, registered)
	} else if statusID, ok = plan.start(ctx, r.data, &resp.Diagnostics); !ok {
		return
	}
	if r.follow(ctx, plan, statusID, timeoutCreate, limit, &resp.State, &resp.Diagnostics) {
		resp.Diagnostics.Append(markCreateCompleted(ctx, resp.Private)...)
	}
}

// follow records the work in state and, when the kind waits, waits for it
// and records how it ended. It reports whether nothing is left to wait for.
func (r *deploymentLifecycle[T, M]) follow(ctx context.Context, m M, statusID string, name timeoutName, limit time.Duration,
	state *tfsdk.State, diags *diag.Diagnostics) bool {
	b := m.base()
	save := func() diag.Diagnostics {
		b.ID = types.StringValue(statusID)
		return state.Set(ctx, m)
	}
	if !m.waits() {
		b.started(statusID)
		diags.Append(save()...)
		return true
	}
	return r.data.followDeployment(ctx, deploymentFollow{
		subject:  m.subject(statusID),
		statusID: statusID,
		timeout:  name,
		limit:    limit,
		status:   &b.deploymentStatusModel,
		save:     save,
		again:    r.kind.again,
	}, diags)
}

// Read reads the recorded status again. A status the API no longer keeps
// takes the resource out of state with the kind's warning, so that the next
// apply starts again.
func (r *deploymentLifecycle[T, M]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state := M(new(T))
	resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	ctx, ok := begin(ctx, r.data, r.kind.noRead, &resp.Diagnostics)
	if !ok {
		return
	}
	b := state.base()
	if r.data.refreshDeployment(ctx, &b.deploymentStatusModel, r.kind.unreadable, state.gone, resp) {
		b.ID = b.StatusID
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	}
}

// refreshDeployment reads the recorded status again into m where it was
// made (its route holds no project: the API's address). A status the API
// no longer keeps takes the resource out of state with the warning gone
// words, so that the next apply deploys again; unreadable is the summary of
// the error for any other failure. It reports whether m was refreshed.
func (d *providerData) refreshDeployment(ctx context.Context, m *deploymentStatusModel, unreadable string,
	gone func(err error) (summary, detail string), resp *resource.ReadResponse) bool {
	statusID := m.StatusID.ValueString()
	recorded := recordedPlace(ctx, resp.Private)
	if d.madeAtAnotherAPI(recorded) {
		resp.Diagnostics.AddWarning(d.placeWarning("Deployment status "+statusID, *recorded, notReadAtAnotherAPI))
		return false
	}
	dep, err := d.client.GetDeployment(ctx, statusID)
	if client.IsNotFound(err) {
		resp.Diagnostics.AddWarning(gone(err))
		resp.State.RemoveResource(ctx)
		return false
	}
	if err != nil {
		resp.Diagnostics.AddError(unreadable, withHint(err))
		return false
	}
	if recorded == nil {
		resp.Diagnostics.Append(recordPlace(ctx, resp.Private, d.configuredPlace(""))...)
	}
	m.set(dep, d.sanitizer)
	m.StatusID = types.StringValue(statusID)
	return true
}

// Update starts again when triggers changed or the last work is
// unsuccessful, and otherwise continues waiting for work an earlier apply
// left unfinished.
func (r *deploymentLifecycle[T, M]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	plan, state := M(new(T)), M(new(T))
	resp.Diagnostics.Append(req.Plan.Get(ctx, plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	pb, sb := plan.base(), state.base()
	ctx, limit, ok := beginOperation(ctx, r.data, r.kind.noStart, pb.Timeouts.Update, defaultDeploymentWait, &resp.Diagnostics)
	if !ok {
		return
	}
	if !pb.Status.IsUnknown() {
		// ModifyPlan leaves the status unknown only when new work is due or
		// work left unfinished is still to be awaited: any other change
		// (timeouts, wait) is only recorded, by saving the plan.
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		return
	}
	pb.ProjectID = sb.ProjectID
	if a := addressOf(plan); a != nil {
		*a = *addressOf(state)
	}
	statusID := sb.StatusID.ValueString()
	if redeployNeeded(pb.Triggers, sb.Triggers, sb.deploymentStatusModel) {
		if statusID, ok = plan.start(ctx, r.data, &resp.Diagnostics); !ok {
			// The prior state stays: the next plan tries again.
			return
		}
	} else {
		tflog.Info(ctx, "continuing the work an earlier apply left unfinished", map[string]any{"status_id": statusID})
	}
	r.follow(ctx, plan, statusID, timeoutUpdate, limit, &resp.State, &resp.Diagnostics)
}

// Delete forgets the work: the API can undo neither a deployment nor a
// preview. Work whose create did not see it end (a timeout, an interrupt:
// see privateCreateCompleted) is registered, unless it is unsuccessful
// (failed, or ended with a status the provider does not know), for a
// create of the same inputs in this run: the replacement of the tainted
// resource follows it instead of queuing another.
func (r *deploymentLifecycle[T, M]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	state := M(new(T))
	resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	if resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	work := state.base().work()
	if a := addressOf(state); a != nil {
		work.URL = a.ValueString()
	}
	r.data.registerUnfinished(state.resumeKey(r.data), unfinishedWork{
		work:         work,
		unsuccessful: state.base().unsuccessful(),
		completed:    createCompleted(ctx, req.Private),
	})
}

// ModifyPlan plans new work, in place, when triggers changed or the last
// work is unsuccessful, and, when the kind waits, the rest of the wait for work left
// unfinished; otherwise the recorded status stays as it is. A provider
// project_id that moved away from the resource's warns.
func (r *deploymentLifecycle[T, M]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	plan, state := M(new(T)), M(new(T))
	resp.Diagnostics.Append(req.Plan.Get(ctx, plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	pb, sb := plan.base(), state.base()
	var configured types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("project_id"), &configured)...)
	r.data.warnMovedProject(capitalized(state.subject(sb.StatusID.ValueString())), configured, sb.ProjectID.ValueString(), &resp.Diagnostics)
	pb.deploymentStatusModel, pb.ID = sb.deploymentStatusModel, sb.ID
	switch {
	case redeployNeeded(pb.Triggers, sb.Triggers, sb.deploymentStatusModel):
		pb.unknown()
		pb.ID = types.StringUnknown()
	case !sb.status().Final() && plan.waits():
		pb.unknown()
		pb.StatusID = sb.StatusID
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// redeployNeeded tells whether new work is due: triggers changed (an empty
// map being the same as none), or the recorded work is unsuccessful
// (failed, or ended with a status the provider does not know).
func redeployNeeded(planned, prior types.Map, last deploymentStatusModel) bool {
	return triggersChanged(planned, prior) || last.unsuccessful()
}

// deploymentUnsuccessful reads a deployment or preview build, for the
// resume protocol: whether it failed or ended with a status the provider
// does not know (it will never succeed: the replacement starts afresh).
func (d *providerData) deploymentUnsuccessful(ctx context.Context, statusID string) (bool, error) {
	dep, err := d.client.GetDeployment(ctx, statusID)
	return err == nil && (dep.Status == client.DeploymentFailure || dep.EndedUnknown()), err
}
