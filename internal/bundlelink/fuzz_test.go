package bundlelink_test

import (
	"encoding/hex"
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
)

// hexSecret is the shape of signature the fuzz properties are stated for:
// long enough not to occur by chance in the rest of a link or a message.
var hexSecret = regexp.MustCompile(`^[a-f0-9]{8,}$`)

// maxLifetimeSeconds is the longest lifetime Expiry accepts: ten years.
const maxLifetimeSeconds = 10 * 365 * 24 * 3600

// presignedLink builds a link whose parameters carry exactly the given values.
func presignedLink(goog bool, date, expires, sig string) string {
	p, base := "X-Amz-", "https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz"
	if goog {
		p, base = "X-Goog-", "https://storage.googleapis.com/bucket/se_1/bundle.tar.gz"
	}
	return base + "?" + p + "Algorithm=ALG&" + p + "Date=" + url.QueryEscape(date) + "&" + p + "Expires=" +
		url.QueryEscape(expires) + "&" + p + "SignedHeaders=host&" + p + "Signature=" + url.QueryEscape(sig)
}

// expectedExpiry is the documented meaning of the two parameters.
func expectedExpiry(date, expires string) (time.Time, bool) {
	signedAt, err := time.Parse("20060102T150405Z", date)
	if err != nil {
		return time.Time{}, false
	}
	secs, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || secs < 0 || secs > maxLifetimeSeconds {
		return time.Time{}, false
	}
	return signedAt.Add(time.Duration(secs) * time.Second).UTC(), true
}

func FuzzExpiry(f *testing.F) {
	f.Add(false, "20261122T080000Z", "3600", "5d41402abc4b2a76b9719d911017c592", "")
	f.Add(true, "20261122T080000Z", "604800", "0a1b2c3d4e5f6071", "https://storage.googleapis.com/b/o?X-Goog-Date=20261122T080000Z&X-Goog-Expires=60")
	f.Add(false, "2026-11-22T08:00:00Z", "3600", "deadbeefdeadbeef", "https://b.s3.amazonaws.com/o?X-Amz-Date=bad&X-Amz-Expires=1&X-Amz-Signature=deadbeefcafe")
	f.Add(false, "20261122T080000Z", "-1", "cafebabecafebabe", "https://b.s3.amazonaws.com/o?x-amz-date=20261122T080000Z")
	f.Add(true, "20261122T080000Z", "1e3", "0123456789abcdef", "::not a url")
	f.Add(false, "", "", "00000000", "https://b/o?X-Amz-Expires=20060102&X-Amz-Signature=20060102")
	f.Add(false, "99991231T235959Z", "315360000", "ffffffffffffffff", "?X-Goog-Date=20261122T080000Z&X-Goog-Expires=999999999999")
	f.Add(true, "20261122T080000Z", "9223372036854775807", "abcdef0123456789", "%zz")

	f.Fuzz(func(t *testing.T, goog bool, date, expires, sig, raw string) {
		// A link built from known parts: the result follows the documented rule,
		// and errors do not depend on (so cannot reveal) the signature.
		link := presignedLink(goog, date, expires, sig)
		got, err := bundlelink.Expiry(link)
		want, ok := expectedExpiry(date, expires)
		switch {
		case ok && err != nil:
			t.Fatalf("Expiry(%q) failed: %v; want %v", link, err, want)
		case ok && !got.Equal(want):
			t.Fatalf("Expiry(%q) = %v, want %v", link, got, want)
		case !ok && err == nil:
			t.Fatalf("Expiry(%q) = %v, want an error", link, got)
		}
		if err != nil {
			if errors.Is(err, bundlelink.ErrNoExpiry) {
				t.Fatalf("Expiry(%q) reports no expiry although both parameters are present", link)
			}
			_, other := bundlelink.Expiry(presignedLink(goog, date, expires, "0000000000000000"))
			if other == nil || other.Error() != err.Error() {
				t.Fatalf("the error depends on the signature: %v vs %v", err, other)
			}
			if hexSecret.MatchString(sig) && !strings.Contains(date+expires+other.Error(), sig) && strings.Contains(err.Error(), sig) {
				t.Fatalf("error %q reveals the signature %q", err, sig)
			}
		}

		// Any input: no panic, a UTC result, and no signing value in errors
		// unless the same text is also a non-secret part of the link.
		got, err = bundlelink.Expiry(raw)
		if err == nil {
			if got.IsZero() || got.Location() != time.UTC {
				t.Fatalf("Expiry(%q) = %v, want a non-zero UTC time", raw, got)
			}
			return
		}
		if !got.IsZero() {
			t.Fatalf("Expiry(%q) returned %v with its error", raw, got)
		}
		public := "20060102T150405Z" + strings.Join(nonSigningValues(raw), "\x00")
		for _, v := range bundlelink.Signature(raw) {
			if hexSecret.MatchString(v) && !strings.Contains(public, v) && strings.Contains(err.Error(), v) {
				t.Fatalf("error %q reveals the signing value %q of %q", err, v, raw)
			}
		}
	})
}

