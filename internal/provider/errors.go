package provider

import (
	"context"
	"errors"
	"net/http"

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
	switch code := client.StatusCode(err); {
	case code == http.StatusUnauthorized:
		return "The API key is missing, wrong or expired: generate a new admin API key on the dashboard's API keys page and set api_key or " + envAPIKey + "."
	case code == http.StatusForbidden:
		return "The key was recognised but may not do this: check that the key has the needed scope (read for GET, write otherwise), that this machine's IP address is in the key's allowlist, and that the feature is enabled for the organization (static export requires an Enterprise plan)."
	case code == http.StatusTooManyRequests:
		return "The API is rate limiting this key: set requests_per_second below the key's limit, or lower terraform's -parallelism, or try again later."
	case code >= 500:
		return "The API had a server-side failure that persisted through retries: try again later; raise max_retries to ride out longer outages."
	}
	var reqErr *client.RequestError
	if errors.As(err, &reqErr) {
		return "The API could not be reached: check base_url and the network path to it."
	}
	return ""
}
