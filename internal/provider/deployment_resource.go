package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/resume"
)

// deploymentResource is docsadmin_deployment: the deployment kind of the one
// lifecycle (deployment_lifecycle.go).
type deploymentResource = deploymentLifecycle[deploymentResourceModel, *deploymentResourceModel]

// NewDeploymentResource is the docsadmin_deployment resource.
func NewDeploymentResource() resource.Resource {
	return &deploymentResource{kind: deploymentKind{
		typeName: "_deployment",
		description: "Deploys the project from its configured deployment branch and waits until the deployment ends: apply queues a " +
			"deployment update, follows it until `success` or `failure`, and records the commit it built (`commit_sha`). A change of " +
			"`triggers`, or a failed deployment in state, deploys again in place on the next apply. Destroy only forgets the deployment: " +
			"the API cannot undo one.",
		attributes: func() map[string]schema.Attribute {
			return map[string]schema.Attribute{
				"id": schema.StringAttribute{
					MarkdownDescription: "Identifier of the latest deployment's status (same as `status_id`): it changes with every deployment.",
					Computed:            true,
				},
				"project_id": projectIDAttribute("Project to deploy. Default: the provider's `project_id` (or `DOCSADMIN_PROJECT_ID`) at create; one of them must be set. Changing it here replaces the resource; " +
					"a change of the provider's setting keeps the project the resource was made for, and the plan warns."),
				"triggers": triggersAttribute("Arbitrary strings whose change deploys again, in place, for example `{ docs_commit = var.docs_commit }` to deploy "+
					"every publication. Not sent to the API.", false),
			}
		},
		createTimeout:  "Longest wait for the first deployment to end, as a duration such as `45m`.",
		updateTimeout:  "Longest wait for a new deployment (a change of `triggers`), or for one an earlier apply left unfinished, to end.",
		noStart:        "no deployment can be queued",
		noRead:         "the deployment cannot be read",
		unreadable:     "Cannot read the deployment",
		cannotContinue: "Cannot continue the unfinished deployment",
		again: "The failed status is saved in state, so the next terraform apply deploys again. Fix the cause (the full log is on the dashboard) " +
			"and run terraform apply.",
	}}
}

type deploymentResourceModel struct {
	deploymentBase
}

func (m *deploymentResourceModel) subject(statusID string) string {
	return "deployment " + statusID + " of project " + m.ProjectID.ValueString()
}

// resumeKey identifies a deployment by its project and triggers.
func (m *deploymentResourceModel) resumeKey(d *providerData) resume.Key {
	return d.resumeKey("docsadmin_deployment", m.ProjectID.ValueString(), triggerValues(m.Triggers))
}

// start queues a deployment of the project.
func (m *deploymentResourceModel) start(ctx context.Context, d *providerData, diags *diag.Diagnostics) (string, bool) {
	projectID := m.ProjectID.ValueString()
	start, err := d.client.TriggerDeployment(ctx, projectID)
	if err != nil {
		diags.AddError("Cannot deploy the project", deploymentStartError("a deployment of project "+projectID, err))
		return "", false
	}
	tflog.Info(ctx, "queued a deployment", map[string]any{"status_id": start.StatusID, "project_id": projectID})
	warnMalformed(diags, "the deployment call for project "+projectID, start.Malformed)
	return start.StatusID, true
}

// waits: apply always waits for a deployment.
func (m *deploymentResourceModel) waits() bool { return true }

func (m *deploymentResourceModel) gone(err error) (string, string) {
	return goneFromState(fmt.Sprintf("deployment %s of project %s", m.StatusID.ValueString(), m.ProjectID.ValueString()), "the next apply deploys again.", err)
}
