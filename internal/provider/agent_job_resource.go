package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/resume"
)

var (
	_ resource.ResourceWithConfigure      = (*agentJobResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*agentJobResource)(nil)
	_ resource.ResourceWithValidateConfig = (*agentJobResource)(nil)
)

// NewAgentJobResource is the docsadmin_agent_job resource: the action's
// work for engines without actions (OpenTofu) and for jobs whose outcome
// belongs in state.
func NewAgentJobResource() resource.Resource { return &agentJobResource{} }

type agentJobResource struct {
	data *providerData
}

type agentJobResourceModel struct {
	ID        types.String   `tfsdk:"id"`
	ProjectID types.String   `tfsdk:"project_id"`
	Prompt    types.String   `tfsdk:"prompt"`
	Triggers  types.Map      `tfsdk:"triggers"`
	Wait      types.Bool     `tfsdk:"wait"`
	Status    types.String   `tfsdk:"status"`
	PRLink    types.String   `tfsdk:"pr_link"`
	Model     types.String   `tfsdk:"model"`
	CreatedAt types.String   `tfsdk:"created_at"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
}

func (r *agentJobResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_agent_job"
}

func (r *agentJobResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Starts an AI agent job from a prompt when created, and a new one whenever `triggers` or the prompt change, " +
			"optionally waiting for its pull request. The same work as the `docsadmin_agent_job` action, for OpenTofu and Terraform " +
			"versions without actions, and where the job's status and pull request belong in state. Destroy only forgets the job: " +
			"the API cannot cancel or delete one.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Identifier of the agent job, such as `aj_3f9a2c1b8e7d4a06`.",
				Computed:            true,
				PlanModifiers:       keepFromState(),
			},
			"project_id": projectIDAttribute("Project of the job. Default: the provider's `project_id` (or `DOCSADMIN_PROJECT_ID`); one of them must be set. Changing it starts a new job."),
			"prompt": schema.StringAttribute{
				MarkdownDescription: "Instruction for the agent. Sensitive: plans show `(sensitive value)`, and the provider never logs it " +
					"(logs show its length and first words only). It is kept in state, like every sensitive value, to tell a change: " +
					"changing it starts a new job.",
				Required:      true,
				Sensitive:     true,
				Validators:    []validator.String{stringCheck{summary: "Invalid prompt", description: "must not be empty or blank", check: promptProblem}},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"triggers": triggersAttribute("Arbitrary strings whose change starts a new job, for example `{ release = var.release_version }`. Not sent to the API.", true),
			"wait": schema.BoolAttribute{
				MarkdownDescription: "When true, apply waits until the job is `completed`, `archived` or `failed`, up to `timeouts.create`, " +
					"and fails on a failed job. Default: `false` (apply ends once the job is started; refresh reads its status and pull request later).",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(false),
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "Last seen status: `active`, `completed`, `archived` or `failed`. A `failed` job is replaced by a new one on the next apply.",
				Computed:            true,
				PlanModifiers:       keepFromState(),
			},
			"pr_link": schema.StringAttribute{
				MarkdownDescription: "Pull request the agent opened. Null while the job is active, and when it finished without changing any file. Only an https link (http where `base_url` is http) without a user name, password, signature or token is kept; anything else is null, with a warning naming the attribute.",
				Computed:            true,
				PlanModifiers:       keepFromState(),
			},
			"model":      schema.StringAttribute{MarkdownDescription: "AI model used; null when not reported.", Computed: true, PlanModifiers: keepFromState()},
			"created_at": schema.StringAttribute{MarkdownDescription: "When the job was created (RFC 3339); null when not reported.", Computed: true, PlanModifiers: keepFromState()},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create:            true,
				CreateDescription: "Longest wait when `wait` is true, as a duration such as `30m`. Default: `" + duration.Written(defaultAgentJobWait) + "`.",
			}),
		},
	}
}

// ValidateConfig refuses timeouts under a second at plan time (validateTimeouts).
func (r *agentJobResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(validateTimeouts[timeouts.Value](ctx, req.Config)...)
}

func (r *agentJobResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *agentJobResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan agentJobResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, limit, ok := beginOperation(ctx, r.data, "no agent job can be started", plan.Timeouts.Create, defaultAgentJobWait, &resp.Diagnostics)
	if !ok {
		return
	}
	prompt := plan.Prompt.ValueString()
	ctx = maskPrompt(ctx, prompt)
	projectID := r.data.project(plan.ProjectID, &resp.Diagnostics)
	if projectID == "" {
		return
	}
	plan.ProjectID = types.StringValue(projectID)

	run := agentJobRun{
		projectID: projectID,
		prompt:    prompt,
		wait:      plan.Wait.ValueBool(),
		limit:     limit,
		timeout:   timeoutCreate,
		say:       func(msg string) { tflog.Info(ctx, msg) },
		// Saved before the wait: a timeout or an interrupt never loses the job.
		started: func(job *client.AgentJob) {
			plan.setJob(job, r.data, &resp.Diagnostics)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
			resp.Diagnostics.Append(recordPlace(ctx, resp.Private, r.data.configuredPlace(projectID))...)
		},
		rerun:          "running terraform apply again",
		afterInterrupt: "its id is saved in state, and the next terraform apply continues waiting for it rather than starting another",
		afterFailure: "The failed status is saved in state, so the next terraform apply starts a new job with the same prompt; " +
			"change the prompt first if it was the cause.",
		afterEnded: "Its status is saved in state, and the next terraform apply starts a new job with the same prompt rather than " +
			"following this one; check the job on the dashboard first",
	}
	resumed, err := r.resumableJob(ctx, plan, func(work resume.Work) {
		plan.setJob(&client.AgentJob{ID: work.ID, Status: client.AgentStatus(work.Status)}, r.data, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	})
	if err != nil {
		resp.Diagnostics.AddError("Cannot continue the unfinished agent job", sentence(err.Error()))
		return
	}
	run.resumed = resumed
	if job := r.data.runAgentJob(ctx, run, &resp.Diagnostics); job != nil {
		plan.setJob(job, r.data, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		if !run.wait || job.Status.Final() {
			resp.Diagnostics.Append(markCreateCompleted(ctx, resp.Private)...)
		}
	}
}

// resumableJob returns the job that an interrupted create of the same
// inputs left active, through the one resume protocol (resumeRegistered):
// a job that failed, or that the API archived with a status the provider
// does not know, is unsuccessful. saveAgain saves the registered job when
// it cannot be read.
func (r *agentJobResource) resumableJob(ctx context.Context, plan agentJobResourceModel, saveAgain func(resume.Work)) (*client.AgentJob, error) {
	var job *client.AgentJob
	projectID := plan.ProjectID.ValueString()
	_, ok, err := r.data.resumeRegistered(ctx, r.data.agentJobResumeKey(plan), func(id string) string { return "Agent job " + id + " of project " + projectID },
		func(ctx context.Context, id string) (bool, error) {
			var err error
			job, err = r.data.client.GetAgentJob(ctx, projectID, id)
			return err == nil && (job.Status == client.AgentFailed || job.EndedUnknown()), err
		}, saveAgain)
	if err != nil || !ok {
		return nil, err
	}
	return job, nil
}

func (r *agentJobResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state agentJobResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	ctx, ok := begin(ctx, r.data, "the agent job cannot be read", &resp.Diagnostics)
	if !ok {
		return
	}
	ctx = maskPrompt(ctx, state.Prompt.ValueString())
	r.data.sanitizer.AddPrompt(state.Prompt.ValueString())
	subject := fmt.Sprintf("agent job %s in project %s", state.ID.ValueString(), state.ProjectID.ValueString())
	// Its route holds its project, which state keeps: only the API's
	// address can point elsewhere.
	recorded := recordedPlace(ctx, req.Private)
	if r.data.madeAtAnotherAPI(recorded) {
		resp.Diagnostics.AddWarning(r.data.placeWarning(fmt.Sprintf("Agent job %s in project %s", state.ID.ValueString(), state.ProjectID.ValueString()), *recorded, notReadAtAnotherAPI))
		return
	}
	job, err := r.data.client.GetAgentJob(ctx, state.ProjectID.ValueString(), state.ID.ValueString())
	if client.IsNotFound(err) {
		resp.Diagnostics.AddWarning(goneFromState(subject, "the next apply starts a new job.", err))
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the agent job", withHint(err))
		return
	}
	if recorded == nil {
		resp.Diagnostics.Append(recordPlace(ctx, resp.Private, r.data.configuredPlace(state.ProjectID.ValueString()))...)
	}
	state.setJob(job, r.data, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update only records settings that start nothing (wait,
// timeouts): everything else starts a new job, by replacement.
func (r *agentJobResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan agentJobResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete forgets the job: the API can neither cancel nor delete one. A job
// whose create did not see it end (a timeout, an interrupt: see
// privateCreateCompleted) is registered, unless it failed, for a create of the
// same inputs in this run: the replacement of the tainted resource follows
// it instead of starting another. State does not record when a job was
// archived, so a job archived with a status the provider does not know is
// registered too, and the replacement's read of it starts afresh.
func (r *agentJobResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state agentJobResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || r.data == nil {
		return
	}
	r.data.registerUnfinished(r.data.agentJobResumeKey(state), unfinishedWork{
		work:         resume.Work{ID: state.ID.ValueString(), Status: state.Status.ValueString()},
		unsuccessful: state.Status.ValueString() == string(client.AgentFailed),
		completed:    createCompleted(ctx, req.Private),
	})
}

// ModifyPlan replaces a job that failed: it will never open its pull request.
func (r *agentJobResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var plan, state agentJobResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || state.Status.ValueString() != string(client.AgentFailed) {
		return
	}
	plan.Status = types.StringUnknown()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root("status"))
}

// setJob records what the API reported of a job, through the sanitizer; a
// pull request link that is not a plain https link is null, with a warning.
func (m *agentJobResourceModel) setJob(job *client.AgentJob, d *providerData, diags *diag.Diagnostics) {
	m.ID = types.StringValue(job.ID)
	m.Status = optionalString(d.apiLine(string(job.Status)))
	m.PRLink = d.apiLinkValue("pr_link", job.PRLink, diags)
	m.Model = d.apiLineValue(job.Model)
	m.CreatedAt = timeValue(job.CreatedAt)
}

// agentJobResumeKey identifies an agent job by its project, its prompt and
// its triggers (resumeKey). It is a digest: the prompt never leaves the
// process.
func (d *providerData) agentJobResumeKey(m agentJobResourceModel) resume.Key {
	return d.resumeKey("docsadmin_agent_job", m.ProjectID.ValueString(), struct {
		Prompt   string
		Triggers map[string]string
	}{m.Prompt.ValueString(), triggerValues(m.Triggers)})
}
