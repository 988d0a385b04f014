package redact_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/cases"
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

// ignorables is every character Unicode calls a format character (Cf) or
// default-ignorable, from its tables: the separators a spelling may put
// between a key's characters.
var ignorables = func() []rune {
	var out []rune
	for _, table := range []*unicode.RangeTable{unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector} {
		for _, r16 := range table.R16 {
			for r := rune(r16.Lo); r <= rune(r16.Hi); r += rune(r16.Stride) {
				out = append(out, r)
			}
		}
		for _, r32 := range table.R32 {
			for r := rune(r32.Lo); r <= rune(r32.Hi); r += rune(r32.Stride) {
				out = append(out, r)
			}
		}
	}
	return out
}()

// spaces are the ways a server may write the space between two words.
var spaces = []string{"\u00a0", "  ", "\n", "\r\n", "\t", "\u202f", "\u3000", "\u2028", " \n  ", `\u00a0`, "\u0085", "\u2009"}

// jsonEscaped writes r as JSON's \u escapes (a surrogate pair beyond the BMP).
func jsonEscaped(r rune) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune{r}) {
		fmt.Fprintf(&b, `\u%04x`, u)
	}
	return b.String()
}

// spelled is text in one of the spellings a server may quote a secret in,
// as spelling chooses: its lowest bits how the key is split (not, by an
// ignorable character, by the same as a JSON escape, or upper-cased too),
// the next how the prompt's spaces are written and whether it is
// upper-cased, the rest which separator and which space.
type spelling uint32

func (sp spelling) key(key string) string {
	sep := string(ignorables[int(sp>>16)%len(ignorables)])
	switch sp & 3 {
	case 0:
		return key
	case 2:
		sep = jsonEscaped([]rune(sep)[0])
	case 3:
		key = strings.ToUpper(key)
	}
	var b strings.Builder
	for _, r := range key {
		b.WriteRune(r)
		b.WriteString(sep)
	}
	return b.String()
}

func (sp spelling) prompt(prompt string) string {
	if sp&4 != 0 {
		prompt = strings.ReplaceAll(prompt, " ", spaces[int(sp>>8)%len(spaces)])
	}
	if sp&8 != 0 {
		prompt = strings.ToUpper(prompt)
	}
	return prompt
}

// readable is what a reader takes a text for: format and default-ignorable
// characters unseen, compatibility forms read as what they stand for,
// letters in any case, white space of any kind and length alike.
func readable(text string) string {
	text = strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) {
			return -1
		}
		return r
	}, text)
	text = norm.NFKC.String(cases.Fold().String(norm.NFKC.String(text)))
	return strings.Join(strings.FieldsFunc(text, unicode.IsSpace), " ")
}

// FuzzSanitize plants a key, a prompt and a link's signature, each derived
// from the fuzzed bytes and the key and prompt in a spelling it chooses
// (spelling), in any text: nothing the sanitizer returns holds one of them
// outside its own markers, as it is or as a reader reads it, nor a control
// or format character, nor more bytes than its limit.
func FuzzSanitize(f *testing.F) {
	f.Add("invalid API key ", " for ", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "mock0123456789abcdef",
		"Rewrite the onboarding guide for Nightjar.", "5d41402abc4b2a76b9719d911017c592", uint16(300), false, uint32(0))
	f.Add("\x1b[2K\r", "Apply complete! \u202e", "", "AAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "aaaaaaaaaaaaaaaa", uint16(40), true, uint32(1))
	f.Add("x", "\\x1b", "\xff\xfe", "x1bx1bx1bx1bx1bx1b", "\\x1b\\x1b\\x1b\\x1b", "0123456789ab", uint16(0), false, uint32(2))
	f.Add("Bearer ", "sig=", "&", "abcdefghijklmnop", "line one\nline two\r\nline three", "ffffffffffff", uint16(10), true, uint32(3))
	f.Add(`{"detail": "`, `\u30aa\u30f3`, "\u034f", "k\u034fe\u034fy", "オンボーディングガイドを書き直して", "", uint16(0), false, uint32(4|8))
	f.Add("", "e\u0301", "\u200b", "", "Re\u0301e\u0301cris le guide", "sig", uint16(64), true, uint32(5<<8|4|8|2))
	f.Add("key ", " prompt ", "", "5f0c1e2d3b4a6978", "Überarbeite die Anleitung zur Straße", "", uint16(0), true, uint32(3<<16|9<<8|4|8|1))

	f.Fuzz(func(t *testing.T, before, between, after, keySeed, promptSeed, signatureSeed string, limit uint16, multiline bool, sp uint32) {
		secretPart, prompt, signature := keyFrom(keySeed), promptFrom(promptSeed), signatureFrom(signatureSeed)
		key := "dsa_" + secretPart
		s := redact.New(key)
		s.AddPrompt(prompt)
		link := "https://b.s3.amazonaws.com/se_1/bundle.tar.gz?X-Amz-Date=20261122T080000Z&X-Amz-Signature=" + signature
		spell := spelling(sp)
		text := before + spell.key(key) + between + spell.prompt(prompt) + after + " " + link + "&" + spell.key(secretPart) + after
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
			if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Other_Default_Ignorable_Code_Point) {
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
		for piece := range strings.SplitSeq(shown, "\x00") {
			for what, secret := range secrets {
				if strings.Contains(piece, secret) {
					t.Fatalf("%s %q leaks in %q", what, secret, got)
				}
			}
			for what, secret := range map[string]string{"the key's secret": secretPart, "the prompt": prompt} {
				if r := readable(secret); len(r) >= redact.MinPromptRunes && strings.Contains(readable(piece), r) {
					t.Fatalf("%s %q is readable in %q", what, secret, got)
				}
			}
		}
	})
}
