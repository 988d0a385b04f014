package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/resume"
)

// previewDeploymentResource is docsadmin_preview_deployment: the preview
// kind of the one lifecycle (deployment_lifecycle.go).
type previewDeploymentResource = deploymentLifecycle[previewDeploymentModel, *previewDeploymentModel]

// previewEntitlement names what an organisation needs for previews, in
// errors and docs alike.
const previewEntitlement = "preview deployments entitlement"

// NewPreviewDeploymentResource is the docsadmin_preview_deployment resource.
func NewPreviewDeploymentResource() resource.Resource {
	return &previewDeploymentResource{kind: deploymentKind{
		typeName: "_preview_deployment",
		description: "A preview deployment of a branch: apply creates it, or rebuilds it when `triggers` change, and by default waits " +
			"for the build. Needs the organisation's " + previewEntitlement + ". Destroy only forgets the preview: the API cannot delete one.",
		attributes:     previewAttributes,
		createTimeout:  "Longest wait for the first build when `wait` is true, as a duration such as `20m`.",
		updateTimeout:  "Longest wait for a rebuild when `wait` is true.",
		noStart:        "no preview can be built",
		noRead:         "the preview cannot be read",
		unreadable:     "Cannot read the preview deployment",
		cannotContinue: "Cannot continue the unfinished preview build",
		again: "The failed status is saved in state, so the next terraform apply rebuilds the preview. Fix the cause on the branch " +
			"(the full log is on the dashboard) and run terraform apply.",
	}}
}

func previewAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"id": schema.StringAttribute{
			MarkdownDescription: "Identifier of the latest build's status (same as `status_id`): it changes with every rebuild.",
			Computed:            true,
		},
		"project_id": projectIDAttribute("Project of the preview. Default: the provider's `project_id` (or `DOCSADMIN_PROJECT_ID`) at create; one of them must be set. Changing it here replaces the resource; " +
			"a change of the provider's setting keeps the project the resource was made for, and the plan warns."),
		"branch": schema.StringAttribute{
			MarkdownDescription: "Branch of the docs repository to preview, such as `feature/new-navigation`. Changing it replaces the resource: another branch is another preview.",
			Required:            true,
			Validators:          []validator.String{notBlankValidator()},
			PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
		},
		"triggers": triggersAttribute("Arbitrary strings whose change rebuilds the preview, in place, for example `{ head = var.branch_head }`. Not sent to the API.", false),
		"wait": schema.BoolAttribute{
			MarkdownDescription: "Whether apply waits until the build ends (`success` or `failure`, within the `timeouts`), and fails on a failed build. " +
				"With `false` apply ends once the build is queued, with `status` `queued`; refresh reads the status then. Default: `true`.",
			Optional: true,
			Computed: true,
			Default:  booldefault.StaticBool(true),
		},
		"preview_url": schema.StringAttribute{
			MarkdownDescription: "Address of the preview, as the API returned it. The same for every rebuild of the branch. Only an https link (http where `base_url` is http) without a user name, password, signature or token is kept; anything else is null, with a warning naming the attribute.",
			Computed:            true,
			PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
		},
	}
}

type previewDeploymentModel struct {
	deploymentBase
	Branch     types.String `tfsdk:"branch"`
	Wait       types.Bool   `tfsdk:"wait"`
	PreviewURL types.String `tfsdk:"preview_url"`
}

func (m *previewDeploymentModel) subject(statusID string) string {
	return fmt.Sprintf("preview deployment %s of branch %q in project %s", statusID, m.Branch.ValueString(), m.ProjectID.ValueString())
}

// resumeKey identifies a preview build by its project, branch and
// triggers.
func (m *previewDeploymentModel) resumeKey(d *providerData) resume.Key {
	return d.resumeKey("docsadmin_preview_deployment", m.ProjectID.ValueString(), struct {
		Branch   string
		Triggers map[string]string
	}{m.Branch.ValueString(), triggerValues(m.Triggers)})
}

// start asks for a build of the branch's preview.
func (m *previewDeploymentModel) start(ctx context.Context, d *providerData, diags *diag.Diagnostics) (string, bool) {
	projectID, branch := m.ProjectID.ValueString(), m.Branch.ValueString()
	start, err := d.client.CreatePreviewDeployment(ctx, projectID, branch)
	if err != nil {
		diags.AddError("Cannot build the preview deployment", previewStartError(projectID, branch, err))
		return "", false
	}
	tflog.Info(ctx, "queued a preview deployment", map[string]any{"status_id": start.StatusID, "project_id": projectID, "branch": branch})
	warnMalformed(diags, fmt.Sprintf("the preview call for branch %q of project %s", branch, projectID), start.Malformed)
	if start.PreviewURL != nil {
		// A link state may not keep is null, with a warning; a rebuild
		// keeps the address planned from state.
		if link := d.apiLinkValue("preview_url", start.PreviewURL, diags); !link.IsNull() || m.PreviewURL.IsUnknown() {
			m.PreviewURL = link
		}
	} else if m.PreviewURL.IsUnknown() {
		m.PreviewURL = types.StringNull()
	}
	return start.StatusID, true
}

// waits: with wait false, apply ends once the build is queued.
func (m *previewDeploymentModel) waits() bool { return m.Wait.ValueBool() }

// address is the preview's: the same for every rebuild of the branch.
func (m *previewDeploymentModel) address() *types.String { return &m.PreviewURL }

func (m *previewDeploymentModel) gone(err error) (string, string) {
	return goneFromState(fmt.Sprintf("status %s of the preview of branch %q", m.StatusID.ValueString(), m.Branch.ValueString()), "the next apply rebuilds the preview.", err)
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
