package redact

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
)

// MaxLinkBytes is the longest link from the API that state keeps.
const MaxLinkBytes = 2048

// Link returns a link the API returned (a preview's address, a pull
// request's) as state may keep it, or "" and why it may not: it passes
// checkLink with https only (and http where allowHTTP, for an API reached
// over http) and at most MaxLinkBytes, and carries no signature or token in
// its query. The reason never quotes the link.
func Link(raw string, allowHTTP bool) (string, string) {
	schemes := []string{"https"}
	accepted := "https"
	if allowHTTP {
		schemes, accepted = []string{"https", "http"}, "https or http (base_url is http)"
	}
	if problem := checkLink(raw, MaxLinkBytes, schemes, accepted); problem != "" {
		return "", problem
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
// kept or fetched, or returns "": it passes checkLink with http or https
// (plain http draws its own warning) and at most MaxSignedLinkBytes. Its
// signature is its purpose; bundlelink hides it wherever it appears. The
// reason never quotes the link.
func SignedLink(raw string) string {
	return checkLink(raw, MaxSignedLinkBytes, []string{"https", "http"}, "https (or http)")
}

// checkLink is the one check of a link from the API, whatever it is kept
// for: at most maxBytes, printable ASCII only (no control, bidirectional or
// invisible character; a host in Unicode is sent as punycode), an absolute
// URL in one of schemes, a host, no user or password. It says why not, or
// returns ""; the reason never quotes the link.
func checkLink(raw string, maxBytes int, schemes []string, accepted string) string {
	if len(raw) > maxBytes {
		return fmt.Sprintf("it is %d bytes long, more than the %d accepted", len(raw), maxBytes)
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] <= 0x20 || raw[i] >= 0x7f {
			return fmt.Sprintf("it holds a character outside printable ASCII at byte %d (a space, a control, bidirectional or non-ASCII character)", i)
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "it is not a valid URL"
	}
	switch scheme := strings.ToLower(u.Scheme); {
	case scheme == "":
		return "it is not an absolute URL; accepted: " + accepted
	case !slices.Contains(schemes, scheme):
		return fmt.Sprintf("its scheme is %q; accepted: %s", bound(scheme, 40), accepted)
	case u.Opaque != "" || u.Host == "":
		return "it names no host"
	case u.User != nil || strings.Contains(u.Host, "@"):
		return "it carries a user name or password (userinfo)"
	}
	return ""
}
