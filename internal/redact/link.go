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
// over http) and at most MaxLinkBytes, carries no signature or token in
// its query, and no secret the sanitizer knows (secretInLink). The reason
// never quotes the link.
func (s *Sanitizer) Link(raw string, allowHTTP bool) (string, string) {
	schemes := []string{"https"}
	accepted := "https"
	if allowHTTP {
		schemes, accepted = []string{"https", "http"}, "https or http (base_url is http)"
	}
	if problem := s.checkLink(raw, MaxLinkBytes, schemes, accepted); problem != "" {
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
func (s *Sanitizer) SignedLink(raw string) string {
	return s.checkLink(raw, MaxSignedLinkBytes, []string{"https", "http"}, "https (or http)")
}

// checkLink is the one check of a link from the API, whatever it is kept
// for: at most maxBytes, printable ASCII only (no control, bidirectional or
// invisible character; a host in Unicode is sent as punycode), an absolute
// URL in one of schemes, a host, no user or password, and no secret the
// sanitizer knows in any part (secretInLink). It says why not, or returns
// ""; the reason never quotes the link.
func (s *Sanitizer) checkLink(raw string, maxBytes int, schemes []string, accepted string) string {
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
	return s.secretInLink(u)
}

// maxDecodes bounds how many times a link's parts are percent-decoded: a
// server that encodes a secret twice (%2564 for %64) is read through.
const maxDecodes = 3

// secretInLink says which secret the sanitizer knows a link holds, and in
// which part, or returns "": each part, as it is and percent-decoded (up
// to maxDecodes times), is matched as text is (holding).
func (s *Sanitizer) secretInLink(u *url.URL) string {
	for _, part := range []struct{ name, raw string }{
		{"host", u.Host}, {"path", u.EscapedPath()}, {"query", u.RawQuery}, {"fragment", u.EscapedFragment()},
	} {
		text := part.raw
		for range maxDecodes + 1 {
			if what := s.holding(text); what != "" {
				return fmt.Sprintf("it holds %s in its %s", what, part.name)
			}
			decoded := percentDecoded(text, part.name == "query")
			if decoded == text {
				break
			}
			text = decoded
		}
	}
	return ""
}

// percentDecoded resolves every %XX escape of text (and + as a space in a
// query); an escape that is not one stays as it is.
func percentDecoded(text string, query bool) string {
	if !strings.ContainsAny(text, "%+") {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '%' && i+2 < len(text) && isHex(text[i+1]) && isHex(text[i+2]):
			b.WriteByte(unhex(text[i+1])<<4 | unhex(text[i+2]))
			i += 2
		case c == '+' && query:
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
