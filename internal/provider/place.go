package provider

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
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

// here is the place the provider points at now, for an object of project
// ("" for one whose route holds none).
func (d *providerData) here(project string) apiPlace {
	return apiPlace{BaseURL: d.baseURL, Project: project}
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
		diags.AddWarning(d.placeWarning(what, *recorded, keptAndRead))
	}
}

// What an object that lives elsewhere becomes, for placeWarning.
const (
	keptNotRead = "It is kept in state as it is and not read, so that no request carries the API key to another server, and nothing is dropped."
	keptAndRead = "It is read there, where it was made, and kept in state."
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

// elsewhere reports a recorded place at another API than base_url: asking
// there would send this key to another server, and asking here says nothing
// of the object, so it is neither read nor dropped.
func (d *providerData) elsewhere(recorded *apiPlace) bool {
	return recorded != nil && !sameAPI(recorded.BaseURL, d.baseURL)
}

// sameAPI compares two base URLs as addresses: the scheme and host in any
// case, a default port written or not, a trailing slash or not.
func sameAPI(a, b string) bool {
	return canonicalBaseURL(a) == canonicalBaseURL(b)
}

func canonicalBaseURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return raw
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname())
	if port := u.Port(); port != "" && !(scheme == "https" && port == "443") && !(scheme == "http" && port == "80") {
		host = net.JoinHostPort(host, port)
	}
	return scheme + "://" + host + strings.TrimRight(u.EscapedPath(), "/")
}

// placeWarning is the one wording of an object that lives elsewhere than
// the provider points now: where it lives, where the provider points, what
// becomes of it (kept), and what to do.
// what names it, such as "Export job se_1". A move never plans a
// replacement by itself: a mistyped setting must never cost a new export.
func (d *providerData) placeWarning(what string, recorded apiPlace, kept string) (string, string) {
	now := d.here("")
	if recorded.Project != "" {
		now.Project = d.projectID
	}
	return "Object made elsewhere than the provider now points",
		fmt.Sprintf("%s was made at %s; the provider now points at %s. %s "+
			"If the setting is mistyped, fix it (base_url, project_id or their environment variables). "+
			"To make a new one at %s instead, replace it (terraform apply -replace=<this resource's address>).",
			what, recorded, now, kept, now)
}
