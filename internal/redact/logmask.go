package redact

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
)

// LogPatterns mask a log record where the sanitizer cannot run:
// terraform-plugin-log masks by regular expression only. They are the
// signing parameters (bundlelink.SignatureInText, the pattern hidePatterns
// hides) and the API key as the sanitizer matches it (fold): any run of it
// as long as the one the sanitizer hides, and the key's characters that
// follow, each character in every spelling that folds to it (either letter
// case, a compatibility form such as a full-width letter, a JSON \u
// escape), with ignorable characters or \u escapes between them. A nil
// Sanitizer has the signature pattern alone. Prompts are masked by the
// context that sends them, not here.
func (s *Sanitizer) LogPatterns() []*regexp.Regexp {
	patterns := []*regexp.Regexp{bundlelink.SignatureInText}
	if s == nil {
		return patterns
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, sec := range s.secrets {
		if sec.marker == KeyMarker && sec.run > 0 {
			patterns = append(patterns, compiledKeyPattern(sec))
		}
	}
	return patterns
}

// keyPatterns holds each key's compiled pattern for the life of the
// process, by the key and its run: compiling one costs milliseconds, tens
// for a long key, and a process that configures the provider many times
// (aliases, or tests that serve every command from one process) would pay
// it at each configuration.
var keyPatterns sync.Map // keyAndRun → *regexp.Regexp

type keyAndRun struct {
	value string
	run   int
}

func compiledKeyPattern(sec secret) *regexp.Regexp {
	k := keyAndRun{sec.value, sec.run}
	stored, ok := keyPatterns.Load(k)
	if !ok {
		stored, _ = keyPatterns.LoadOrStore(k, regexp.MustCompile(keyPattern(sec)))
	}
	re, _ := stored.(*regexp.Regexp) // the map holds nothing else
	return re
}

// maxPatternKey bounds the key whose every run LogPatterns spells out: the
// expression grows with the key's length times the run's.
const maxPatternKey = 256

// keyPattern is the regular expression of sec for LogPatterns. A secret
// outside ASCII (never a valid key) or longer than maxPatternKey is matched
// whole, in any case.
func keyPattern(sec secret) string {
	if len(sec.value) > maxPatternKey || strings.ContainsFunc(sec.value, func(r rune) bool { return r >= utf8.RuneSelf }) {
		return `(?i)` + regexp.QuoteMeta(sec.value)
	}
	var b strings.Builder
	b.WriteString(`(?:`)
	for i := 0; i+sec.run <= len(sec.value); i++ {
		if i > 0 {
			b.WriteByte('|')
		}
		for j := i; j < i+sec.run; j++ {
			if j > i {
				b.WriteString(gapPattern)
			}
			b.WriteString(spellingPattern(sec.value[j]))
		}
	}
	// What follows a run is hidden with it while it is made of the key's
	// characters, as the sanitizer hides overlapping runs as one.
	var rest []string
	for _, c := range []byte(sec.value) {
		rest = append(rest, spellingPattern(c))
	}
	fmt.Fprintf(&b, `)(?:%s(?:%s))*`, gapPattern, strings.Join(rest, "|"))
	return b.String()
}

// gapPattern is what may stand between two characters of a secret without
// a reader seeing it: the characters canonical drops (ignorable) and JSON
// \u escapes, which canonical resolves.
var gapPattern = func() string {
	var class strings.Builder
	for _, table := range []*unicode.RangeTable{unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector} {
		for _, r := range table.R16 {
			writeRanges(&class, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range table.R32 {
			writeRanges(&class, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	return `(?:[` + class.String() + `]|\\u[0-9A-Fa-f]{4})*`
}()

// writeRanges writes the ignorable characters from lo to hi, every stride,
// as a character class's ranges.
func writeRanges(b *strings.Builder, lo, hi, stride rune) {
	for r := lo; r <= hi; r += stride {
		if !ignorable(r) {
			continue
		}
		end := r
		if stride == 1 {
			end = hi
		}
		fmt.Fprintf(b, `\x{%x}-\x{%x}`, r, end)
		if stride == 1 {
			return
		}
	}
}

// spellingPattern matches every spelling of the folded ASCII character c:
// each character that folds to it, and each of those as a JSON \u escape.
func spellingPattern(c byte) string {
	var class, escapes strings.Builder
	for i, r := range asciiSpellings()[c] {
		fmt.Fprintf(&class, `\x{%x}`, r)
		if i > 0 {
			escapes.WriteByte('|')
		}
		fmt.Fprintf(&escapes, `%04x`, r)
	}
	return `(?:[` + class.String() + `]|\\u(?i:` + escapes.String() + `))`
}

// asciiSpellings lists, for each ASCII character as fold writes it, every
// character that fold reads as that character alone, itself included.
// Every such character lies in Unicode's planes 0 and 1 (a test scans
// them all); only a character with a compatibility decomposition or a
// case mapping can fold to another.
var asciiSpellings = sync.OnceValue(func() [utf8.RuneSelf][]rune {
	var spellings [utf8.RuneSelf][]rune
	var buf [utf8.UTFMax]byte
	for r := rune(0); r <= 0x1FFFF; r++ {
		if r >= utf8.RuneSelf && norm.NFKD.IsNormal(buf[:utf8.EncodeRune(buf[:], r)]) && unicode.SimpleFold(r) == r {
			continue
		}
		if f := fold(string(r)).text; len(f) == 1 && f[0] < utf8.RuneSelf {
			spellings[f[0]] = append(spellings[f[0]], r)
		}
	}
	return spellings
})
