package redact

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
)

// MaxLinkBytes is the longest link from the API that state keeps.
const MaxLinkBytes = 2048

// Link returns a link the API returned (a preview's address, a pull
// request's) as state may keep it, or "" and why it may not: only https (and
// http where allowHTTP, for an API reached over http), an absolute address
// with a host, no user or password, no signature or token in its query,
// printable ASCII only (no control, bidirectional or invisible character; a
// host in Unicode is sent as punycode), at most MaxLinkBytes. The reason never
// quotes the link.
func Link(raw string, allowHTTP bool) (string, string) {
	if len(raw) > MaxLinkBytes {
		return "", fmt.Sprintf("it is %d bytes long, more than the %d accepted", len(raw), MaxLinkBytes)
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] <= 0x20 || raw[i] >= 0x7f {
			return "", fmt.Sprintf("it holds a character outside printable ASCII at byte %d (a space, a control, bidirectional or non-ASCII character)", i)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", "it is not a valid URL"
	}
	accepted := "https"
	if allowHTTP {
		accepted = "https or http (base_url is http)"
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme == "":
		return "", "it is not an absolute URL; accepted: " + accepted
	case scheme == "https", scheme == "http" && allowHTTP:
	default:
		return "", fmt.Sprintf("its scheme is %q; accepted: %s", bound(scheme, 40), accepted)
	}
	if u.Opaque != "" || u.Host == "" {
		return "", "it names no host"
	}
	if u.User != nil || strings.Contains(u.Host, "@") {
		return "", "it carries a user name or password (userinfo)"
	}
	if len(bundlelink.Signature(raw)) > 0 || hidePatterns(raw) != raw {
		return "", "it carries a signature, token or other credential in its query"
	}
	return raw, ""
}

// MaxSignedLinkBytes is the longest presigned link accepted: a signature and
// a session token make them long.
const MaxSignedLinkBytes = 16 << 10

// SignedLink says why a presigned link from the API (a bundle's) may not be
// kept or fetched, or returns "": http or https (plain http draws its own
// warning), a host, no user or password, printable ASCII only, at most
// MaxSignedLinkBytes. Its signature is its purpose; bundlelink hides it
// wherever it appears. The reason never quotes the link.
func SignedLink(raw string) string {
	if len(raw) > MaxSignedLinkBytes {
		return fmt.Sprintf("it is %d bytes long, more than the %d accepted", len(raw), MaxSignedLinkBytes)
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] <= 0x20 || raw[i] >= 0x7f {
			return fmt.Sprintf("it holds a character outside printable ASCII at byte %d (a space, a control, bidirectional or non-ASCII character)", i)
		}
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "it is not a valid URL"
	case !strings.EqualFold(u.Scheme, "https") && !strings.EqualFold(u.Scheme, "http"):
		return fmt.Sprintf("its scheme is %q; accepted: https (or http)", bound(strings.ToLower(u.Scheme), 40))
	case u.Opaque != "" || u.Host == "":
		return "it names no host"
	case u.User != nil || strings.Contains(u.Host, "@"):
		return "it carries a user name or password (userinfo)"
	}
	return ""
}
