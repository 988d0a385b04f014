package redact

import (
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// canonical is the one spelling in which texts and secrets are matched, and
// in which a text is shown: a server may quote a secret in another one.
// JSON's \u escapes are resolved (Python's json.dumps writes every non-ASCII
// character so), invisible characters that would hide between a secret's
// characters are removed, and the text is composed (NFC), so that a prompt
// typed decomposed (as macOS may give it) and echoed composed, or the
// reverse, is the same text. What remains for a terminal to act on, such as
// a bidirectional control or an escape resolved to ESC, is quoted after.
func canonical(text string) string {
	text = resolveUEscapes(text)
	if strings.ContainsFunc(text, invisible) {
		text = strings.Map(func(r rune) rune {
			if invisible(r) {
				return -1
			}
			return r
		}, text)
	}
	return norm.NFC.String(text)
}

// invisible reports a default-ignorable character that renders as nothing
// and that quote would not show (U+034F, variation selectors, tags), or
// one that only hides a break (U+200B, U+2060, U+FEFF, the soft hyphen):
// removed, so that no secret reads intact around them. Bidirectional
// controls and the joiners that scripts and emoji need are quoted instead,
// where a user sees them.
func invisible(r rune) bool {
	switch r {
	case 0x00AD, 0x180E, 0x200B, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF:
		return true
	}
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) && !hangulFiller(r) ||
		unicode.Is(unicode.Variation_Selector, r) || r >= 0xE0000 && r <= 0xE007F
}

// hangulFiller reports the Hangul fillers, which quote shows as escapes.
func hangulFiller(r rune) bool { return r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0 }

// resolveUEscapes resolves JSON's \uXXXX escapes, surrogate pairs
// included; an escape that is not a character stays as it is.
func resolveUEscapes(text string) string {
	if !strings.Contains(text, `\u`) {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		r, n := uEscape(text[i:])
		if n == 0 {
			b.WriteByte(text[i])
			i++
			continue
		}
		if utf16High(r) {
			if low, m := uEscape(text[i+n:]); m > 0 && low >= 0xDC00 && low <= 0xDFFF {
				b.WriteRune((r-0xD800)<<10 + (low - 0xDC00) + 0x10000)
				i += n + m
				continue
			}
		}
		if r >= 0xD800 && r <= 0xDFFF {
			b.WriteString(text[i : i+n]) // a lone surrogate is no character
		} else {
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}

func utf16High(r rune) bool { return r >= 0xD800 && r <= 0xDBFF }

// uEscape reads a \uXXXX escape at the start of s: its code and length, or
// a length of 0.
func uEscape(s string) (rune, int) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, 0
	}
	v, err := strconv.ParseUint(s[2:6], 16, 32)
	if err != nil {
		return 0, 0
	}
	return rune(v), 6
}
