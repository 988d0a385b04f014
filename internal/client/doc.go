// Package client speaks the documentation platform's administration API over
// HTTP. It knows nothing of its callers: the provider turns its types into
// schema values and its errors into diagnostics worded in its own settings.
// It must never name a setting of its callers or speak their words (a test
// of the package holds it), and never repeat a call that
// starts work after an answer that leaves open whether the API acted.
//
// Every call is declared once, in endpoints.go: its path, whether it may be
// repeated (idempotent), whether a 404 there says the route is missing
// rather than an object (collection), whether its 429 is a quota of its own
// (ownLimit) and which revision of static export it belongs to. Path
// segments are escaped, and an empty, "." or ".." segment is refused before
// anything is sent (segment).
//
// Classify turns any error of a call into one Failure: its kind, whether it
// is transient, and whether the server may have acted. A failure before
// anything was sent, a 429 and any other 4xx promise that the server did not
// act; a broken connection after sending, every 5xx and an unreadable 2xx do
// not. A 502, 503 or 504 is often a gateway's, which may have passed the
// request on, so none of them repeats a start (retryable). Idempotent calls
// are retried after any transient failure, waiting out a Retry-After that
// fits the call's deadline; one that does not fit returns the 429 at once.
// A host the name servers say does not exist is not transient.
//
// A 404 is KindNotFound (IsNotFound, decided by saysGone) only in the API's
// own words about the object asked for: its JSON error naming the id, the
// reference's message for a missing job, or the kind of object and no other
// id. Any other 404 (a router's, a proxy's page, an empty body, a
// collection) is KindNoSuchPath and says nothing of the object.
//
// The API exports a domain or, in its project-scoped revision, a project.
// exportRevisions holds the one rule of which to use (pinned, else the
// revision a job was found in, else the one the server last answered in,
// else domain); the other is tried only after a 404 or 405, which changed
// nothing (tryRevisions). Once a job's revision is known, only it may say the
// job is gone, but for a move between revisions (RevisionError.Moved).
//
// Answers are read field by field (object in tolerant.go): a field of the
// wrong type is left out and named in the model's Malformed, so the answer to
// a call that started work always hands over its id. An id must have the one
// shape ValidID accepts and hold no secret; otherwise the answer is refused.
// One attempt is bounded in size (DefaultMaxResponseBytes) and in time, to
// its last byte (DefaultRequestTimeout), and its error names the bound met.
// Every text of the API's reaches an error through the redact.Sanitizer the
// client is given.
//
// All callers of one client share one request budget: a cap on requests in
// flight, an optional ceiling, and an adaptive rate counted per second as
// servers count their limits. After a 429 the rate drops below what the API
// accepted in the last second and climbs back along a cubic curve; every 429
// pauses all callers for its Retry-After, after which they leave one at a
// time. The rate controller (rate_controller.go) holds no lock and reads no
// clock, so it is tested as scripts of events; the gate (gate.go) holds the
// lock, the requests in flight and the pause, and asks it.
package client
