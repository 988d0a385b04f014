package provider

import (
	"context"
	"errors"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

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
