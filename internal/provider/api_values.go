package provider

import (
	"fmt"
	"net/url"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// What the API returns reaches a message, a log record or state only through
// the provider's sanitizer (internal/redact), and state in the schema's
// types: these are the shapes the provider uses.

// apiLine is a short value of the API (a status, a model, a branch) as it may
// be shown or stored: secrets hidden, control characters quoted, bounded.
func (d *providerData) apiLine(s string) string { return lineOf(d.sanitizer, s) }

// lineOf is apiLine for code that is handed the sanitizer alone.
func lineOf(s *redact.Sanitizer, v string) string { return s.Line(v, redact.LineBytes) }

// apiLineValue is apiLine of an optional value; null when absent.
func (d *providerData) apiLineValue(s *string) types.String {
	if s == nil {
		return types.StringNull()
	}
	return types.StringValue(d.apiLine(*s))
}

// allowHTTPLinks reports whether links from the API may be plain http: only
// where the user reaches the API itself over http.
func (d *providerData) allowHTTPLinks() bool {
	u, err := url.Parse(d.baseURL)
	return err == nil && u.Scheme == "http"
}

// shownLink is a link from the API as a message may show it, or "" when it
// may not appear at all (redact.Sanitizer.Link).
func (d *providerData) shownLink(raw string) string {
	link, _ := d.sanitizer.Link(raw, d.allowHTTPLinks())
	return link
}

// apiLinkValue is a link from the API as state may keep it: null when absent,
// and null with a warning naming field when it is not an https link (http
// where base_url is) without credentials or a secret the provider knows
// (redact.Sanitizer.Link).
func (d *providerData) apiLinkValue(field string, raw *string, diags *diag.Diagnostics) types.String {
	if raw == nil || *raw == "" {
		return types.StringNull()
	}
	link, problem := d.sanitizer.Link(*raw, d.allowHTTPLinks())
	if problem != "" {
		diags.AddWarning("Link from the API not stored: "+field,
			fmt.Sprintf("The API returned a %s that is not stored, and %s is null: %s. "+
				"Only https links are kept (http where base_url is http), without a user name, password, signature or token, "+
				"and without the API key or a prompt the provider sent.", field, field, problem))
		return types.StringNull()
	}
	return types.StringValue(link)
}

// shownJob is an agent job as progress messages may show it: its status
// sanitized, its pull request link only where state could keep it.
func (d *providerData) shownJob(job *client.AgentJob) *client.AgentJob {
	shown := *job
	shown.Status = client.AgentStatus(d.apiLine(string(job.Status)))
	shown.PRLink = nil
	if job.PRLink != nil {
		if link := d.shownLink(*job.PRLink); link != "" {
			shown.PRLink = &link
		}
	}
	return &shown
}

// timeValue is a time the API reported, in RFC 3339 and UTC; null when it
// did not report one.
func timeValue(t *time.Time) types.String {
	if t == nil {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}

// optionalString is null for an empty string: a value the API left out.
func optionalString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
