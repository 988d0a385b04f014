// Package redact decides how text from outside (the API's answers, an object
// store's errors) may appear in an error, a warning, a log record or state:
// without the API key, link signatures, tokens or the prompts the provider
// sent, without characters a terminal would act on, and bounded in length.
// It also holds the rules for the links the API returns (Link, SignedLink).
// It must never hand back text that holds a secret as it is or as a reader
// reads it, and never cut a text before it has redacted it.
//
// One Sanitizer per provider instance, made from the API key; the provider
// adds every prompt it sends (AddPrompt) before sending it. The text is
// shown in one spelling (canonical in spelling.go): JSON's \u escapes
// resolved, every character that renders as nothing or only steers its
// neighbours removed by property (general category Cf and the default
// ignorables), composed (NFC). Secrets are matched in that text folded
// (fold): compatibility-decomposed, case-folded and with white space runs
// made one space, a character at a time so that a match maps back to the
// text shown. The key is hidden in any case, as its secret part alone and as
// a run of keyRun bytes of it; a prompt as a whole and as any phrase of
// promptRun bytes that is not one word; signatures, tokens and credentials by
// their shape (hidePatterns). Secrets are hidden whole, then by shape, then by
// runs, and again after quoting, since an escape can complete a secret;
// FuzzSanitize holds it to that.
//
// Knowingly not matched: a secret encoded (base64, hex, percent-encoding
// outside a link), a visible separator every few bytes, and look-alike
// letters of another script. Any text may be an encoding, separators are
// ordinary text, and confusables would hide ordinary non-Latin words; what is
// matched are the spellings a server produces quoting what it was sent.
//
// Text quotes controls, DEL, line and paragraph separators, private-use
// characters and bytes that are not UTF-8 as Go escapes, keeping line feeds
// and tabs; Line keeps none. Both cut at a bound (MessageBytes, StoredBytes,
// LineBytes) with a marker saying how much was cut.
//
// Every link from the API passes one rule of shape (LinkShape: length,
// printable ASCII, scheme, host, no userinfo) and one check that it holds no
// secret the sanitizer knows in any part, as it is or percent-decoded
// (checkLink in link.go). A link state keeps must pass Link (https, or http
// where base_url is; no signature or token); a bundle link, whose signature
// is its purpose, must pass SignedLink. The reason names the part, never the
// value.
//
// Log records are masked by regular expression, where the sanitizer cannot
// run: LogPatterns are the signature pattern and the key in every spelling
// the sanitizer reads as the key.
package redact
