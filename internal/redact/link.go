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
