package provider

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The helpers that shape the provider's own sentences.

// sentence ends text with one period.
func sentence(text string) string {
	return clause(text) + "."
}

// clause is text without the period that ends it, for a sentence that goes
// on after it: withHint's text ends in one, and "outages.. Look" must not
// be shown.
func clause(text string) string {
	return strings.TrimRight(text, ". ")
}

// capitalized is text with its first letter in upper case, for a name that
// begins a sentence.
func capitalized(text string) string {
	r, size := utf8.DecodeRuneInString(text)
	return string(unicode.ToUpper(r)) + text[size:]
}
