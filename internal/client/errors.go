package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// APIError is an HTTP answer outside 2xx, or a 2xx answer whose body could not be read.
type APIError struct {
	Endpoint   string // method and path, e.g. "GET /v1/static-export/jobs/se_1"
	StatusCode int
	Message    string        // the API's "error" field, or a description of a body that was not JSON
	RetryAfter time.Duration // from a Retry-After header, 0 when absent
}

func (e *APIError) Error() string {
	status := fmt.Sprintf("HTTP %d", e.StatusCode)
	if text := http.StatusText(e.StatusCode); text != "" {
		status += " " + text
	}
	if e.RetryAfter > 0 {
		status += fmt.Sprintf(" (Retry-After %s)", e.RetryAfter)
	}
	if e.Message == "" {
		return fmt.Sprintf("%s: %s", e.Endpoint, status)
	}
	return fmt.Sprintf("%s: %s: %s", e.Endpoint, status, e.Message)
}

// RequestError is a failure before any HTTP answer was read: refused connection,
// reset, timeout. MaybeProcessed tells whether the server could have acted on it.
type RequestError struct {
	Endpoint       string
	Err            error
	MaybeProcessed bool
}

func (e *RequestError) Error() string {
	return fmt.Sprintf("%s: request failed: %v", e.Endpoint, e.Err)
}

func (e *RequestError) Unwrap() error { return e.Err }

// StatusCode returns the HTTP status of err, or 0 when err carries none.
func StatusCode(err error) int {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode
	}
	return 0
}

// IsNotFound reports a 404.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// IsConflict reports a 409, which the bundle endpoint answers for a job that has not finished.
func IsConflict(err error) bool { return StatusCode(err) == http.StatusConflict }

// IsUnauthorized reports a 401: the key is missing, wrong or expired.
func IsUnauthorized(err error) bool { return StatusCode(err) == http.StatusUnauthorized }

// IsForbidden reports a 403: missing scope, caller outside the IP allowlist, or feature not enabled.
func IsForbidden(err error) bool { return StatusCode(err) == http.StatusForbidden }

// IsRateLimited reports a 429.
func IsRateLimited(err error) bool { return StatusCode(err) == http.StatusTooManyRequests }

// IsTransient reports errors worth trying again later: 429, 5xx and transport failures.
func IsTransient(err error) bool {
	code := StatusCode(err)
	if code == http.StatusTooManyRequests || code >= 500 {
		return true
	}
	var reqErr *RequestError
	return errors.As(err, &reqErr)
}

// Hint returns what a user can do about err, or "" when there is nothing specific to say.
func Hint(err error) string {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "" // the caller knows which wait ended and says so
	}
	switch StatusCode(err) {
	case http.StatusUnauthorized:
		return "The API key is missing, wrong or expired: generate a new admin API key on the dashboard's API keys page and set api_key or DOCSADMIN_API_KEY."
	case http.StatusForbidden:
		return "The key was recognised but may not do this: check that the key has the needed scope (read for GET, write otherwise), that this machine's IP address is in the key's allowlist, and that the feature is enabled for the organization (static export requires an Enterprise plan)."
	case http.StatusTooManyRequests:
		return "The API is rate limiting this key: lower requests_per_second or terraform's -parallelism, or try again later."
	}
	if code := StatusCode(err); code >= 500 {
		return "The API had a server-side failure that persisted through retries: try again later; raise max_retries to ride out longer outages."
	}
	var reqErr *RequestError
	if errors.As(err, &reqErr) {
		return "The API could not be reached: check base_url and the network path to it."
	}
	return ""
}
