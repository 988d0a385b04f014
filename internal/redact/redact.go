package redact

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
)

// Markers that stand where something was removed.
const (
	KeyMarker    = "(API key redacted)"
	PromptMarker = "(prompt redacted)"
	ValueMarker  = "REDACTED"
)

// Bounds of the texts callers keep, in bytes.
const (
	// MessageBytes bounds an API error message inside a diagnostic.
	MessageBytes = 2 << 10
	// StoredBytes bounds a free-text attribute in state, such as a
	// deployment's summary or commit message.
	StoredBytes = 4 << 10
	// LineBytes bounds a short value: a status, a model, a branch, a log line.
	LineBytes = 500
)

// Runs of a secret found in a text: a run this long of a secret is hidden even
// when the rest of the secret is not there (an API that quotes the start of a
// key, or a prompt cut or re-wrapped).
//
// A run of a prompt counts only when it is a phrase: it holds a byte that is
// not an ASCII letter (a space, a digit, punctuation, any non-ASCII
// character, so any run of Japanese) with at least three bytes of the run
// on each side. A word alone, however long ("internationalization"), or
// with one letter of its neighbour, is never hidden. The false positives
// are phrases of 16 bytes that the API's text shares with a prompt ("the
// changelog for" in a pull request's title after a prompt that said it),
// which are hidden as the prompt's.
const (
	keyRun    = 12
	promptRun = 16
	// MinPromptRunes is the shortest prompt that is redacted: hiding a word
	// of a few letters would garble every text that contains it.
	MinPromptRunes = 8
)

// maxPrompts bounds the prompts one Sanitizer remembers.
const maxPrompts = 64

// secret is one value never to show, and the run of it that is enough to
// hide. Its value is canonical and folded, as texts are matched (fold).
type secret struct {
	value  string
	run    int
	marker string
	grams  map[string]struct{} // every run-long substring of value
}

// newSecret makes value a secret; admit, when not nil, says which runs of it
// count.
func newSecret(value string, run int, marker string, admit func(run string) bool) secret {
	value = matched(value)
	run = min(run, len(value))
	s := secret{value: value, run: run, marker: marker, grams: make(map[string]struct{}, len(value)-run+1)}
	for i := 0; i+run <= len(value); i++ {
		if admit == nil || admit(value[i:i+run]) {
			s.grams[value[i:i+run]] = struct{}{}
		}
	}
	return s
}

// find calls found for each place of the folded text where the secret is
// whole (whole) or for each run of it, in order, until found returns false.
func (sec secret) find(text string, whole bool, found func(start, end int) bool) {
	if whole {
		for i := 0; sec.value != ""; {
			j := strings.Index(text[i:], sec.value)
			if j < 0 || !found(i+j, i+j+len(sec.value)) {
				return
			}
			i += j + len(sec.value)
		}
		return
	}
	for i := 0; sec.run > 0 && i+sec.run <= len(text); i++ {
		if _, ok := sec.grams[text[i:i+sec.run]]; ok && !found(i, i+sec.run) {
			return
		}
	}
}

// matched is a secret as texts are matched against it: canonical, folded,
// without white space at its ends.
func matched(value string) string {
	return strings.TrimSpace(fold(canonical(value)).text)
}

// phrase admits a run of a prompt that crosses a word's edge (see
// promptRun).
func phrase(run string) bool {
	for i := 3; i < len(run)-3; i++ {
		if c := run[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return true
		}
	}
	return false
}

// Sanitizer knows the secrets of one provider instance: its API key, and the
// prompts it sent. It is safe for concurrent use. A nil *Sanitizer still
// hides signatures and tokens, quotes and bounds.
type Sanitizer struct {
	mu      sync.RWMutex
	secrets []secret
	prompts map[string]bool
}

// New returns a Sanitizer that hides apiKey, and its secret part alone (keys
// are shaped <prefix>_<secret>).
func New(apiKey string) *Sanitizer {
	s := &Sanitizer{prompts: map[string]bool{}}
	if apiKey == "" {
		return s
	}
	s.secrets = append(s.secrets, newSecret(apiKey, len(apiKey), KeyMarker, nil))
	if _, part, ok := strings.Cut(apiKey, "_"); ok && len(part) >= 8 {
		s.secrets = append(s.secrets, newSecret(part, keyRun, KeyMarker, nil))
	} else if len(apiKey) > keyRun {
		s.secrets = append(s.secrets, newSecret(apiKey, keyRun, KeyMarker, nil))
	}
	return s
}

