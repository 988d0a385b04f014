package redact

import (
	"testing"
	"unicode/utf8"
)

// TestASCIISpellingsLieInPlanesZeroAndOne holds asciiSpellings to fold:
// no character beyond plane 1 folds to one ASCII character other than a
// space (white space folds to one, and no key holds one).
func TestASCIISpellingsLieInPlanesZeroAndOne(t *testing.T) {
	for r := rune(0x20000); r <= utf8.MaxRune; r++ {
		if f := fold(string(r)).text; len(f) == 1 && f[0] < utf8.RuneSelf && f[0] != ' ' {
			t.Errorf("%U folds to %q but lies beyond plane 1", r, f)
		}
	}
	if got := asciiSpellings()['k']; len(got) < 4 { // k, K, the Kelvin sign, full-width forms...
		t.Errorf("k has only the spellings %q", got)
	}
}
