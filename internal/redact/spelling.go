package redact

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// canonical is the one spelling in which a text is shown, and from which
// it is folded (fold) to be matched against secrets: a server may quote a
// secret in another spelling than it was sent in. JSON's \u escapes are
// resolved (Python's json.dumps writes every non-ASCII character so), every
// character that renders as nothing or only steers its neighbours is
// dropped (ignorable), and the text is composed (NFC), so that a prompt
// typed decomposed and echoed composed is the same text; compatibility
// forms (a ligature, a full-width letter) are shown as the server wrote
// them and matched as what they stand for (fold). What remains for a
// terminal to act on, such as an escape resolved to ESC, is quoted after.
func canonical(text string) string {
	text = resolveUEscapes(text)
	if strings.ContainsFunc(text, ignorable) {
		text = strings.Map(func(r rune) rune {
			if ignorable(r) {
				return -1
			}
			return r
		}, text)
	}
	return norm.NFC.String(text)
}

// ignorable reports, by property rather than by list, a character that
// may stand between a secret's characters without a reader seeing it:
// every format character (Cf: joiners, bidirectional controls and marks,
// the soft hyphen, tags) and every default-ignorable code point, which
// Unicode derives from Other_Default_Ignorable_Code_Point, Cf and the
// variation selectors (the Hangul fillers, U+034F, reserved ranges
// included). Dropped rather than quoted: a bidirectional control removed
// can no more reorder a line than a quoted one.
func ignorable(r rune) bool {
	return r >= 0x80 && unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// folded is a canonical text as secrets are looked for in it: under
// compatibility normalisation (NFKD, which matches what NFKC matches: a
// ligature, a full-width or superscript letter read as what they stand
// for), letter case folded (full folding: "STRASSE" reads as "straße"),
// and every run of white space (spaces, no-break and ideographic spaces,
// tabs, line breaks) one space, so that a prompt a server upper-cases or
// wraps again is still the prompt.
type folded struct {
	text string
	// jumps are the places where the folded text's length differs from
	// the text's, in order; between them, offsets run byte for byte.
	jumps []jump
}

// jump is n bytes of the folded text at at, which stand for fromN bytes of
// the text at from.
type jump struct{ at, n, from, fromN int }

// fold returns text folded. ASCII is folded byte by byte, other characters
// one at a time, so that a secret folds alike wherever it stands in a
// text: decomposed for compatibility, case folded, decomposed again (what
// Unicode calls a compatibility caseless match). Canonical order is the
// text's own, composed first (canonical).
func fold(text string) folded {
	var (
		b     strings.Builder
		jumps []jump
		caser cases.Caser
		cache map[rune]string
	)
	b.Grow(len(text))
	for i := 0; i < len(text); {
		out, n := foldAt(text[i:], &caser, &cache)
		if len(out) != n {
			jumps = append(jumps, jump{b.Len(), len(out), i, n})
		}
		b.WriteString(out)
		i += n
	}
	return folded{text: b.String(), jumps: jumps}
}

// foldAt folds what starts s: a run of white space, a byte, or a
// character. It returns the folded text and the bytes of s it stands for.
func foldAt(s string, caser *cases.Caser, cache *map[rune]string) (string, int) {
	if n := spaceRun(s); n > 0 {
		return " ", n
	}
	if c := s[0]; c < utf8.RuneSelf {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		return asciiBytes[c : c+1], 1
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s[:size], size // not UTF-8: quoted later, as it is
	}
	out, ok := (*cache)[r]
	if !ok {
		if *cache == nil {
			*caser, *cache = cases.Fold(), map[rune]string{}
		}
		out = norm.NFKD.String(caser.String(norm.NFKD.String(s[:size])))
		(*cache)[r] = out
	}
	return out, size
}

// asciiBytes holds every ASCII byte at its own offset, so that folding
// ASCII allocates nothing.
var asciiBytes = func() string {
	b := make([]byte, utf8.RuneSelf)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}()

// spaceRun is the length of the run of white space that starts s.
func spaceRun(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !unicode.IsSpace(r) {
			break
		}
		n += size
	}
	return n
}

// span maps the folded text's bytes [start, end), end > start, to the
// text's: a jump is taken whole.
func (f folded) span(start, end int) (int, int) {
	return f.offset(start, false), f.offset(end-1, true)
}

// offset maps byte at of the folded text to the text: where the bytes it
// stands for start, or end when end.
func (f folded) offset(at int, end bool) int {
	after := 0
	if end {
		after = 1
	}
	i := sort.Search(len(f.jumps), func(i int) bool { return f.jumps[i].at > at })
	if i == 0 {
		return at + after
	}
	j := f.jumps[i-1]
	if at < j.at+j.n {
		return j.from + after*j.fromN
	}
	return j.from + j.fromN + at - (j.at + j.n) + after
}

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