// nonSigningValues lists the values of the link's other query parameters.
func nonSigningValues(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	signing := map[string]bool{}
	for _, v := range bundlelink.Signature(raw) {
		signing[v] = true
	}
	var out []string
	for _, vs := range u.Query() {
		for _, v := range vs {
			if !signing[v] {
				out = append(out, v)
			}
		}
	}
	return out
}

// signingKeys are spellings of signing parameters a link may carry.
var signingKeys = []string{
	"X-Amz-Signature", "x-amz-signature", "X-AMZ-SIGNATURE", "X%2DAmz%2DSignature", "X-Amz-Credential",
	"X-Amz-Security-Token", "X-Goog-Signature", "x-goog-credential", "Signature", "sig", "token", "TOKEN",
}

func FuzzRedact(f *testing.F) {
	f.Add("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20261122T080000Z", "X-Amz-Expires=3600&X-Amz-SignedHeaders=host", []byte{0xde, 0xad, 0xbe, 0xef, 0x01}, uint8(0))
	f.Add("", "", []byte{0x5d, 0x41, 0x40, 0x2a, 0xbc, 0x4b, 0x2a, 0x76}, uint8(1))
	f.Add("a=1;b=2", "c=%zz&d", []byte{1, 2, 3, 4}, uint8(3))
	f.Add("X-Goog-Date=20261122T080000Z&X-Goog-Expires=60", "x=y", []byte{0xca, 0xfe, 0xba, 0xbe, 0xca, 0xfe}, uint8(6))
	f.Add("&&==&", "?=&", []byte{0, 0, 0, 0}, uint8(9))
	f.Add("sig", "token=", []byte{0xff, 0xee, 0xdd, 0xcc}, uint8(10))
	f.Add("k=v w", "\x01", []byte{0xab, 0xcd, 0xef, 0x12}, uint8(4))

	f.Fuzz(func(t *testing.T, prefix, suffix string, secret []byte, variant uint8) {
		sig := hex.EncodeToString(secret)
		if len(sig) < 8 {
			return
		}
		// A fragment would move the parameter out of the query: it is then no
		// signing parameter of the link.
		prefix = strings.ReplaceAll(prefix, "#", "")
		suffix = strings.ReplaceAll(suffix, "#", "")
		key := signingKeys[int(variant)%len(signingKeys)]
		raw := "https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz?" + prefix + "&" + key + "=" + sig + "&" + suffix
		if strings.Count(raw, sig) != 1 {
			return // the same text is also a public part of the link
		}
		out := bundlelink.Redact(raw)
		if strings.Contains(out, sig) {
			t.Fatalf("Redact(%q) = %q still holds the signature", raw, out)
		}
		if _, err := url.Parse(raw); err != nil && out != "(unparseable link hidden)" {
			t.Fatalf("Redact of an unparseable link = %q", out)
		}
		if redactedAgain := bundlelink.Redact(out); !strings.HasPrefix(out, "(") && redactedAgain != out {
			t.Fatalf("Redact is not idempotent: %q then %q", out, redactedAgain)
		}

		// Whatever else the link holds, no value that Signature reports as
		// signing survives, unless it is also written elsewhere in the link.
		for _, link := range []string{raw, prefix, suffix} {
			out := bundlelink.Redact(link)
			for _, v := range bundlelink.Signature(link) {
				if hexSecret.MatchString(v) && strings.Count(link, v) == 1 && strings.Contains(out, v) {
					t.Fatalf("Redact(%q) = %q still holds %q", link, out, v)
				}
			}
		}
	})
}
