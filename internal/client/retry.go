package client

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// retryable decides whether a failed attempt may be repeated and says why.
// Idempotent calls are repeated after any transient failure; the others only
// when the server surely did not act on them.
func retryable(ep endpoint, err error) (string, bool) {
	f := Classify(err)
	if !f.Transient {
		return "", false
	}
	return f.Reason, ep.idempotent || !f.MayHaveActed
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
