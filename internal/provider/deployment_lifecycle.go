package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

// What the docsadmin_deployment and docsadmin_preview_deployment resources
// share in Read and Update: the refresh of the recorded status, and when an
// update calls the API at all.

// refreshDeployment reads the recorded status again into m where it was
// made (its route holds no project: the API's address). A status the API
// no longer keeps takes the resource out of state with the warning gone
// words, so that the next apply deploys again; unreadable is the summary of
// the error for any other failure. It reports whether m was refreshed.
func (d *providerData) refreshDeployment(ctx context.Context, m *deploymentStatusModel, unreadable string,
	gone func(err error) (summary, detail string), resp *resource.ReadResponse) bool {
	statusID := m.StatusID.ValueString()
	recorded := recordedPlace(ctx, resp.Private)
	if d.elsewhere(recorded) {
		resp.Diagnostics.AddWarning(d.placeWarning("Deployment status "+statusID, *recorded, false))
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
		resp.Diagnostics.Append(recordPlace(ctx, resp.Private, d.here(""))...)
	}
	m.set(dep, d.sanitizer)
	m.StatusID = types.StringValue(statusID)
	return true
}

// beginDeploymentUpdate starts an Update. ModifyPlan leaves the status
// unknown only when a deployment is due or one left unfinished is still to
// be awaited: any other change (timeouts, wait) is only recorded, by saving
// plan, the whole model. It returns the masked context and the limit of the
// wait, or false when Update has nothing more to do.
func beginDeploymentUpdate(ctx context.Context, data *providerData, consequence string, plan any, plannedStatus types.String,
	limits timeouts.Value, resp *resource.UpdateResponse) (context.Context, time.Duration, bool) {
	if resp.Diagnostics.HasError() || !requireConfigured(data, &resp.Diagnostics, consequence) {
		return ctx, 0, false
	}
	ctx = data.maskSecrets(ctx)
	if !plannedStatus.IsUnknown() {
		resp.Diagnostics.Append(resp.State.Set(ctx, plan)...)
		return ctx, 0, false
	}
	limit, diags := limits.Update(ctx, defaultDeploymentWait)
	resp.Diagnostics.Append(diags...)
	return ctx, limit, !resp.Diagnostics.HasError()
}

// deploymentOver reads a deployment or preview build, for the resume
// protocol: whether it is over, failed or ended with a status the provider
// does not know (it will never succeed: the replacement starts afresh).
func (d *providerData) deploymentOver(ctx context.Context, statusID string) (bool, error) {
	dep, err := d.client.GetDeployment(ctx, statusID)
	return err == nil && (dep.Status == client.DeploymentFailure || dep.EndedUnknown()), err
}