// AddPrompt makes prompt a secret from now on, in every spelling texts are
// matched in, and as JSON would quote it. Call it before sending the
// prompt, so that an answer echoing it is redacted. Prompts shorter than
// MinPromptRunes are not secrets (IsSecretPrompt).
func (s *Sanitizer) AddPrompt(prompt string) {
	if s == nil || !IsSecretPrompt(prompt) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prompts[prompt] || len(s.prompts) >= maxPrompts {
		return
	}
	s.prompts[prompt] = true
	s.secrets = append(s.secrets, newSecret(prompt, promptRun, PromptMarker, phrase))
	if quoted, err := json.Marshal(prompt); err == nil && string(quoted[1:len(quoted)-1]) != prompt {
		s.secrets = append(s.secrets, newSecret(string(quoted[1:len(quoted)-1]), promptRun, PromptMarker, phrase))
	}
}

// PromptStart is what a log may show of a prompt, so that a user can tell
// which one was sent: its first characters, fewer bytes than a run that
// counts as the prompt (promptRun) and never more than half of it, and an
// ellipsis.
func PromptStart(prompt string) string {
	runes := []rune(prompt)
	n, size := 0, 0
	for n < len(runes)/2 && size+utf8.RuneLen(runes[n]) < promptRun {
		size += utf8.RuneLen(runes[n])
		n++
	}
	return string(runes[:n]) + "…"
}

// IsSecretPrompt reports a prompt long enough to be a secret: hiding a
// word of a few letters would garble every text that contains it, so
// prompts shorter than MinPromptRunes, as they are matched (invisible
// characters dropped, white space folded), are neither redacted nor masked.
func IsSecretPrompt(prompt string) bool {
	return utf8.RuneCountInString(matched(prompt)) >= MinPromptRunes
}

// holding names the secret text holds in any spelling the sanitizer
// matches ("the API key", also for a run of it, or "a prompt the provider
// sent"), or returns "". Stricter than HoldsSecret: it is for text that
// leaves the provider's hands whole, such as a link.
func (s *Sanitizer) holding(text string) string {
	if s == nil {
		return ""
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	in := fold(canonical(text)).text
	for _, sec := range s.secrets {
		held := false
		sec.find(in, true, func(int, int) bool { held = true; return false })
		if !held && sec.marker == KeyMarker {
			sec.find(in, false, func(int, int) bool { held = true; return false })
		}
		if held && sec.marker == KeyMarker {
			return "the API key"
		}
		if held {
			return "a prompt the provider sent"
		}
	}
	return ""
}

// HoldsSecret reports whether text holds a whole secret the sanitizer
// knows: the key, its secret part or a prompt, in any case of the key's
// letters. A run of a secret does not count: an identifier that shares a
// few characters with the key is not the key.
func (s *Sanitizer) HoldsSecret(text string) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	text = canonical(text)
	return hideSecrets(text, s.secrets, true) != text
}

// Line returns text as one line that may be shown, in its canonical
// spelling: secrets redacted, invisible and bidirectional formatting
// characters dropped, every control character quoted (as \x1b, \r, \n), at
// most limit bytes with a marker saying how much was cut.
func (s *Sanitizer) Line(text string, limit int) string { return s.clean(text, limit, false) }

// Text is Line for text of several lines, such as a commit message: line
// feeds and tabs are kept (a CRLF becomes a line feed), every other control
// character is quoted.
func (s *Sanitizer) Text(text string, limit int) string { return s.clean(text, limit, true) }

// Message is Line bounded by MessageBytes: the API's error messages.
func (s *Sanitizer) Message(text string) string { return s.Line(text, MessageBytes) }

func (s *Sanitizer) clean(text string, limit int, multiline bool) string {
	text = canonical(text)
	text = s.hide(text)
	text = quote(text, multiline)
	// Quoting never removes a character, but its escapes could complete a
	// secret made of them: hide again.
	text = s.hide(text)
	return bound(text, limit)
}

// hide replaces whole secrets, then signatures and tokens, then what is left
// of secrets: a run of a key inside a signature is the signature's, and
// is hidden as one.
func (s *Sanitizer) hide(text string) string {
	if s == nil {
		return hidePatterns(text)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	text = hideSecrets(text, s.secrets, true)
	text = hidePatterns(text)
	return hideSecrets(text, s.secrets, false)
}

// hideSecrets replaces every whole secret (whole) or every run of one with
// its marker; overlapping spans merge. Secrets are looked for in the text
// folded, and each match is mapped back to the text.
func hideSecrets(text string, secrets []secret, whole bool) string {
	type span struct {
		start, end int
		marker     string
	}
	var spans []span
	in := fold(text)
	for _, sec := range secrets {
		sec.find(in.text, whole, func(start, end int) bool {
			start, end = in.span(start, end)
			spans = append(spans, span{start, end, sec.marker})
			return true
		})
	}
	if len(spans) == 0 {
		return text
	}
	// Spans are sorted by start within each secret; sort across secrets.
	slices.SortStableFunc(spans, func(a, b span) int { return a.start - b.start })
	var b strings.Builder
	pos := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		// A run may begin or end inside a character: hide it whole.
		for cur.start > pos && !utf8.RuneStart(text[cur.start]) {
			cur.start--
		}
		wholeEnd := func() {
			for cur.end < len(text) && !utf8.RuneStart(text[cur.end]) {
				cur.end++
			}
		}
		wholeEnd()
		for i++; i < len(spans) && spans[i].start <= cur.end; i++ {
			cur.end = max(cur.end, spans[i].end)
			wholeEnd()
		}
		b.WriteString(text[pos:cur.start])
		b.WriteString(cur.marker)
		pos = cur.end
	}
	b.WriteString(text[pos:])
	return b.String()
}

