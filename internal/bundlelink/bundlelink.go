package bundlelink

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrNoExpiry reports a link whose query carries no recognised expiry.
var ErrNoExpiry = errors.New("the link carries no expiry: expected X-Amz-Date with X-Amz-Expires (S3) or X-Goog-Date with X-Goog-Expires (GCS) in its query")

const signingTimeLayout = "20060102T150405Z"

// Expiry returns when a presigned link stops working, from its S3-style
// (X-Amz-Date + X-Amz-Expires) or GCS-style (X-Goog-Date + X-Goog-Expires)
// query. Errors never contain the link itself.
func Expiry(rawURL string) (time.Time, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return time.Time{}, errors.New("the link is not a valid URL")
	}
	query := u.Query()
	for _, prefix := range []string{"X-Amz-", "X-Goog-"} {
		date, hasDate := lookup(query, prefix+"Date")
		expires, hasExpires := lookup(query, prefix+"Expires")
		if !hasDate && !hasExpires {
			continue
		}
		if !hasDate || !hasExpires {
			return time.Time{}, fmt.Errorf("the link has only one of %sDate and %sExpires; both are needed to know its expiry", prefix, prefix)
		}
		signed, err := time.Parse(signingTimeLayout, date)
		if err != nil {
			return time.Time{}, fmt.Errorf("the link's %sDate %q is not in the form 20060102T150405Z", prefix, date)
		}
		seconds, err := strconv.ParseInt(expires, 10, 64)
		if err != nil || seconds < 0 || seconds > 10*365*24*3600 {
			return time.Time{}, fmt.Errorf("the link's %sExpires %q is not a number of seconds", prefix, expires)
		}
		return signed.Add(time.Duration(seconds) * time.Second).UTC(), nil
	}
	return time.Time{}, ErrNoExpiry
}

// signatureParams are query parameters that grant access and so never appear
// in logs, errors or plans.
var signatureParams = []string{"x-amz-signature", "x-amz-security-token", "x-amz-credential", "x-goog-signature", "x-goog-credential", "signature", "sig", "token"}

// Redact returns the link with every signing parameter's value replaced, for
// logs and messages. A value that does not parse is hidden whole.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparseable link hidden)"
	}
	u.User = nil
	if u.RawQuery == "" {
		return u.String()
	}
	parts := strings.Split(u.RawQuery, "&")
	for i, part := range parts {
		key, _, _ := strings.Cut(part, "=")
		name, err := url.QueryUnescape(key)
		if err != nil {
			name = key
		}
		if isSignatureParam(name) {
			parts[i] = key + "=REDACTED"
		}
	}
	u.RawQuery = strings.Join(parts, "&")
	return u.String()
}

// SignatureInText is the one pattern of a signing parameter in free text
// (a message, a log field, a transcript): its name in any case wherever it
// stands, even glued to a word before it ("Xsig=", "access_token="), and
// its value, submatch 1, up to a separator. The sanitizer hides the value,
// log masking the whole match.
var SignatureInText = regexp.MustCompile(`(?i)(?:` + strings.Join(signatureParams, "|") + `)=([^&\s"']+)`)

// Host is how a link appears in messages about reaching it: its host alone,
// never its path or query.
func Host(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "the bundle link's host"
	}
	return u.Host
}

// Signature returns the values of the link's signing parameters, so that
// callers can check that they do not leak.
func Signature(rawURL string) []string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil
	}
	var values []string
	for name, vs := range u.Query() {
		if isSignatureParam(name) {
			values = append(values, vs...)
		}
	}
	return values
}

func isSignatureParam(name string) bool {
	name = strings.ToLower(name)
	for _, p := range signatureParams {
		if name == p {
			return true
		}
	}
	return false
}

// WithoutLink is err as it may appear about a download from link: when its
// text carries the link's query (a transport error that quotes the URL),
// it says only that the download from the link's host failed.
func WithoutLink(link string, err error) error {
	if u, perr := url.Parse(link); perr == nil && u.RawQuery != "" && strings.Contains(err.Error(), u.RawQuery) {
		return fmt.Errorf("download from %s failed", Host(link))
	}
	return err
}

// lookup finds a query parameter whatever its case, preferring the exact
// spelling so that the answer never depends on map order.
func lookup(query url.Values, name string) (string, bool) {
	if values := query[name]; len(values) > 0 {
		return values[0], true
	}
	keys := make([]string, 0, len(query))
	for key := range query {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if strings.EqualFold(key, name) && len(query[key]) > 0 {
			return query[key][0], true
		}
	}
	return "", false
}
