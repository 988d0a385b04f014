package redirect

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Limit is as many redirects as Go's default client follows.
const Limit = 10

// Error is a refused redirect.
type Error struct {
	// Status is the redirect's HTTP status, 0 when unknown.
	Status int
	// Target is the scheme and host the redirect led to, never its path
	// or query.
	Target string
	// Reason says why it was refused.
	Reason string
}

func (e *Error) Error() string {
	status := "a redirect"
	if e.Status != 0 {
		status = fmt.Sprintf("an HTTP %d redirect", e.Status)
	}
	return fmt.Sprintf("refused %s to %s: %s", status, e.Target, e.Reason)
}

// Check returns an http.Client CheckRedirect function that follows at most
// limit redirects within the rule of the package comment; limit 0 refuses
// every redirect, with refusal as the reason.
func Check(limit int, refusal string) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		req.Header.Del("Referer")
		return Refusal(req, via, limit, refusal)
	}
}

// Refusal is the rule itself: why the redirect to req, after the requests
// in via, may not be followed, or nil when it may.
func Refusal(req *http.Request, via []*http.Request, limit int, refusal string) error {
	refuse := func(reason string) error {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		return &Error{Status: status, Target: Origin(req.URL), Reason: reason}
	}
	if len(via) == 0 {
		return nil
	}
	first, prev := via[0], via[len(via)-1]
	switch {
	case limit <= 0:
		return refuse(refusal)
	case len(via) >= limit:
		return refuse(fmt.Sprintf("stopped after %d redirects", limit))
	case first.URL.Scheme == "https" && req.URL.Scheme != "https":
		return refuse(fmt.Sprintf("a redirect from https to %s would send the request unencrypted", req.URL.Scheme))
	case req.Method != prev.Method:
		return refuse(fmt.Sprintf("following it would turn the %s into a %s", prev.Method, req.Method))
	case first.Header.Get("Authorization") != "" && Origin(req.URL) != Origin(first.URL):
		return refuse(fmt.Sprintf("the request's credentials stay at %s", Origin(first.URL)))
	}
	return nil
}

// Origin is a URL's scheme and host, with its port when it is not the
// scheme's default, in lower case: the part of a URL that messages may name,
// never the path or the query.
func Origin(u *url.URL) string {
	if u == nil {
		return "(no URL)"
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}
