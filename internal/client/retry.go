package client

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// retryable decides whether a failed attempt may be repeated and says why.
// Idempotent calls are repeated after any transient failure; the others only
// when the server surely did not act on them (see MayHaveActed).
func retryable(ep endpoint, err error) (string, bool) {
	reason := transientReason(err)
	if reason == "" {
		return "", false
	}
	return reason, ep.idempotent || !MayHaveActed(err)
}

// transientReason describes a failure that a later attempt may not meet, or
// returns "" for one that it would meet again.
func transientReason(err error) string {
	var reqErr *RequestError
	if errors.As(err, &reqErr) {
		if !reqErr.MaybeProcessed {
			return "connection refused before the request was sent"
		}
		return "transport failure: " + reqErr.Err.Error()
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return ""
	}
	reason := fmt.Sprintf("HTTP %d", apiErr.StatusCode)
	switch code := apiErr.StatusCode; {
	case code == http.StatusTooManyRequests:
		return reason + " (rate limited)"
	case code == http.StatusServiceUnavailable && apiErr.RetryAfter > 0:
		return reason + " with Retry-After"
	case code >= 500:
		return reason
	case code >= 200 && code < 300:
		// A 2xx whose body could not be read: reading again is harmless, but
		// a start that succeeded must not be sent twice.
		return reason + " with an unreadable body"
	}
	return ""
}

// MayHaveActed reports whether the server could have acted on a request that
// failed with err: the connection broke after the request was sent, the
// server failed in a way that does not promise it did nothing (a 5xx other
// than 503 with Retry-After), or it answered 2xx with a body that could not
// be read. A 429, a 503 with Retry-After, a refused connection and any other
// 4xx promise that nothing was done.
func MayHaveActed(err error) bool {
	var reqErr *RequestError
	if errors.As(err, &reqErr) {
		return reqErr.MaybeProcessed
	}
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	switch code := apiErr.StatusCode; {
	case code == http.StatusServiceUnavailable && apiErr.RetryAfter > 0:
		return false
	case code >= 500, code >= 200 && code < 300:
		return true
	}
	return false
}

// refusedBeforeSending reports failures where the request surely never
// reached a server: the connection could not be made.
func refusedBeforeSending(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return true
	}
	var dnsErr *net.DNSError
	return errors.As(err, &dnsErr)
}

// scrubURLError drops the URL that net/http puts in its errors: the request
// is already named by its endpoint.
func scrubURLError(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err
	}
	return err
}

// ParseRetryAfter reads a Retry-After value given as delta-seconds or as an
// HTTP date. It reports false for a value that is neither, or already past.
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	value = strings.TrimSpace(value)
	if value == "" {
		return 0, false
	}
	const longest = 24 * time.Hour
	if secs, err := strconv.ParseInt(value, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		if secs > int64(longest/time.Second) {
			return longest, true
		}
		return time.Duration(secs) * time.Second, true
	} else if errors.Is(err, strconv.ErrRange) && isDigits(strings.TrimPrefix(value, "+")) {
		// Too many digits for int64: still delta-seconds, just very long.
		return longest, true
	}
	when, err := http.ParseTime(value)
	if err != nil {
		return 0, false
	}
	d := when.Sub(now)
	if d <= 0 {
		return 0, false
	}
	return d, true
}

// isDigits reports a non-empty string of ASCII digits only. strconv reports
// an overflow before it reaches a later non-digit, so "1870000000000000000A"
// fails with ErrRange although it is no number at all.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func parseRetryAfterHeader(value string, now time.Time) time.Duration {
	d, _ := ParseRetryAfter(value, now)
	return d
}
