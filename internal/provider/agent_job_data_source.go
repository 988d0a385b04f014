package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/datasource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
)

const defaultAgentJobWait = 10 * time.Minute

var (
	_ datasource.DataSourceWithConfigure      = (*agentJobDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig = (*agentJobDataSource)(nil)
)

// NewAgentJobDataSource is the docsadmin_agent_job data source.
func NewAgentJobDataSource() datasource.DataSource { return &agentJobDataSource{} }

type agentJobDataSource struct {
	data *providerData
}

type agentJobModel struct {
	JobID      types.String   `tfsdk:"job_id"`
	ProjectID  types.String   `tfsdk:"project_id"`
	Wait       types.Bool     `tfsdk:"wait"`
	Timeouts   timeouts.Value `tfsdk:"timeouts"`
	Status     types.String   `tfsdk:"status"`
	Source     types.Object   `tfsdk:"source"`
	Model      types.String   `tfsdk:"model"`
	PRLink     types.String   `tfsdk:"pr_link"`
	CreatedAt  types.String   `tfsdk:"created_at"`
	ArchivedAt types.String   `tfsdk:"archived_at"`
}

var agentJobSourceTypes = map[string]attr.Type{
	"repository": types.StringType,
	"ref":        types.StringType,
}

func (d *agentJobDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_agent_job"
}

func (d *agentJobDataSource) Schema(ctx context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads an AI agent job: its status and, once it finished, the pull request it opened. " +
			"Reading a `failed` or `archived` job is not an error: the status is reported, and a `postcondition` can turn it into one.",
		Attributes: map[string]schema.Attribute{
			"job_id": schema.StringAttribute{
				MarkdownDescription: "Identifier of the agent job, such as `aj_3f9a2c1b8e7d4a06`: the `id` of a `docsadmin_agent_job` resource, or the `job_id` of the action.",
				Required:            true,
				Validators:          []validator.String{agentJobIDValidator()},
			},
			"project_id": schema.StringAttribute{
				MarkdownDescription: "Project the job belongs to. Default: the provider's `project_id` (or `DOCSADMIN_PROJECT_ID`); one of them must be set.",
				Optional:            true,
				Computed:            true,
				Validators:          []validator.String{projectIDValidator()},
			},
			"wait": schema.BoolAttribute{
				MarkdownDescription: "When true, the read waits until the job is `completed`, `archived` or `failed`, up to `timeouts.read`. Default: `false` (read once).",
				Optional:            true,
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "Status of the job: `active`, `completed`, `archived` or `failed` (other values the API may add are passed through).",
				Computed:            true,
			},
			"source": schema.SingleNestedAttribute{
				MarkdownDescription: "Where the agent works. Null when the API does not report it.",
				Computed:            true,
				Attributes: map[string]schema.Attribute{
					"repository": schema.StringAttribute{MarkdownDescription: "Full URL of the Git repository. Only an https link (http where `base_url` is http) without a user name, password, signature or token is kept; anything else is null, with a warning naming the attribute.", Computed: true},
					"ref":        schema.StringAttribute{MarkdownDescription: "Branch the agent works on; null when not reported.", Computed: true},
				},
			},
			"model": schema.StringAttribute{MarkdownDescription: "AI model used; null when not reported.", Computed: true},
			"pr_link": schema.StringAttribute{
				MarkdownDescription: "Pull request opened by the agent. Null while the job is active, and when it finished without changing any file. Only an https link (http where `base_url` is http) without a user name, password, signature or token is kept; anything else is null, with a warning naming the attribute.",
				Computed:            true,
			},
			"created_at":  schema.StringAttribute{MarkdownDescription: "When the job was created (RFC 3339); null when not reported.", Computed: true},
			"archived_at": schema.StringAttribute{MarkdownDescription: "When the job was archived (RFC 3339); null unless archived.", Computed: true},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.BlockWithOpts(ctx, timeouts.Opts{
				ReadDescription: "Longest wait when `wait` is true, as a duration of at least 1s such as `30m`. Default: `" + duration.Written(defaultAgentJobWait) + "`.",
			}),
		},
	}
}

// ValidateConfig refuses a read timeout under a second at plan time (validateTimeouts).
func (d *agentJobDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	resp.Diagnostics.Append(validateTimeouts[timeouts.Value](ctx, req.Config)...)
}

func (d *agentJobDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *agentJobDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg agentJobModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	ctx, limit, ok := beginOperation(ctx, d.data, "the agent job cannot be read", cfg.Timeouts.Read, defaultAgentJobWait, &resp.Diagnostics)
	if !ok {
		return
	}

	projectID := d.data.project(cfg.ProjectID, &resp.Diagnostics)
	if projectID == "" {
		return
	}
	jobID := cfg.JobID.ValueString()
	subject := fmt.Sprintf("agent job %s in project %s", jobID, projectID)

	var job *client.AgentJob
	var err error
	wait := waitFailure{subject: subject, timeout: timeoutRead, limit: limit,
		onTimeout: "It did not reach a final status (completed, archived or failed): raise " + timeoutRead.String() + ", or read with wait = false",
		onGone:    agentJobGone}
	if cfg.Wait.ValueBool() {
		job, err = d.data.waitForAgentJob(ctx, projectID, jobID, limit, nil, nil, "Check the job on the dashboard")
	} else {
		job, err = d.data.client.GetAgentJob(ctx, projectID, jobID)
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the agent job", wait.describe(err))
		return
	}

	cfg.ProjectID = types.StringValue(projectID)
	cfg.setJob(job, d.data, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

// setJob records what the API reported of a job, through the sanitizer;
// links that are not plain https links are null, with a warning.
func (m *agentJobModel) setJob(job *client.AgentJob, d *providerData, diags *diag.Diagnostics) {
	m.Status = optionalString(d.apiLine(string(job.Status)))
	m.Model = d.apiLineValue(job.Model)
	m.PRLink = d.apiLinkValue("pr_link", job.PRLink, diags)
	m.CreatedAt = timeValue(job.CreatedAt)
	m.ArchivedAt = timeValue(job.ArchivedAt)
	m.Source = types.ObjectNull(agentJobSourceTypes)
	if job.Source != nil {
		m.Source = types.ObjectValueMust(agentJobSourceTypes, map[string]attr.Value{
			"repository": d.apiLinkValue("source.repository", job.Source.Repository, diags),
			"ref":        d.apiLineValue(job.Source.Ref),
		})
	}
}
