package client

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redirect"
)

// APIError is an HTTP answer outside 2xx, or a 2xx answer whose body could not be read.
type APIError struct {
	Endpoint   string // method and path, e.g. "GET /v1/static-export/jobs/se_1"
	StatusCode int
	Message    string        // the API's "error" field, or a description of a body that was not JSON
	RetryAfter time.Duration // from a Retry-After header, 0 when absent
	// collection marks an answer of an endpoint that always exists, such as
	// the list of export jobs: a 404 there means that the client's base URL points elsewhere.
	collection bool
	// gone marks a 404 in which the API says that the object asked for
	// does not exist (saysGone): only then does a 404 speak of the object.
	gone bool
	// project marks an answer of the project-scoped revision of static
	// export (see ProjectScoped).
	project bool
	// unrouted marks an answer given as to a route that is not served
	// (unroutedAnswer): it is not the API speaking.
	unrouted bool
	// inProject marks an answer on a path that names a project (see
	// InProject).
	inProject bool
}

func (e *APIError) Error() string {
	status := fmt.Sprintf("HTTP %d", e.StatusCode)
	if text := http.StatusText(e.StatusCode); text != "" {
		status += " " + text
	}
	if e.RetryAfter > 0 {
		status += fmt.Sprintf(" (Retry-After %s)", duration.Written(e.RetryAfter))
	}
	if e.Message == "" {
		return fmt.Sprintf("%s: %s", e.Endpoint, status)
	}
	// A clause, as errors are: a message that ends a sentence would end
	// the provider's sentence that quotes it twice ("plan.. Ask").
	return fmt.Sprintf("%s: %s: %s", e.Endpoint, status, strings.TrimRight(e.Message, ". "))
}

// RequestError is a failure before any HTTP answer was read: refused connection,
// reset, timeout. MaybeProcessed tells whether the server could have acted on it.
type RequestError struct {
	Endpoint       string
	Err            error
	MaybeProcessed bool
}

func (e *RequestError) Error() string {
	var refused *redirect.Error
	if errors.As(e.Err, &refused) {
		return fmt.Sprintf("%s: %v", e.Endpoint, e.Err) // the server answered: neither unsent nor failed
	}
	if !e.MaybeProcessed {
		return fmt.Sprintf("%s: request not sent: %v", e.Endpoint, e.Err)
	}
	return fmt.Sprintf("%s: request failed: %v", e.Endpoint, e.Err)
}

func (e *RequestError) Unwrap() error { return e.Err }

// SlowAnswerError is an attempt that did not complete within the client's
// time for one attempt: no answer came, or its body was still arriving.
type SlowAnswerError struct {
	Limit    time.Duration
	Headers  bool  // whether the status line and headers had arrived
	Received int64 // bytes of the body received, when Headers
}

func (e *SlowAnswerError) Error() string {
	if !e.Headers {
		return fmt.Sprintf("no answer within %s, the time allowed for one attempt", duration.Written(e.Limit))
	}
	return fmt.Sprintf("the answer was still arriving after %s, the time allowed for one attempt (%d bytes of its body received)", duration.Written(e.Limit), e.Received)
}

// StatusCode returns the HTTP status of err, or 0 when err carries none.
func StatusCode(err error) int {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode
	}
	return 0
}

// IsNotFound reports that the API said the object asked for does not exist
// (KindNotFound): a 404 answered with the API's own error that names the
// object, or with its documented message for a missing one. A 404 from a
// route that does not exist, a proxy's page, another API's generic error
// or a URL that points elsewhere (KindNoSuchPath) is not: it says nothing
// of the object.
func IsNotFound(err error) bool { return Classify(err).Kind == KindNotFound }

// IsConflict reports a 409: the bundle call of a job that has not
// finished, or a project-revision start while another export runs.
func IsConflict(err error) bool { return StatusCode(err) == http.StatusConflict }

// ProjectScoped reports an error answered by the project-scoped revision
// of static export, where a 401 also means a plan without API access or
// static export not enabled for the project, a 403 a key without write
// permission or a caller outside its allowlist, and a 404 on a start a
// project that does not exist or is not in the key's organization.
func ProjectScoped(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.project
}

// InProject reports an error answered on a path that names a project (an
// agent job's, a deployment's, a preview's, a project export's), where a
// 404 that speaks of no object may mean that the API knows no such
// project as well as that the route is not served.
func InProject(err error) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.inProject
}

// IsLinkNotReady reports a link asked for too early: the bundle call's 409,
// or a project-revision job without a link yet. Asking again later may work.
func IsLinkNotReady(err error) bool {
	var notReady *LinkNotReadyError
	return IsConflict(err) || errors.As(err, &notReady)
}
