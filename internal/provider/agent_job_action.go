package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
)

// agentJobCallLimit bounds one create or message call, retries included. A
// 429 whose Retry-After does not fit it fails at once (the client does not
// sleep past a deadline), so a project that used up its hourly creations
// gets an answer in seconds rather than after an hour.
const agentJobCallLimit = time.Minute

// agentJobCreationsPerHour is the API's documented limit per project.
const agentJobCreationsPerHour = 100

var (
	_ action.ActionWithConfigure      = (*agentJobAction)(nil)
	_ action.ActionWithValidateConfig = (*agentJobAction)(nil)
	_ action.ActionWithModifyPlan     = (*agentJobAction)(nil)
)

// NewAgentJobAction is the docsadmin_agent_job action.
func NewAgentJobAction() action.Action { return &agentJobAction{} }

type agentJobAction struct {
	data *providerData
}

type agentJobActionModel struct {
	Prompt    types.String `tfsdk:"prompt"`
	JobID     types.String `tfsdk:"job_id"`
	ProjectID types.String `tfsdk:"project_id"`
	Wait      types.Bool   `tfsdk:"wait"`
	Timeout   types.String `tfsdk:"timeout"`
}

// attributeName names a plain attribute that bounds a wait, where
// timeoutName names one of a timeouts block.
type attributeName string

func (n attributeName) String() string { return string(n) }

func (a *agentJobAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_agent_job"
}

func (a *agentJobAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Starts an AI agent job from a prompt, or sends a follow-up prompt to an existing job, and optionally waits " +
			"until the job completes, reporting its progress. Requires Terraform 1.14 or later.",
		Attributes: map[string]schema.Attribute{
			"prompt": schema.StringAttribute{
				MarkdownDescription: "Instruction for the agent. Never logged by the provider (logs show its length and first words only), " +
					"but shown in the plan like any action argument unless it comes from a `sensitive` variable.",
				Required:   true,
				Validators: []validator.String{stringCheck{summary: "Invalid prompt", description: "must not be empty or blank", check: promptProblem}},
			},
			"job_id": schema.StringAttribute{
				MarkdownDescription: "When set, the prompt is sent as a follow-up message to this existing job instead of starting a new one.",
				Optional:            true,
				Validators:          []validator.String{agentJobIDValidator()},
			},
			"project_id": schema.StringAttribute{
				MarkdownDescription: "Project of the job. Default: the provider's `project_id` (or `DOCSADMIN_PROJECT_ID`); one of them must be set.",
				Optional:            true,
				Validators:          []validator.String{projectIDValidator()},
			},
			"wait": schema.BoolAttribute{
				MarkdownDescription: "When true, the action waits until the job is `completed`, `archived` or `failed`, up to `timeout`, " +
					"reporting each status change and the pull request link, and the status at least every 30 seconds while nothing changes. " +
					"Default: `false` (the action ends once the job is started).",
				Optional: true,
			},
			"timeout": schema.StringAttribute{
				MarkdownDescription: "Longest wait when `wait` is true, as a duration of at least 1s such as `30m`. Default: `" + duration.Written(defaultAgentJobWait) + "`.",
				Optional:            true,
				Validators:          []validator.String{durationValidator(time.Second)},
			},
		},
	}
}

// ValidateConfig warns about a timeout that cannot take effect. Each
// attribute's own value is checked by its validators.
func (a *agentJobAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var cfg agentJobActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !cfg.Timeout.IsNull() && !cfg.Wait.IsUnknown() && !cfg.Wait.ValueBool() {
		resp.Diagnostics.AddAttributeWarning(path.Root("timeout"), "Timeout without waiting",
			"timeout bounds the wait for the job's final status, which happens only with wait = true: set it, or remove timeout.")
	}
}

// ModifyPlan reports a missing project at plan time, once the provider's
// settings are known.
func (a *agentJobAction) ModifyPlan(ctx context.Context, req action.ModifyPlanRequest, resp *action.ModifyPlanResponse) {
	if a.data == nil {
		return
	}
	var projectID types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("project_id"), &projectID)...)
	if !projectID.IsUnknown() {
		a.data.project(projectID, &resp.Diagnostics)
	}
}

func (a *agentJobAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (a *agentJobAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var cfg agentJobActionModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	ctx, ok := begin(ctx, a.data, "no agent job can be started", &resp.Diagnostics)
	if !ok {
		return
	}
	prompt := cfg.Prompt.ValueString()
	ctx = maskPrompt(ctx, prompt)

	projectID := a.data.project(cfg.ProjectID, &resp.Diagnostics)
	if projectID == "" {
		return
	}
	limit := defaultAgentJobWait
	if !cfg.Timeout.IsNull() {
		limit, _ = time.ParseDuration(cfg.Timeout.ValueString()) // validated at plan time
	}
	jobID := cfg.JobID.ValueString()
	afterInterrupt := "invoking the action again would start another job"
	if jobID != "" {
		afterInterrupt = "invoking the action again would send the prompt again"
	}
	a.data.runAgentJob(ctx, agentJobRun{
		projectID:      projectID,
		jobID:          jobID,
		prompt:         prompt,
		wait:           cfg.Wait.ValueBool(),
		limit:          limit,
		timeout:        attributeName("timeout"),
		say:            func(msg string) { resp.SendProgress(action.InvokeProgressEvent{Message: msg}) },
		rerun:          "invoking the action again",
		afterInterrupt: afterInterrupt,
		afterFailure:   "Invoke the action again (without job_id) to start a new job.",
		afterEnded:     "Check the job on the dashboard; invoke the action again (without job_id) to start a new job",
	}, &resp.Diagnostics)
}

func statusText(s client.AgentStatus) string {
	if s == "" {
		return "not reported"
	}
	return string(s)
}

// promptProblem refuses an empty prompt without quoting it.
func promptProblem(p string) string {
	if strings.TrimSpace(p) != "" {
		return ""
	}
	return fmt.Sprintf("The prompt is empty or blank (%d characters). Accepted: an instruction for the agent, such as \"Update the docs for release 2.4.0\".", len(p))
}
