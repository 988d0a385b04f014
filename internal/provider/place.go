package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

// apiPlace is where an object was made.
type apiPlace struct {
	BaseURL string `json:"base_url"`
	Project string `json:"project_id,omitempty"` // "": the route holds no project
}

func (p apiPlace) String() string {
	if p.Project == "" {
		return p.BaseURL
	}
	return fmt.Sprintf("project %s at %s", p.Project, p.BaseURL)
}

// sameAPI reports whether p was made at the API that baseURL names, by
// client.APIAddress: the one comparison of two base URLs, which resume keys
// and the manifest cache make through client.APIAddress too.
func (p apiPlace) sameAPI(baseURL string) bool {
	return client.APIAddress(p.BaseURL) == client.APIAddress(baseURL)
}

// configuredPlace is where the provider is configured to make an object of
// project ("" for one whose route holds none): its base_url.
func (d *providerData) configuredPlace(project string) apiPlace {
	return apiPlace{BaseURL: d.baseURL, Project: project}
}

// madeAtAnotherAPI reports a recorded place at another API than base_url:
// asking there would send this key to another server, and asking base_url
// says nothing of the object, so it is neither read nor removed from state.
func (d *providerData) madeAtAnotherAPI(recorded *apiPlace) bool {
	return recorded != nil && !recorded.sameAPI(d.baseURL)
}

// knowExport tells the client where a job in state was made: the revision
// it was found in and, from its recorded place, its project.
func (d *providerData) knowExport(m staticExportModel, recorded *apiPlace) {
	project := ""
	if recorded != nil {
		project = recorded.Project
	}
	d.client.KnowExport(m.JobID.ValueString(), client.ExportRevision(m.APIRevision.ValueString()), project)
}

// exportJobPlace is where the client found export job jobID: base_url and,
// when the route of the job's revision holds one, the project.
func (d *providerData) exportJobPlace(jobID string) apiPlace {
	return d.configuredPlace(d.client.ExportProject(jobID))
}

// notePlace follows a read of an object at found: state written before the
// place was recorded records it now; an object read in a project other
// than the one configured (a route that holds one) draws the warning that
// says so.
func (d *providerData) notePlace(ctx context.Context, what string, recorded *apiPlace, found apiPlace, private privateSetter, diags *diag.Diagnostics) {
	if recorded == nil {
		diags.Append(recordPlace(ctx, private, found)...)
		return
	}
	if recorded.Project != "" && recorded.Project != d.projectID {
		diags.AddWarning(d.placeWarning(what, *recorded, readWhereMade))
	}
}

// What becomes of an object made at another place than the provider is
// configured for, for placeWarning.
const (
	notReadAtAnotherAPI = "It is kept in state as it is and not read, so that no request carries the API key to another server, and nothing is dropped."
	readWhereMade       = "It is read there, where it was made, and kept in state."
)

// warnMovedProject warns, at plan, of an object of project recorded (a
// deployment or a preview, whose project is an attribute) that a
// configuration without its own project_id keeps while the provider's
// project_id now names another: the object stays as it is, and work it
// starts again (a change of triggers) goes to recorded, the project it
// was made for. No project on the provider (a create would fail) is no
// move.
func (d *providerData) warnMovedProject(what string, configured types.String, recorded string, diags *diag.Diagnostics) {
	if d == nil || !configured.IsNull() || d.projectID == "" || recorded == "" || recorded == d.projectID {
		return
	}
	diags.AddWarning(d.placeWarning(what, apiPlace{BaseURL: d.baseURL, Project: recorded},
		fmt.Sprintf("It is kept in state, and a change of triggers starts the next one in project %s again, where this resource was made. "+
			"To keep project %s without this warning, set project_id = %q in this resource.", recorded, recorded, recorded)))
}

// placeWarning is the one wording of an object made at another place than
// the provider is configured for now: where it was made, where the
// provider points, what becomes of it (consequence), and what to do.
// what names it, such as "Export job se_1". A move never plans a
// replacement by itself: a mistyped setting must never cost a new export.
func (d *providerData) placeWarning(what string, recorded apiPlace, consequence string) (string, string) {
	now := d.configuredPlace("")
	if recorded.Project != "" {
		now.Project = d.projectID
	}
	return "Object made elsewhere than the provider now points",
		fmt.Sprintf("%s was made at %s; the provider now points at %s. %s "+
			"If the setting is mistyped, fix it (base_url, project_id or their environment variables). "+
			"To make a new one at %s instead, replace it (terraform apply -replace=<this resource's address>).",
			what, recorded, now, consequence, now)
}
