package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

var _ datasource.DataSourceWithConfigure = (*deploymentDataSource)(nil)

// NewDeploymentDataSource is the docsadmin_deployment data source.
func NewDeploymentDataSource() datasource.DataSource { return &deploymentDataSource{} }

// deploymentDataSource reads a deployment status that something else
// queued, such as the platform's Git integration or another pipeline.
type deploymentDataSource struct {
	data *providerData
}

type deploymentDataModel struct {
	ProjectID types.String `tfsdk:"project_id"`
	deploymentStatusModel
}

func (d *deploymentDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_deployment"
}

func (d *deploymentDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := deploymentStatusDataSourceAttributes()
	attrs["status_id"] = schema.StringAttribute{
		MarkdownDescription: "Identifier of the deployment's status (the `statusId` of the update or preview call), such as `6743a1f0c2b4e5d6a7b8c9d0`: " +
			"the `status_id` of a `docsadmin_deployment` or `docsadmin_preview_deployment` resource.",
		Required:   true,
		Validators: []validator.String{identifierValidator("deployment status id", "6743a1f0c2b4e5d6a7b8c9d0")},
	}
	attrs["project_id"] = schema.StringAttribute{
		MarkdownDescription: "Project the deployment belongs to, as the API reports it; null when not reported.",
		Computed:            true,
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads a deployment update's or preview's status by its `status_id`: its status, the commit it built and the files that " +
			"commit changed. Reading a `failure` is not an error: the status is reported, and a `postcondition` can turn it into one.",
		Attributes: attrs,
	}
}

func (d *deploymentDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *deploymentDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg deploymentDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	ctx, ok := begin(ctx, d.data, "the deployment cannot be read", &resp.Diagnostics)
	if !ok {
		return
	}
	statusID := cfg.StatusID.ValueString()
	dep, err := d.data.client.GetDeployment(ctx, statusID)
	if client.IsNotFound(err) {
		resp.Diagnostics.AddError("Deployment not found",
			gone("deployment status "+statusID, err)+" Check status_id; the API may also have stopped keeping an old status.")
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the deployment", fmt.Sprintf("Reading deployment %s failed: %s", statusID, withHint(err)))
		return
	}
	cfg.set(dep, d.data.sanitizer)
	cfg.StatusID = types.StringValue(statusID)
	cfg.ProjectID = optionalString(d.data.apiLine(dep.ProjectID))
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
