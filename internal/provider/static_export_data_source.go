package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

var _ datasource.DataSourceWithConfigure = (*staticExportDataSource)(nil)

// NewStaticExportDataSource is the docsadmin_static_export data source.
func NewStaticExportDataSource() datasource.DataSource { return &staticExportDataSource{} }

// staticExportDataSource reads an export job that something else started.
// It never generates a bundle: that is the resource's (or the ephemeral
// resource's) business.
type staticExportDataSource struct {
	data *providerData
}

type staticExportDataModel struct {
	JobID       types.String  `tfsdk:"job_id"`
	APIRevision types.String  `tfsdk:"api_revision"`
	Status      types.String  `tfsdk:"status"`
	Progress    types.Float64 `tfsdk:"progress"`
	PageCount   types.Int64   `tfsdk:"page_count"`
	CreatedAt   types.String  `tfsdk:"created_at"`
	UpdatedAt   types.String  `tfsdk:"updated_at"`
	Error       types.String  `tfsdk:"error"`
}

func (d *staticExportDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_static_export"
}

func (d *staticExportDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads an existing static export job by its id, for example one started by another pipeline. " +
			"Read-only: it never generates a bundle link.",
		Attributes: map[string]schema.Attribute{
			"job_id": schema.StringAttribute{
				MarkdownDescription: "Identifier of the export job, such as `se_3f9a2c1b8e7d4a06`.",
				Required:            true,
				Validators:          []validator.String{exportJobIDValidator()},
			},
			"api_revision": schema.StringAttribute{
				MarkdownDescription: "The revision of the static export API the job was found in: `domain` or `project` (see the provider's `static_export_revision`). " +
					"A job of the `project` revision reports neither `progress` nor `page_count`.",
				Computed: true,
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "Status: `queued`, `running`, `completed` or `failed` (other values the API may add are passed through).",
				Computed:            true,
			},
			"progress": schema.Float64Attribute{
				MarkdownDescription: "Progress in percent, from 0 to 100 (may be fractional); null when not reported.",
				Computed:            true,
			},
			"page_count": schema.Int64Attribute{MarkdownDescription: "Pages exported so far; null when not reported.", Computed: true},
			"created_at": schema.StringAttribute{MarkdownDescription: "When the job was created (RFC 3339); null when not reported.", Computed: true},
			"updated_at": schema.StringAttribute{MarkdownDescription: "When the job last changed (RFC 3339); null when not reported.", Computed: true},
			"error": schema.StringAttribute{
				MarkdownDescription: "The API's explanation when the job `failed`; null otherwise.",
				Computed:            true,
			},
		},
	}
}

func (d *staticExportDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *staticExportDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg staticExportDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	ctx, ok := begin(ctx, d.data, "the export job cannot be read", &resp.Diagnostics)
	if !ok {
		return
	}

	jobID := cfg.JobID.ValueString()
	job, err := d.data.client.GetStaticExport(ctx, jobID)
	if client.IsNotFound(err) {
		resp.Diagnostics.AddError("Static export job not found",
			gone("export job "+jobID, err)+" Check the id; the API may also have stopped retaining an old job.")
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the static export job", fmt.Sprintf("Reading export job %s failed: %s", jobID, withHint(err)))
		return
	}
	cfg.APIRevision = types.StringValue(string(job.Revision))
	cfg.Status = types.StringValue(d.data.apiLine(string(job.Status)))
	cfg.Progress = types.Float64Null()
	if job.Progress != nil {
		cfg.Progress = types.Float64Value(clampPercent(*job.Progress))
	}
	cfg.PageCount = types.Int64PointerValue(job.PageCount)
	cfg.CreatedAt = timeValue(job.CreatedAt)
	cfg.UpdatedAt = timeValue(job.UpdatedAt)
	cfg.Error = types.StringNull()
	if job.Error != nil {
		cfg.Error = types.StringValue(d.data.sanitizer.Text(*job.Error, redact.StoredBytes))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
