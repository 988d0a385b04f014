package redact_test

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// keySecret and hexSignature are the shapes the properties are stated for:
// long enough not to occur by chance in the markers or the escapes.
var (
	keySecret    = regexp.MustCompile(`^[A-Za-z0-9]{16,64}$`)
	hexSignature = regexp.MustCompile(`^[a-f0-9]{12,}$`)
	cutMarker    = regexp.MustCompile(` … \(\d+ more bytes not shown\)$|…$`)
)

// keyFrom makes any fuzzed bytes a key's secret part: kept when they have
// its shape already, else each byte mapped into its alphabet, filled up to
// 16 characters with their digest and cut at 64, so that every input
// reaches the matching.
func keyFrom(seed string) string {
	if keySecret.MatchString(seed) {
		return seed
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	digest := sha256.Sum256([]byte(seed))
	b := make([]byte, 0, 64)
	for i := 0; i < len(seed) && len(b) < 64; i++ {
		b = append(b, alphabet[int(seed[i])%len(alphabet)])
	}
	for i := 0; len(b) < 16; i++ {
		b = append(b, alphabet[int(digest[i])%len(alphabet)])
	}
	return string(b)
}

// signatureFrom makes any fuzzed bytes a hex signature of 12 to 128
// digits, the same way.
func signatureFrom(seed string) string {
	if hexSignature.MatchString(seed) {
		return seed
	}
	digest := sha256.Sum256([]byte(seed))
	sig := hex.EncodeToString([]byte(seed))
	if len(sig) < 12 {
		sig += hex.EncodeToString(digest[:])[:12-len(sig)]
	}
	return sig[:min(len(sig), 128)]
}

// promptFrom makes any fuzzed text a prompt long enough to be a secret.
func promptFrom(seed string) string {
	if redact.IsSecretPrompt(seed) {
		return seed
	}
	return seed + " of the release notes"
}

// FuzzSanitize plants a key, a prompt and a link's signature, each derived
// from the fuzzed bytes, in any text: nothing the sanitizer returns holds
// one of them outside its own markers, a control or bidirectional
// character, or more bytes than its limit.
func FuzzSanitize(f *testing.F) {
	f.Add("invalid API key ", " for ", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "mock0123456789abcdef",
		"Rewrite the onboarding guide for Nightjar.", "5d41402abc4b2a76b9719d911017c592", uint16(300), false)
	f.Add("\x1b[2K\r", "Apply complete! \u202e", "", "AAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "aaaaaaaaaaaaaaaa", uint16(40), true)
	f.Add("x", "\\x1b", "\xff\xfe", "x1bx1bx1bx1bx1bx1b", "\\x1b\\x1b\\x1b\\x1b", "0123456789ab", uint16(0), false)
	f.Add("Bearer ", "sig=", "&", "abcdefghijklmnop", "line one\nline two\r\nline three", "ffffffffffff", uint16(10), true)
	f.Add(`{"detail": "`, `\u30aa\u30f3`, "\u034f", "k\u034fe\u034fy", "オンボーディングガイドを書き直して", "", uint16(0), false)
	f.Add("", "e\u0301", "\u200b", "", "Re\u0301e\u0301cris le guide", "sig", uint16(64), true)

	f.Fuzz(func(t *testing.T, before, between, after, keySeed, promptSeed, signatureSeed string, limit uint16, multiline bool) {
		secretPart, prompt, signature := keyFrom(keySeed), promptFrom(promptSeed), signatureFrom(signatureSeed)
		key := "dsa_" + secretPart
		s := redact.New(key)
		s.AddPrompt(prompt)
		link := "https://b.s3.amazonaws.com/se_1/bundle.tar.gz?X-Amz-Date=20261122T080000Z&X-Amz-Signature=" + signature
		text := before + key + between + prompt + after + " " + link + "&" + secretPart + after
		if strings.Count(text, signature) != 1 {
			return // a signature is secret in its link only; the same digits elsewhere are not
		}

		clean := s.Line
		if multiline {
			clean = s.Text
		}
		// A quoted byte's escape can join the digits beside it into the
		// signature's shape outside its link ("\xb0" before eleven zeros):
		// those characters were in the text already, not the link's secret.
		if strings.Contains(clean(strings.Replace(text, link, "", 1), 0), signature) {
			return
		}
		n := int(limit)
		got := clean(text, n)
		if n > 0 && len(got) > n {
			t.Fatalf("%d bytes, more than the limit %d", len(got), n)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("not UTF-8: %q", got)
		}
		for _, r := range got {
			if (r == '\n' || r == '\t') && multiline {
				continue
			}
			if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) || unicode.Is(unicode.Bidi_Control, r) {
				t.Fatalf("emits %U: %q", r, got)
			}
		}
		// What is left outside the markers holds no secret.
		shown := cutMarker.ReplaceAllString(got, "\x00")
		for _, marker := range []string{redact.KeyMarker, redact.PromptMarker, redact.ValueMarker} {
			shown = strings.ReplaceAll(shown, marker, "\x00")
		}
		secrets := map[string]string{"the key's secret": secretPart, "the signature": signature,
			"the prompt": prompt, "the prompt composed": norm.NFC.String(prompt), "the prompt decomposed": norm.NFD.String(prompt)}
		for what, secret := range secrets {
			for piece := range strings.SplitSeq(shown, "\x00") {
				if strings.Contains(piece, secret) {
					t.Fatalf("%s %q leaks in %q", what, secret, got)
				}
			}
		}
	})
}
