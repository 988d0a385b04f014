package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
)

// What the provider says when the API fails or answers unexpectedly: what
// the user can do about it, in the provider's settings.

// withHint appends what the user can do about an API error.
func withHint(err error) string {
	if hint := hint(err); hint != "" {
		return err.Error() + ". " + hint
	}
	return err.Error()
}

// hint returns what a user can do about err, in terms of the provider's
// settings, or "" when there is nothing specific to say.
func hint(err error) string {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "" // the caller knows which wait ended and says so
	}
	var revErr *client.RevisionError
	if errors.As(err, &revErr) && revErr.Unrouted() {
		return unroutedRevisionsHint(revErr.KnownJob())
	}
	if client.ProjectScoped(err) {
		if text := projectScopedHint(err); text != "" {
			return text
		}
	}
	switch client.Classify(err).Kind {
	case client.KindUnauthorized:
		return "The API key is missing, wrong or expired: generate a new admin API key on the dashboard's API keys page and set api_key or " + envAPIKey + "."
	case client.KindForbidden:
		return "The key was recognised but may not do this: check that the key has the needed scope (read for GET, write otherwise), that this machine's IP address is in the key's allowlist, and that the feature is enabled for the organization (static export requires an Enterprise plan)."
	case client.KindRateLimited:
		return "The API is rate limiting this key: set requests_per_second below the key's limit, or lower terraform's -parallelism, or try again later."
	case client.KindServer:
		return "The API had a server-side failure that persisted through retries: try again later; raise max_retries to ride out longer outages."
	case client.KindNoSuchPath:
		if client.InProject(err) {
			return "The answer speaks of no object asked for: either project_id (or " + envProjectID + ") names a project that does not exist or is not in the key's organization " +
				"(check it against the dashboard's API keys page), or there is no such route at base_url " +
				"(set it to the API's root, such as https://api.example.com, or to a reverse proxy's prefix in front of it, without an API version such as /v1)."
		}
		return "The answer is not the API's own: there is no such route at base_url, so it says nothing of the object asked for. " +
			"Set base_url to the API's root, such as https://api.example.com, or to a reverse proxy's prefix in front of it, without an API version such as /v1."
	case client.KindRedirected:
		return "Redirects are not followed, so that the API key never leaves base_url's address and a request is never sent as another: " +
			"set base_url to the address the API answers at (its scheme, host and port), or fix the proxy in front of it."
	case client.KindUnreachable:
		return "Nothing was sent: the API could not be reached. Check base_url, the network path to it, and HTTPS_PROXY / NO_PROXY if a proxy is needed."
	case client.KindTLS:
		return "Nothing was sent: the TLS handshake failed. If a proxy or gateway presents a certificate of a private authority, set SSL_CERT_FILE to a file of PEM certificates that includes it; check that base_url names the API's host."
	case client.KindProtocol:
		return "Nothing was sent: the server at base_url does not speak the scheme it names (for example plain HTTP on an https:// URL). Check base_url's scheme and port."
	case client.KindTransport:
		return "The connection broke while the request was under way: check the network path to the API and any proxy."
	}
	return ""
}

// unroutedRevisionsHint words a static export call that neither revision
// answered as the API does (client.RevisionError.Unrouted): nothing was
// said of the export. Of a job whose revision state knows, base_url is
// where it was found, so it is not the setting to change.
func unroutedRevisionsHint(knownJob bool) string {
	if knownJob {
		return "Neither revision of the static export API answers as the API does at base_url, where this export was found: " +
			"the API, or a proxy in front of it, does not route static export at the moment, so nothing was said of the export, " +
			"which is kept in state, and nothing was started. Apply again later; if the API's operator says that the export is gone, " +
			"remove it from state (terraform state rm <address>) and apply to start a new one."
	}
	return "Neither revision of the static export API answers as the API does at base_url, so nothing was said of the export and nothing was started. " +
		"Either the API, or a proxy in front of it, does not route static export at the moment (try again later), " +
		"or base_url is not the API's root: it must be the API's root, such as https://api.example.com, or a reverse proxy's prefix in front of it, " +
		"without an API version such as /v1."
}

// projectScopedHint words what the project-scoped revision of static export
// means by a 401, a 403 or a 404 (part E of the API's reference).
func projectScopedHint(err error) string {
	switch client.Classify(err).Kind {
	case client.KindUnauthorized:
		return "In the project-scoped static export API a 401 means one of three things: the API key is missing or invalid " +
			"(set api_key or " + envAPIKey + " to an admin key from the dashboard's API keys page), the organization's plan has no API access, " +
			"or static export is not enabled for the project (both on the dashboard, or with the platform's support)."
	case client.KindForbidden:
		return "In the project-scoped static export API a 403 means that the key lacks write permission (a start needs it), " +
			"or that this machine's IP address is not in the key's allowlist."
	case client.KindNotFound, client.KindNoSuchPath:
		return "In the project-scoped static export API a 404 also means that project_id names a project that does not exist or is not in the key's organization: " +
			"check project_id against the dashboard's API keys page."
	}
	return ""
}

// tryAgain says when a rate-limited call may succeed: at the time the
// Retry-After header gives, else within the hour that the limit counts.
func (d *providerData) tryAgain(err error) string {
	if wait := client.Classify(err).RetryAfter; wait > 0 {
		return "Try again " + d.retryPhrase(wait)
	}
	return "Try again within the hour"
}

// retryPhrase words when a wait the API asked for ends: "after
// 2026-11-22T09:00:00Z (in 1h)".
func (d *providerData) retryPhrase(wait time.Duration) string {
	at := d.now().Add(wait).UTC().Truncate(time.Second)
	return fmt.Sprintf("after %s (in %s)", at.Format(time.RFC3339), duration.Written(wait.Round(time.Second)))
}

// warnMalformed warns that the answer to a call that acted (what names it)
// had fields of a type or form the client does not read. The call is not
// failed: the server acted, and failing would lose the id of what it
// started, so that the next apply would start it again. Only the fields'
// names appear, never their values.
func warnMalformed(diags *diag.Diagnostics, what string, fields []string) {
	if len(fields) == 0 {
		return
	}
	quoted := make([]string, len(fields))
	for i, f := range fields {
		quoted[i] = fmt.Sprintf("%q", f)
	}
	diags.AddWarning("Unexpected values in the API's answer",
		fmt.Sprintf("The answer to %s had a value of an unexpected type or form in %s, which was ignored; the rest of the answer, the id included, was used. "+
			"The API may have changed: if this persists, report it with the provider's version.", what, strings.Join(quoted, ", ")))
}

// unknownEndError is a deployment or an agent job that says it ended (its
// end time is set) with a status the provider does not know: the wait ends
// at once rather than waiting out its limit for a change that will not
// come. status has been through the provider's sanitizer.
type unknownEndError struct {
	subject string
	status  string
	known   []string // the statuses the API documents
	field   string   // the end time the API set: "endedAt", "archivedAt"
	next    string   // what to do
}

func (e *unknownEndError) Error() string {
	return fmt.Sprintf("%s ended with status \"%s\", which the provider does not know (it knows %s): the API set its %s, so it will not change again. %s",
		e.subject, e.status, strings.Join(e.known, ", "), e.field, e.next)
}
