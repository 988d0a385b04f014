package redact_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// mask applies the log patterns as terraform-plugin-log does: every match
// replaced whole.
func mask(s *redact.Sanitizer, text string) string {
	for _, re := range s.LogPatterns() {
		text = re.ReplaceAllString(text, "***")
	}
	return text
}

// TestLogPatternsMatchAsTheSanitizer holds log masking to the sanitizer's
// matching: every spelling of the key that the sanitizer hides is masked,
// and what remains holds no run of the key the sanitizer would hide.
func TestLogPatternsMatchAsTheSanitizer(t *testing.T) {
	const key = "dsa_Live_5F0c1E2d3B4a69788796A5b4"
	s := redact.New(key)
	spell := func(text string, each func(r rune) string) string {
		var b strings.Builder
		for _, r := range text {
			b.WriteString(each(r))
		}
		return b.String()
	}
	fullWidth := func(r rune) string { return string(r + 0xFEE0) }
	mathBold := func(r rune) string {
		switch {
		case r >= '0' && r <= '9':
			return string(0x1D7CE + r - '0')
		case r >= 'a' && r <= 'z':
			return string(0x1D41A + r - 'a')
		case r >= 'A' && r <= 'Z':
			return string(0x1D400 + r - 'A')
		}
		return string(r)
	}
	for name, text := range map[string]string{
		"as sent":                       "invalid key " + key,
		"upper case":                    "invalid key " + strings.ToUpper(key),
		"the secret part lower case":    "host live_5f0c1e2d3b4a69788796a5b4.example",
		"a run of twelve":               "key starts 5f0c1e2d3b4a and no more",
		"full-width":                    "key " + spell(key, fullWidth) + " refused",
		"mathematical bold":             "key " + spell(key, mathBold) + " refused",
		"between zero-width spaces":     "key " + spell(key, func(r rune) string { return string(r) + "\u200b" }) + " refused",
		"between variation selectors":   "key " + spell(key, func(r rune) string { return string(r) + "\ufe0f" }) + " refused",
		"in JSON escapes":               `{"key": "` + spell(key, func(r rune) string { return fmt.Sprintf(`\u%04X`, r) }) + `"}`,
		"escaped zero-width in between": "key " + spell(key[:20], func(r rune) string { return string(r) + `\u200b` }),
		"in a signature's company":      "GET /x?X-Amz-Signature=abc&k=" + key,
	} {
		if !strings.Contains(s.Line(text, 0), redact.KeyMarker) {
			t.Fatalf("%s: the sanitizer does not hide the key in %q: the case proves nothing", name, text)
		}
		masked := mask(s, text)
		if !strings.Contains(masked, "***") {
			t.Errorf("%s: %q is not masked", name, text)
		}
		if got := s.Line(masked, 0); strings.Contains(got, redact.KeyMarker) {
			t.Errorf("%s: masked %q still holds the key as the sanitizer reads it: %q", name, masked, got)
		}
	}
	for _, text := range []string{
		"the deployment 6743a1 of project proj_1 is running",
		"status_id=5f0c1e2d, live and well",
		"Live 5F0 c1E",
	} {
		if masked := mask(s, text); masked != text {
			t.Errorf("%q is masked as %q although it holds no secret", text, masked)
		}
	}
}

// TestLogPatternsOfAHugeKeyStayBounded: a key of a megabyte (the provider
// refuses none by length) costs a pattern of its own size, not of its size
// times the run's, and is still masked.
func TestLogPatternsOfAHugeKeyStayBounded(t *testing.T) {
	key := "dsa_" + strings.Repeat("0123456789abcdef", 1<<16)
	s := redact.New(key)
	start := time.Now()
	masked := mask(s, "invalid key "+strings.ToUpper(key)+" refused")
	if masked != "invalid key *** refused" {
		t.Errorf("masked %.80q", masked)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("masking took %s", took)
	}
}

// TestLogPatternsOfNoKey: without a key, only signatures are masked.
func TestLogPatternsOfNoKey(t *testing.T) {
	for _, s := range []*redact.Sanitizer{nil, redact.New("")} {
		if got := mask(s, "GET https://b.example/o?X-Amz-Signature=deadbeef&X-Amz-Date=1 ok"); got != "GET https://b.example/o?***&X-Amz-Date=1 ok" {
			t.Errorf("masked %q", got)
		}
	}
}

// TestLogPatternsAreCompiledOncePerKey: a second provider configuration
// with the same key reuses the first one's patterns, which take milliseconds
// each to compile; another key gets its own.
func TestLogPatternsAreCompiledOncePerKey(t *testing.T) {
	first := redact.New("dsa_once_0123456789abcdef").LogPatterns()
	again := redact.New("dsa_once_0123456789abcdef").LogPatterns()
	other := redact.New("dsa_once_fedcba9876543210").LogPatterns()
	if len(first) < 2 || len(again) != len(first) || len(other) != len(first) {
		t.Fatalf("%d, %d and %d patterns", len(first), len(again), len(other))
	}
	for i := range first {
		if again[i] != first[i] {
			t.Errorf("pattern %d was compiled again for the same key", i)
		}
		if i > 0 && other[i] == first[i] {
			t.Errorf("pattern %d of another key is the first key's", i)
		}
	}
}
