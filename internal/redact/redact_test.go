package redact_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

const (
	testKey    = "dsa_mock_0123456789abcdef"
	testPrompt = "Rewrite the onboarding guide for the confidential Falcon launch, codename Nightjar."
)

func TestLineHidesSecrets(t *testing.T) {
	s := redact.New(testKey)
	s.AddPrompt(testPrompt)
	cases := []struct {
		name, in, want string
	}{
		{"the key", "invalid API key " + testKey, "invalid API key " + redact.KeyMarker},
		{"the secret part alone", "key mock_0123456789abcdef unknown", "key " + redact.KeyMarker + " unknown"},
		{"the start of the key", "key dsa_mock_012345678... revoked", "key dsa_" + redact.KeyMarker + "... revoked"},
		{"the key in another case", "invalid key DSA_MOCK_0123456789ABCDEF", "invalid key " + redact.KeyMarker},
		{"the prompt", `prompt "` + testPrompt + `" refused`, `prompt "` + redact.PromptMarker + `" refused`},
		{"part of the prompt", "too long: the confidential Falcon launch, codename…", "too long:" + redact.PromptMarker + "…"},
		{"a bearer header", "sent Authorization: Bearer abc.def-123", "sent Authorization: Bearer REDACTED"},
		{"a key already hidden in a header", "Authorization: Bearer " + testKey, "Authorization: Bearer " + redact.KeyMarker},
		{"an S3 signature", "https://b.s3.amazonaws.com/o?X-Amz-Date=20261122T080000Z&X-Amz-Signature=5d41402abc4b2a76&x=1",
			"https://b.s3.amazonaws.com/o?X-Amz-Date=20261122T080000Z&X-Amz-Signature=REDACTED&x=1"},
		{"a GCS signature glued to a word", "linkX-Goog-Signature=0a1b2c3d4e5f", "linkX-Goog-Signature=REDACTED"},
		{"sig and token", "sig=abc token=def", "sig=REDACTED token=REDACTED"},
		{"a JSON secret", `{"access_token": "ya29.a0Af", "password":"hunter2"}`, `{"access_token": "REDACTED", "password":"REDACTED"}`},
		{"userinfo", "fetch https://deploy:s3cr3t@git.example.com/repo failed", "fetch https://deploy:REDACTED@git.example.com/repo failed"},
		{"a run of the key inside a signature is the signature's", "?X-Amz-Signature=0123456789abcdef0123456789abcdef&X-Amz-Expires=60",
			"?X-Amz-Signature=REDACTED&X-Amz-Expires=60"},
		{"words stay", "the token is invalid: check the password policy", "the token is invalid: check the password policy"},
		{"a short prompt is no secret", "Fix it", "Fix it"},
	}
	for _, c := range cases {
		if got := s.Line(c.in, 1000); got != c.want {
			t.Errorf("%s: Line(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// TestKeyIsHiddenInAnyCase: a key of mixed case is hidden where a text
// shows it lowered, as a URL's host is, or raised.
func TestKeyIsHiddenInAnyCase(t *testing.T) {
	const key = "dsa_Live_5F0c1E2d3B4a69788796A5b4"
	s := redact.New(key)
	for in, want := range map[string]string{
		"refused a redirect to https://live_5f0c1e2d3b4a69788796a5b4.evil.example": "refused a redirect to https://" + redact.KeyMarker + ".evil.example",
		"key DSA_LIVE_5F0C1E2D3B4A69788796A5B4 revoked":                            "key " + redact.KeyMarker + " revoked",
		"host 5f0c1e2d3b4a6978.example":                                            "host " + redact.KeyMarker + ".example",
	} {
		if got := s.Line(in, 1000); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

// HoldsSecret is true for a whole secret only: the key, its secret part
// (in any case) or a prompt, not for a run the text shares with one.
func TestHoldsSecret(t *testing.T) {
	const key = "dsa_Live_5F0c1E2d3B4a69788796A5b4"
	s := redact.New(key)
	s.AddPrompt("Rewrite the onboarding guide.")
	for text, want := range map[string]bool{
		"se_" + key:                        true,
		"se_live_5f0c1e2d3b4a69788796a5b4": true,
		"Rewrite the onboarding guide.":    true,
		"se_5f0c1e2d3b4a6978":              false,
		"se_3f9a2c1b8e7d4a06":              false,
		"":                                 false,
	} {
		if got := s.HoldsSecret(text); got != want {
			t.Errorf("HoldsSecret(%q) = %v, want %v", text, got, want)
		}
	}
	if (*redact.Sanitizer)(nil).HoldsSecret(key) {
		t.Error("a nil sanitizer knows no secret")
	}
}

func TestLineQuotesWhatATerminalActsOn(t *testing.T) {
	var s *redact.Sanitizer // signatures and quoting need no secrets
	cases := []struct {
		name, in, want string
	}{
		{"an OSC-8 hyperlink", "see \x1b]8;;https://evil.example\x1b\\here\x1b]8;;\x1b\\", `see \x1b]8;;https://evil.example\x1b\here\x1b]8;;\x1b\`},
		{"a line erasure and carriage return", "failed\x1b[2K\rApply complete!", `failed\x1b[2K\rApply complete!`},
		{"a right-to-left override, removed", "file\u202eexe.txt", "fileexe.txt"},
		{"a bidirectional isolate and a mark, removed", "a\u2067b\u200ec\u2069", "abc"},
		{"a C1 control", "a\u009bb", `a\u009bb`},
		{"a zero-width space, removed", "a\u200bb", "ab"},
		{"a zero-width joiner, removed", "a\u200db", "ab"},
		{"a Hangul filler, removed", "a\u3164b", "ab"},
		{"a private-use character", "a\ue000b", `a\ue000b`},
		{"invalid UTF-8", "a\xffb", `a\xffb`},
		{"a newline in one line", "one\ntwo", `one\ntwo`},
		{"plain text stays", "Build failed: 1 error in guides/intro.mdx — ünïcode", "Build failed: 1 error in guides/intro.mdx — ünïcode"},
	}
	for _, c := range cases {
		if got := s.Line(c.in, 1000); got != c.want {
			t.Errorf("%s: Line(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
	if got, want := s.Text("subject\r\n\r\nbody\tline\rfake", 1000), "subject\n\nbody\tline\\rfake"; got != want {
		t.Errorf("Text keeps line feeds and tabs: got %q, want %q", got, want)
	}
}

func TestLineBoundsLength(t *testing.T) {
	s := redact.New(testKey)
	long := strings.Repeat("é", 300_000) // 600,000 bytes
	got := s.Line(long, redact.StoredBytes)
	if len(got) > redact.StoredBytes {
		t.Errorf("bounded to %d bytes, got %d", redact.StoredBytes, len(got))
	}
	if !strings.HasSuffix(got, "more bytes not shown)") {
		t.Errorf("no marker at the end of a cut text: %q", got[len(got)-60:])
	}
	if !strings.HasPrefix(got, "éé") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("cut inside a character: %q", got[:20])
	}
	// A key at the cut point is hidden whole before the cut.
	text := strings.Repeat("x", 95) + testKey
	if got := s.Line(text, 100); strings.Contains(got, "dsa_mock") || strings.Contains(got, "0123") {
		t.Errorf("a key at the cut leaks a part: %q", got)
	}
}

func TestLink(t *testing.T) {
	accepted := []string{
		"https://proj-main.preview.example.com",
		"https://github.com/example/docs/pull/77",
		"https://example.com/a?page=2#top",
	}
	for _, l := range accepted {
		if got, problem := (*redact.Sanitizer)(nil).Link(l, false); got != l || problem != "" {
			t.Errorf("Link(%q) = %q, %q; want it kept", l, got, problem)
		}
	}
	if got, _ := (*redact.Sanitizer)(nil).Link("http://127.0.0.1:8080/preview", true); got == "" {
		t.Error("http refused although base_url is http")
	}
	refused := map[string]string{
		"javascript:alert(1)":                                  "scheme",
		"JavaScript://example.com/%0aalert(1)":                 "scheme",
		"http://preview.example.com":                           "scheme",
		"data:text/html,<script>":                              "scheme",
		"https://user:pass@example.com/":                       "userinfo",
		"https://token@example.com/":                           "userinfo",
		"https://b.s3.amazonaws.com/o?X-Amz-Signature=abcdef1": "signature",
		"https://example.com/pr?access_token=ghp_123456":       "signature",
		"https://example.com/\x1b]8;;https://evil\x1b\\":       "ASCII",
		"https://exa\u202emple.com":                            "ASCII",
		"/relative/path":                                       "absolute",
		"https:///nohost":                                      "host",
		"https://example.com/" + strings.Repeat("a", 3000):     "bytes",
	}
	for l, why := range refused {
		got, problem := (*redact.Sanitizer)(nil).Link(l, false)
		if got != "" || !strings.Contains(problem, why) {
			t.Errorf("Link(%q) = %q, %q; want it refused for %q", l, got, problem, why)
		}
		if strings.Contains(problem, "pass@") || strings.Contains(problem, "abcdef1") || strings.Contains(problem, "\x1b") {
			t.Errorf("the reason %q quotes the link", problem)
		}
	}
}

func TestSignedLink(t *testing.T) {
	for _, l := range []string{
		"https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz?X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-Signature=abcdef",
		"http://127.0.0.1:8080/bundles/se_1/bundle.tar.gz?sig=abc",
	} {
		if problem := (*redact.Sanitizer)(nil).SignedLink(l); problem != "" {
			t.Errorf("SignedLink(%q) refuses: %s", l, problem)
		}
	}
	for l, why := range map[string]string{
		"javascript:alert(1)":                                      "scheme",
		"ftp://example.com/bundle.tar.gz":                          "scheme",
		"https://user:s3cr3t@bucket.example.com/b.tgz":             "userinfo",
		"https://bucket.example.com/b.tgz?x=\x1b[2K":               "ASCII",
		"https://bucket.example.com/" + strings.Repeat("a", 17000): "bytes",
	} {
		if problem := (*redact.Sanitizer)(nil).SignedLink(l); !strings.Contains(problem, why) || strings.Contains(problem, "s3cr3t") {
			t.Errorf("SignedLink(%q) = %q, want a refusal for %q that does not quote the link", l, problem, why)
		}
	}
}

// A server may quote a secret in another spelling than it was sent in:
// none of them shows it.
func TestSecretsInEverySpelling(t *testing.T) {
	const key = "dsa_5f0c1e2d3b4a69788796a5b4c3d2e1f0"
	japanese := "オンボーディングガイドを書き直して、リリース二・四の変更点を加えてください"
	accented := "Réécris le guide d'intégration pour la version 2.4, s'il te plaît"
	english := "Rewrite the onboarding guide for Nightjar and add the release notes of 2.4"
	s := redact.New(key)
	for _, p := range []string{japanese, norm.NFD.String(accented), english} {
		s.AddPrompt(p)
	}
	pythonJSON := func(text string) string { // json.dumps with ensure_ascii, as Python writes it
		var b strings.Builder
		for _, r := range text {
			if r < 0x80 {
				b.WriteRune(r)
				continue
			}
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		}
		return b.String()
	}
	interleaved := func(text string, with rune) string {
		var b strings.Builder
		for _, r := range text {
			b.WriteRune(r)
			b.WriteRune(with)
		}
		return b.String()
	}
	for _, c := range []struct {
		name, text string
		hidden     []string // what must not show, in any case
	}{
		{"a Japanese prompt in \\u escapes", `{"detail": "bad prompt: ` + pythonJSON(japanese) + `"}`, []string{japanese[:30], "\\u30aa"}},
		{"a decomposed prompt echoed composed", "rejected: " + norm.NFC.String(accented), []string{"guide d'intégration", "guide d'inte\u0301gration"}},
		{"a composed echo of the prompt, decomposed", "rejected: " + norm.NFD.String(norm.NFC.String(accented)), []string{"intégration", "inte\u0301gration"}},
		{"the first 18 characters of a prompt", "prompt too long: " + english[:18] + "…", []string{english[:18], english[:16]}},
		{"the first 18 characters of a Japanese prompt", "prompt: " + string([]rune(japanese)[:18]), []string{string([]rune(japanese)[:6])}},
		{"the key between U+034F", "key " + interleaved(key, 0x034F) + " refused", []string{"5f0c1e2d3b4a", `5\u034ff`}},
		{"the key between U+200B", "key " + interleaved(key, 0x200B) + " refused", []string{"5f0c1e2d3b4a", `5\u200bf`}},
		{"the key between variation selectors", "key " + interleaved(key, 0xFE0F) + " refused", []string{"5f0c1e2d3b4a"}},
	} {
		got := s.Line(c.text, 0)
		flat := strings.NewReplacer(`\u034f`, "", `\u200b`, "", `\ufe0f`, "").Replace(got)
		for _, h := range c.hidden {
			if strings.Contains(got, h) || strings.Contains(norm.NFC.String(flat), norm.NFC.String(h)) {
				t.Errorf("%s: %q shows %q", c.name, got, h)
			}
		}
		if !strings.Contains(got, redact.PromptMarker) && !strings.Contains(got, redact.KeyMarker) {
			t.Errorf("%s: %q holds no marker", c.name, got)
		}
	}
}

// A run of a prompt is hidden when it is a phrase; an ordinary word of the
// prompt, however long, is not.
func TestPromptRunsArePhrasesNotWords(t *testing.T) {
	s := redact.New("dsa_5f0c1e2d3b4a69788796a5b4c3d2e1f0")
	s.AddPrompt("Add internationalization support to the onboarding guide")
	for text, hidden := range map[string]bool{
		"the build failed in internationalization.mdx": false, // a word of 20 letters alone
		"and internationalization":                     false, // with a letter of its neighbour
		"commit: Add internationalization":             true,  // a phrase of the prompt
		"see the onboarding guide":                     true,
		"onboarding":                                   false,
	} {
		got := s.Line(text, 0)
		if (got != text) != hidden {
			t.Errorf("Line(%q) = %q; want hidden: %v", text, got, hidden)
		}
	}
}

// A secret spelled with characters a reader does not see between its
// own, with other white space or in other case, is still the secret:
// TestSecretsInEverySpelling for the spellings matched by property.
func TestSecretsInSpellingsMatchedByProperty(t *testing.T) {
	const key = "dsa_5f0c1e2d3b4a69788796a5b4c3d2e1f0"
	const prompt = "Rewrite the onboarding guide for Nightjar and add the release notes of 2.4"
	const german = "Überarbeite die Anleitung zur Straße der Einführung"
	s := redact.New(key)
	s.AddPrompt(prompt)
	s.AddPrompt(german)
	interleaved := func(text, with string) string {
		var b strings.Builder
		for _, r := range text {
			b.WriteRune(r)
			b.WriteString(with)
		}
		return b.String()
	}
	wrapped := func(text, space string) string { return strings.ReplaceAll(text, " ", space) }
	fullWidth := strings.Map(func(r rune) rune {
		if r > ' ' && r < 0x7f {
			return r - ' ' + 0xFF00
		}
		return r
	}, key)
	cases := map[string]string{
		"the key between U+200D":              interleaved(key, "\u200d"),
		"the key between U+200C":              interleaved(key, "\u200c"),
		"the key between U+200E":              interleaved(key, "\u200e"),
		"the key between \\u200d escapes":     interleaved(key, `\u200d`),
		"the key between \\u200E escapes":     interleaved(key, `\u200E`),
		"the key between bidi isolates":       interleaved(key, "\u2066\u2069"),
		"the key between soft hyphens":        interleaved(key, "\u00ad"),
		"the key between Hangul fillers":      interleaved(key, "\u3164"),
		"the key between annotation marks":    interleaved(key, "\ufff9"),
		"the key between tags":                interleaved(key, "\U000E0041"),
		"the key in full-width letters":       fullWidth,
		"the prompt with no-break spaces":     wrapped(prompt, "\u00a0"),
		"the prompt with narrow no-break":     wrapped(prompt, "\u202f"),
		"the prompt with \\u00a0 escapes":     wrapped(prompt, `\u00a0`),
		"the prompt with doubled spaces":      wrapped(prompt, "  "),
		"the prompt with line breaks":         wrapped(prompt, "\n"),
		"the prompt wrapped with CRLF":        strings.Replace(prompt, " guide ", "\r\n guide\r\n", 1),
		"the prompt with tabs and ideographs": wrapped(prompt, "\t\u3000"),
		"the prompt in upper case":            strings.ToUpper(prompt),
		"the prompt in title case":            cases.Title(language.English).String(prompt),
		"the prompt upper, wrapped":           wrapped(strings.ToUpper(prompt), "\n  "),
		"the German prompt in upper case":     strings.ToUpper(german),
		"the German prompt, SS for ß":         strings.ReplaceAll(strings.ToUpper(german), "ß", "SS"),
		"the prompt's start, upper":           strings.ToUpper(prompt[:20]),
		"the prompt's start, wrapped":         wrapped(prompt[:24], "\n"),
	}
	for name, spelled := range cases {
		for _, clean := range []func(string, int) string{s.Line, s.Text} {
			got := clean("refused: "+spelled+" (see the docs)", 0)
			for what, secret := range map[string]string{"the key": key, "the key's secret": key[4:16], "the prompt": prompt[:18],
				"the German prompt": german[:20]} {
				if strings.Contains(readable(got), readable(secret)) {
					t.Errorf("%s: %s is readable in %q", name, what, got)
				}
			}
			if !strings.HasPrefix(got, "refused: ") || !strings.HasSuffix(got, " (see the docs)") {
				t.Errorf("%s: the text around the secret is not kept: %q", name, got)
			}
		}
		if !strings.HasPrefix(name, "the prompt's start") && !s.HoldsSecret(spelled) {
			t.Errorf("%s: HoldsSecret is false", name)
		}
	}
}

// Matching by property hides no more than the secrets: words of a prompt,
// white space and case elsewhere are kept, and what a text shows is
// composed, not compatibility-normalised.
func TestSpellingsKeepOtherText(t *testing.T) {
	s := redact.New("dsa_5f0c1e2d3b4a69788796a5b4c3d2e1f0")
	s.AddPrompt("Rewrite the onboarding guide for Nightjar")
	for in, want := range map[string]string{
		"THE BUILD FAILED:\u00a0see  the log": "THE BUILD FAILED:\u00a0see  the log",
		"ONBOARDING failed":                   "ONBOARDING failed",
		"ﬁle ½ … ＡＢＣ":                         "ﬁle ½ … ＡＢＣ",
		"REWRITE THE\n ONBOARDING failed":     "(prompt redacted)failed", // a run ends at a space
	} {
		if got := s.Text(in, 0); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// A link that holds the API key, its secret part or a run of it, or a
// prompt the provider sent, in any part and in any spelling the sanitizer
// matches, is refused by Link and SignedLink alike, naming the part and
// never the link.
func TestLinkHoldingASecret(t *testing.T) {
	const key = "dsa_Live_5F0c1E2d3B4a69788796A5b4"
	const prompt = "Rewrite the onboarding guide for Nightjar"
	s := redact.New(key)
	s.AddPrompt(prompt)
	zwj := func(text string) string { // each character followed by %E2%80%8D, U+200D percent-encoded
		var b strings.Builder
		for _, r := range text {
			b.WriteRune(r)
			b.WriteString("%E2%80%8D")
		}
		return b.String()
	}
	percent := func(text string) string {
		var b strings.Builder
		for i := 0; i < len(text); i++ {
			fmt.Fprintf(&b, "%%%02X", text[i])
		}
		return b.String()
	}
	for link, part := range map[string]string{
		"https://preview.example.com/?client=" + key:                                                 "query",
		"https://preview.example.com/?client=" + strings.ToLower(key[4:]):                            "query",
		"https://preview.example.com/?c=" + key[9:23]:                                                "query", // a run of 14 of the secret part
		"https://preview.example.com/" + key + "/index.html":                                         "path",
		"https://preview.example.com/#" + key:                                                        "fragment",
		"https://" + strings.ToLower(key[4:]) + ".preview.example.com/":                              "host",
		"https://preview.example.com/?client=" + percent(key):                                        "query",
		"https://preview.example.com/?client=" + strings.ReplaceAll(percent(key), "%", "%25"):        "query",
		"https://preview.example.com/" + zwj(key):                                                    "path",
		"https://preview.example.com/?k=" + strings.Join(strings.Split(key, ""), `%5Cu200d`):         "query",
		"https://preview.example.com/?note=" + strings.ReplaceAll(strings.ToUpper(prompt), " ", "+"): "query",
	} {
		want := "in its " + part
		for name, problem := range map[string]string{
			"Link":       second(s.Link(link, false)),
			"SignedLink": s.SignedLink(link),
		} {
			if !strings.Contains(problem, want) || strings.Contains(problem, key[9:21]) || strings.Contains(strings.ToLower(problem), "nightjar") {
				t.Errorf("%s(%q) = %q; want a refusal %q that quotes nothing of it", name, link, problem, want)
			}
		}
		if got, _ := s.Link(link, false); got != "" {
			t.Errorf("Link(%q) kept it", link)
		}
	}
	for _, link := range []string{
		"https://proj-main.preview.example.com/",
		"https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz?X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-Signature=5f0c1e2d3b4ff0c1e2d3b4", // runs of 11 of the key are chance
		"https://preview.example.com/?q=Rewrite+the+guide",
	} {
		if problem := s.SignedLink(link); problem != "" {
			t.Errorf("SignedLink(%q) refuses: %s", link, problem)
		}
	}
}

func second(_ string, b string) string { return b }