var (
	// credentialField is a named credential, as a query parameter, a
	// header, a JSON member or prose: the value after it is hidden.
	credentialField = regexp.MustCompile(`(?i)\b((?:proxy-)?authorization|x-api-key|api[-_]?key|access[-_]?token|refresh[-_]?token|id[-_]?token|` +
		`auth[-_]?token|session[-_]?token|client[-_]?secret|secret|password|passwd)("?\s*[:=]\s*"?)((?:(?:bearer|basic|token)\s+)?)([^\s"',;&()<>]+)`)
	// bearer is an Authorization scheme and its credentials (RFC 7235's token68).
	bearer = regexp.MustCompile(`(?i)\b(bearer|token)(\s+)([A-Za-z0-9._~+/-]+=*)`)
	// basicAuth is Basic credentials: base64 of user:password.
	basicAuth = regexp.MustCompile(`(?i)\b(basic)(\s+)([A-Za-z0-9+/]{8,}={0,2})`)
	// userinfo is a URL's user:password@.
	userinfo = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^\s/@:]*):([^\s/@]+)@`)
)

// hidePatterns hides what is a credential by its shape: link signatures and
// tokens (bundlelink.SignatureInText, the one pattern of a signing parameter), Authorization values, named secrets,
// passwords in URLs.
func hidePatterns(text string) string {
	text = replaceGroup(bundlelink.SignatureInText, text, 1, func(string) bool { return true })
	text = replaceGroup(credentialField, text, 4, func(v string) bool {
		return v != ValueMarker && !strings.EqualFold(v, "bearer") && !strings.EqualFold(v, "basic")
	})
	text = replaceGroup(bearer, text, 3, func(v string) bool {
		// "token is invalid": a word is not a credential; one with a digit,
		// a symbol or a length no word has is.
		return v != ValueMarker && (len(v) >= 20 || strings.ContainsAny(v, "0123456789._~+/-="))
	})
	text = replaceGroup(basicAuth, text, 3, func(v string) bool {
		return len(v) >= 12 && strings.ContainsAny(v, "0123456789+/=")
	})
	return userinfo.ReplaceAllString(text, "${1}:"+ValueMarker+"@")
}

// replaceGroup replaces submatch group of every match of re with ValueMarker
// where hide says so.
func replaceGroup(re *regexp.Regexp, text string, group int, hide func(string) bool) string {
	matches := re.FindAllStringSubmatchIndex(text, -1)
	if matches == nil {
		return text
	}
	var b strings.Builder
	pos := 0
	for _, m := range matches {
		start, end := m[2*group], m[2*group+1]
		if start < 0 || !hide(text[start:end]) {
			continue
		}
		b.WriteString(text[pos:start])
		b.WriteString(ValueMarker)
		pos = end
	}
	b.WriteString(text[pos:])
	return b.String()
}

// quote escapes every character a terminal or an editor would act on rather
// than show: C0 and C1 controls (ESC opens OSC-8 hyperlinks and line
// erasures, CR rewrites a line), DEL, line and paragraph separators,
// private-use characters and bytes that are not UTF-8. With multiline, line
// feeds and tabs stay. Format characters (bidirectional controls such as
// U+202E) never reach it: canonical drops them.
func quote(text string, multiline bool) string {
	if multiline {
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	if !strings.ContainsFunc(text, func(r rune) bool { return mustQuote(r, multiline) }) {
		return text
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, text[i])
		case !mustQuote(r, multiline):
			b.WriteString(text[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// mustQuote reports a character that may not appear as itself.
func mustQuote(r rune, multiline bool) bool {
	switch {
	case multiline && (r == '\n' || r == '\t'):
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == utf8.RuneError:
		return true
	}
	return unicode.In(r, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cs)
}

// bound cuts text to at most limit bytes, on a character boundary, and says
// how much was cut. The marker fits within limit.
func bound(text string, limit int) string {
	if limit <= 0 || len(text) <= limit {
		return text
	}
	marker := func(n int) string { return fmt.Sprintf(" … (%d more bytes not shown)", n) }
	cut := max(limit-len(marker(len(text))), 0)
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	m := marker(len(text) - cut)
	if len(m) > limit {
		m, cut = "…", 0
		if len(m) > limit {
			m = ""
		}
	}
	return text[:cut] + m
}
