package redact

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
)

// The rules of a link, each built on the one before it:
//
//   - LinkShape: the shape of any link, from the API or passed on by a
//     configuration.
//   - SignedLinkShape: a presigned link's shape, http or https and at most
//     MaxSignedLinkBytes; what the helm_values function accepts, which runs
//     without a configured provider and so knows no secret.
//   - SignedLink: a presigned link from the API (a bundle's), which also
//     holds no secret this provider instance knows (secretInLink).
//   - Link: any other link from the API that state keeps (a preview's
//     address, a pull request's): https only (and http where allowHTTP),
//     at most MaxLinkBytes, no secret and no signature or token.
//
// Every reason is a clause that never quotes the link. The API's base_url
// is not a link from the API: the provider's own baseURLProblem checks it.

// MaxLinkBytes is the longest link from the API that state keeps.
const MaxLinkBytes = 2048

// MaxSignedLinkBytes is the longest presigned link accepted: a signature and
// a session token make them long.
const MaxSignedLinkBytes = 16 << 10

// Link returns a link the API returned as state may keep it, or "" and why
// it may not (see the rules above).
func (s *Sanitizer) Link(raw string, allowHTTP bool) (string, string) {
	schemes := []string{"https"}
	if allowHTTP {
		schemes = append(schemes, "http")
	}
	if problem := s.checkLink(raw, LinkShape(raw, MaxLinkBytes, schemes...)); problem != "" {
		return "", problem
	}
	if len(bundlelink.Signature(raw)) > 0 || hidePatterns(raw) != raw {
		return "", "it carries a signature, token or other credential in its query"
	}
	return raw, ""
}

// SignedLink says why a presigned link from the API may not be kept or
// fetched, or returns "" (see the rules above). Its signature is its
// purpose; bundlelink hides it wherever it appears. Plain http draws the
// caller's own warning.
func (s *Sanitizer) SignedLink(raw string) string {
	return s.checkLink(raw, SignedLinkShape(raw))
}

// checkLink is shapeProblem, the link's shape problem, or when it has
// none, the secret the sanitizer knows that it holds (secretInLink): a
// link is matched only once its length is known to be bounded.
func (s *Sanitizer) checkLink(raw, shapeProblem string) string {
	if shapeProblem != "" {
		return shapeProblem
	}
	return s.secretInLink(raw)
}

// SignedLinkShape says why raw does not have a presigned link's shape, or
// returns "": LinkShape with http or https and at most MaxSignedLinkBytes.
func SignedLinkShape(raw string) string {
	return LinkShape(raw, MaxSignedLinkBytes, "https", "http")
}

// LinkShape is the one rule of a link's shape, whatever it is for: at most
// maxBytes, printable ASCII only (no space, control, bidirectional or
// invisible character; a host in Unicode is written as punycode), an
// absolute URL in one of schemes (lower case, in any case in the link), a
// host, and no user or password. It says why not, or returns ""; the
// reason never quotes the link.
func LinkShape(raw string, maxBytes int, schemes ...string) string {
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
	accepted := strings.Join(schemes, " or ")
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

// maxDecodes bounds how many times a link's parts are percent-decoded: a
// server that encodes a secret twice (%2564 for %64) is read through.
const maxDecodes = 3

// secretInLink says which secret the sanitizer knows a link holds, and in
// which part, or returns "": each part, as it is and percent-decoded (up
// to maxDecodes times), is matched as text is (holding). A link that does
// not parse holds nothing it could name: LinkShape refuses it.
func (s *Sanitizer) secretInLink(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
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
