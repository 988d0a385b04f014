package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redirect"
)

// Defaults for Config fields left at their zero value.
const (
	DefaultMaxResponseBytes      = 1 << 20
	DefaultRequestTimeout        = 30 * time.Second
	DefaultMaxRetries            = 5
	DefaultMaxConcurrentRequests = 8
	DefaultMaxRetryAfter         = 60 * time.Second
	DefaultUserAgent             = "docsadmin-go-client"
)

// Logger receives the client's debug records. Field values never contain the
// API key or a link's signature.
type Logger interface {
	Debug(ctx context.Context, msg string, fields map[string]any)
}

// Config configures a Client. Zero values select the defaults above.
type Config struct {
	BaseURL   string // host root, e.g. https://api.example.com
	APIKey    string
	UserAgent string

	// HTTPClient sends the requests; its CheckRedirect is replaced by the
	// API's redirect rule (none is followed).
	HTTPClient *http.Client
	// RequestTimeout bounds one attempt, from sending to the last byte of
	// the answer: a server that trickles its answer fails the attempt.
	RequestTimeout time.Duration
	// MaxResponseBytes bounds the size of one answer.
	MaxResponseBytes int64

	// MaxRetries bounds the retries of one call: nil for the default, 0 (or
	// less) for none.
	MaxRetries *int
	// RequestsPerSecond and MaxConcurrentRequests form the request budget
	// shared by every caller of this Client. RequestsPerSecond is a ceiling;
	// zero sets none: requests are not paced until the server answers 429,
	// and then at a rate learned from its 429s (see gate and rateController).
	RequestsPerSecond     float64
	MaxConcurrentRequests int
	// MaxRetryAfter caps how long a server's Retry-After may hold the client.
	MaxRetryAfter time.Duration
	// Backoff spaces retries that carry no Retry-After.
	Backoff clock.Backoff

	// ExportRevision pins the revision of the static export API; empty, the
	// client chooses (see exportRevisions). ProjectID is the project the
	// project revision exports; without it only the domain revision is used.
	ExportRevision ExportRevision
	ProjectID      string

	Clock  clock.Clock
	Logger Logger
	// Sanitizer cleans the API's error messages before they reach an
	// error: the caller's, which also knows the prompts it sent; by
	// default one that knows the API key.
	Sanitizer *redact.Sanitizer
}

// Client is safe for concurrent use; one is shared by every resource and data
// source of a provider instance.
type Client struct {
	baseURL       string
	apiKey        string
	userAgent     string
	http          *http.Client
	maxBody       int64
	timeout       time.Duration
	maxRetries    int
	maxRetryAfter time.Duration
	backoff       clock.Backoff
	clock         clock.Clock
	logger        Logger
	budget        *gate
	sanitizer     *redact.Sanitizer
	exports       *exportRevisions
}

// APIAddress is the one form of a base URL by which two are compared: the
// API's origin as redirect.Origin writes it (scheme and host in lower case,
// a default port left out) and its path without a trailing slash. Two base
// URLs with the same address name the same API; a value that does not
// parse is its own address.
func APIAddress(baseURL string) string {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return baseURL
	}
	return redirect.Origin(u) + strings.TrimRight(u.EscapedPath(), "/")
}

// New validates cfg and builds a Client.
func New(cfg Config) (*Client, error) {
	base, err := url.Parse(cfg.BaseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("base URL %q is not an absolute http(s) URL", cfg.BaseURL)
	}
	if cfg.APIKey == "" {
		return nil, errors.New("an API key is required")
	}
	c := &Client{
		baseURL:       strings.TrimRight(base.String(), "/"),
		apiKey:        cfg.APIKey,
		userAgent:     cmp.Or(cfg.UserAgent, DefaultUserAgent),
		http:          cfg.HTTPClient,
		maxBody:       cmp.Or(max(cfg.MaxResponseBytes, 0), DefaultMaxResponseBytes),
		timeout:       cmp.Or(max(cfg.RequestTimeout, 0), DefaultRequestTimeout),
		maxRetries:    DefaultMaxRetries,
		maxRetryAfter: cmp.Or(max(cfg.MaxRetryAfter, 0), DefaultMaxRetryAfter),
		backoff:       cfg.Backoff,
		clock:         cfg.Clock,
		logger:        cfg.Logger,
		sanitizer:     cfg.Sanitizer,
		exports:       newExportRevisions(cfg.ExportRevision, cfg.ProjectID),
	}
	if cfg.ExportRevision != "" && !slices.Contains(ExportRevisions, cfg.ExportRevision) {
		return nil, fmt.Errorf("static export revision %q is none of %v", cfg.ExportRevision, ExportRevisions)
	}
	if c.sanitizer == nil {
		c.sanitizer = redact.New(cfg.APIKey)
	}
	if c.http == nil {
		// Keep a connection for every request that may be in flight: the
		// default keeps two, so a burst would open (and, over TLS, shake
		// hands for) new connections again and again. The time of an
		// attempt is bounded by its context (send), which says so.
		transport, _ := http.DefaultTransport.(*http.Transport)
		if transport != nil {
			transport = transport.Clone()
			transport.MaxIdleConnsPerHost = max(cfg.MaxConcurrentRequests, DefaultMaxConcurrentRequests)
			c.http = &http.Client{Transport: transport}
		} else {
			c.http = &http.Client{}
		}
	} else {
		copied := *c.http
		c.http = &copied
	}
	// The API is spoken to at its own address only: a redirect would carry
	// the key elsewhere (Go keeps it on a redirect to the same host name,
	// https to http included) or turn a POST into a GET.
	c.http.CheckRedirect = redirect.Check(0, "the API answers at its own address, so the client follows no redirect")
	if cfg.MaxRetries != nil {
		c.maxRetries = max(*cfg.MaxRetries, 0)
	}
	if c.backoff.Base <= 0 {
		c.backoff = clock.Backoff{Base: 500 * time.Millisecond, Max: 15 * time.Second, Factor: 2, Jitter: 0.2}
	}
	if c.clock == nil {
		c.clock = clock.RealClock
	}
	if c.logger == nil {
		c.logger = nopLogger{}
	}
	concurrency := cmp.Or(max(cfg.MaxConcurrentRequests, 0), DefaultMaxConcurrentRequests)
	c.budget = newGate(max(cfg.RequestsPerSecond, 0), concurrency, c.clock, c.logger)
	return c, nil
}

// Paced reports whether the client paces its requests: it was given a
// ceiling, or the API has answered 429 and the rate is learned from it.
func (c *Client) Paced() bool { return c.budget.paced() }

type nopLogger struct{}

func (nopLogger) Debug(context.Context, string, map[string]any) {}

// do sends one call, retrying as its endpoint allows, and decodes a 2xx JSON
// answer into out.
func (c *Client) do(ctx context.Context, ep endpoint, body any, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("%s: encoding request: %w", ep, err)
		}
	}
	if ep.invalid != "" {
		return fmt.Errorf("%s: %s", ep.method, ep.invalid)
	}
	for attempt := 0; ; attempt++ {
		sent, err := c.attempt(ctx, ep, payload, out, attempt)
		if err == nil {
			return nil
		}
		wait := c.backoff.Delay(attempt) // jitter only shortens it
		var apiErr *APIError
		if errors.As(err, &apiErr) && apiErr.RetryAfter > 0 {
			wait = min(apiErr.RetryAfter, c.maxRetryAfter) // a floor: never jittered
		}
		if ep.ownLimit && Classify(err).Kind == KindRateLimited {
			return err
		}
		if Classify(err).Kind == KindRateLimited {
			// A 429 speaks for the whole key: hold every caller, not just
			// this one, and slow down.
			c.budget.recordThrottle(ctx, sent, wait, "HTTP 429 to "+ep.String())
		}
		if ctx.Err() != nil {
			return err
		}
		reason, retry := retryable(ep, err)
		if !retry || attempt >= c.maxRetries {
			return err
		}
		if deadline, ok := ctx.Deadline(); ok && apiErr != nil && apiErr.RetryAfter > time.Until(deadline) {
			// The server asks for more time than the call has left. A
			// deadline is wall time whatever clock the client was given.
			return err
		}
		c.logger.Debug(ctx, "retrying API request", map[string]any{
			"endpoint": ep.String(),
			"attempt":  attempt + 1,
			"reason":   reason,
			"wait_ms":  wait.Milliseconds(),
		})
		if sleepErr := clock.Sleep(ctx, c.clock, wait); sleepErr != nil {
			return fmt.Errorf("%w (stopped waiting to retry: %w)", err, sleepErr)
		}
	}
}

// attempt sends one request and reports when it was sent.
func (c *Client) attempt(ctx context.Context, ep endpoint, payload []byte, out any, attempt int) (time.Time, error) {
	started, release, err := c.budget.acquire(ctx)
	if err != nil {
		// Not a transport failure: the call could not run within its time.
		return time.Time{}, fmt.Errorf("%s: waiting for the request budget: %w", ep, err)
	}
	defer release()
	return started, c.send(ctx, ep, payload, out, attempt, started)
}

// errAttemptTimeout is the cause of an attempt that outlived RequestTimeout.
var errAttemptTimeout = errors.New("the attempt's time ran out")

func (c *Client) send(ctx context.Context, ep endpoint, payload []byte, out any, attempt int, started time.Time) error {
	var reqBody io.Reader
	if payload != nil {
		reqBody = bytes.NewReader(payload)
	}
	callCtx := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout, errAttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, ep.method, c.baseURL+ep.path, reqBody)
	if err != nil {
		return fmt.Errorf("%s: building request: %w", ep, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.apiKey)
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	// ranOut reports an attempt ended by RequestTimeout, not by the caller.
	ranOut := func() bool { return callCtx.Err() == nil && errors.Is(context.Cause(ctx), errAttemptTimeout) }

	resp, err := c.http.Do(req)
	if err != nil {
		var refused *redirect.Error
		switch {
		case errors.As(err, &refused):
			// A 303 answers a request that was acted on ("see the result
			// there"); the other redirects say it was not handled here.
			return c.requestError(ep, refused, refused.Status == http.StatusSeeOther)
		case ranOut() && !notSent(err):
			err = &SlowAnswerError{Limit: c.timeout, Headers: false}
		}
		return c.requestError(ep, scrubURLError(err), !notSent(err))
	}
	defer resp.Body.Close()

	body := &countingReader{r: resp.Body}
	data, readErr := io.ReadAll(io.LimitReader(body, c.maxBody+1))
	c.logger.Debug(ctx, "API request", map[string]any{
		"endpoint":    ep.String(),
		"status":      resp.StatusCode,
		"attempt":     attempt + 1,
		"duration_ms": c.clock.Now().Sub(started).Milliseconds(),
	})
	if readErr != nil {
		if ranOut() {
			readErr = &SlowAnswerError{Limit: c.timeout, Headers: true, Received: body.n}
		}
		return c.requestError(ep, fmt.Errorf("reading the HTTP %d answer: %w", resp.StatusCode, scrubURLError(readErr)), true)
	}
	if int64(len(data)) > c.maxBody {
		return &APIError{Endpoint: ep.String(), StatusCode: resp.StatusCode, Message: fmt.Sprintf("the answer is larger than the %d-byte limit of an answer; it was not read further", c.maxBody)}
	}

	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &APIError{
			Endpoint:   ep.String(),
			StatusCode: resp.StatusCode,
			Message:    c.sanitizer.Message(errorMessage(resp, data)),
			RetryAfter: parseRetryAfterHeader(resp.Header.Get("Retry-After"), c.clock.Now()),
			collection: ep.collection,
			gone:       resp.StatusCode == http.StatusNotFound && !ep.collection && saysGone(data, ep.object),
			unrouted:   unroutedAnswer(resp.StatusCode, data, ep.object),
			project:    ep.project,
			inProject:  ep.inProject,
		}
	}
	if out == nil {
		return nil
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return &APIError{Endpoint: ep.String(), StatusCode: resp.StatusCode, Message: "the answer had an empty body where JSON was expected"}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &APIError{Endpoint: ep.String(), StatusCode: resp.StatusCode, Message: c.sanitizer.Message("the answer is not valid JSON: " + err.Error())}
	}
	// An id is kept in state and shown as it is: one that holds the key (or
	// its secret part) is refused as well. A few characters it shares with
	// the key are chance, not the key.
	if id, bad := badIdentifier(out, func(id string) bool { return !c.sanitizer.HoldsSecret(id) }); bad {
		return &APIError{Endpoint: ep.String(), StatusCode: resp.StatusCode, Message: c.badIdentifierMessage(ep, id)}
	}
	return nil
}

// badIdentifierMessage refuses an answer whose id breaks idPattern or holds
// a secret, quoting it through the sanitizer. Such an id can be neither
// kept nor followed: an answer to a call that started work is refused too,
// and says that the work may have started.
func (c *Client) badIdentifierMessage(ep endpoint, id identifier) string {
	text := fmt.Sprintf("the answer's %s \"%s\" is not an identifier that can be kept or used in a request (%s, holding no secret)",
		id.field, c.sanitizer.Line(id.value, 160), IDShape)
	if !ep.idempotent {
		text += "; the call may have started work that cannot be followed with it"
	}
	return text
}

// requestError is the one way a failure without an API answer becomes an
// error. Its text may quote the server (a malformed status line, a
// redirect's target host), so it passes through the sanitizer; the cause
// stays underneath, for Classify.
func (c *Client) requestError(ep endpoint, err error, maybeProcessed bool) *RequestError {
	return &RequestError{Endpoint: ep.String(), Err: &sanitizedError{text: c.sanitizer.Message(err.Error()), err: err}, MaybeProcessed: maybeProcessed}
}

// sanitizedError shows err's text as the sanitizer cleaned it, and unwraps
// to err.
type sanitizedError struct {
	text string
	err  error
}

func (e *sanitizedError) Error() string { return e.text }
func (e *sanitizedError) Unwrap() error { return e.err }

// errorMessage extracts the API's {"error": "..."} message, or describes a
// body that is not one (a proxy's HTML page, for instance) without echoing
// it. A router's or a gateway's generic error ({"error": "Not Found"}) gives
// way to a message of its own beside it.
func errorMessage(resp *http.Response, data []byte) string {
	if said, message, ok := errorBody(data); ok {
		switch {
		case said != "" && !generic(resp.StatusCode, said):
			return said
		case message != "":
			return message
		case said != "":
			return said
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return "no error message in the answer"
	}
	contentType := resp.Header.Get("Content-Type")
	if contentType == "" {
		contentType = "unknown content type"
	}
	return fmt.Sprintf("the answer is not an API error (%s, %d bytes); a proxy or gateway may have answered", contentType, len(data))
}

// errorBody reads a JSON error object: its "error" (a string, or an object's
// "message") and its "message".
func errorBody(data []byte) (said, message string, ok bool) {
	var body struct {
		Error   any `json:"error"`
		Message any `json:"message"`
	}
	if json.Unmarshal(data, &body) != nil {
		return "", "", false
	}
	switch v := body.Error.(type) {
	case string:
		said = v
	case map[string]any:
		said, _ = v["message"].(string)
	}
	message, _ = body.Message.(string)
	return said, message, true
}

// missingMessages are the API's documented answers for an object that does
// not exist which do not name it (part E of the API's reference).
var missingMessages = []string{
	"no job exists with the provided id for this deployment.",
}

// saysGone reports a 404 answer in which the API says that the object asked
// for, id, does not exist: its own error shape ({"error": "..."}) with a
// message that names id, one of its documented messages for a missing
// object, or a message of its own that speaks of such an object ("no such
// job", "Deployment not found") and names no other. Any other JSON API
// answers 404 too, for a route it does not have ({"error": "not_found"},
// {"error": "Unknown endpoint"}), and a router's message quotes the path, id
// included: words that hold a "/" are not read, so a path never names the
// object, and a message about a route, an endpoint or a page never says an
// object is gone.
func saysGone(data []byte, id string) bool {
	said, _, ok := errorBody(data)
	if !ok || said == "" {
		return false
	}
	if slices.Contains(missingMessages, strings.ToLower(strings.TrimSpace(said))) {
		return true
	}
	if generic(http.StatusNotFound, said) {
		return false
	}
	object, otherID := false, false
	for _, word := range strings.Fields(said) {
		if strings.Contains(word, "/") {
			continue
		}
		if id != "" && namesID(word, id) {
			return true
		}
		bare := strings.ToLower(strings.Trim(word, ".,;:!?\"'`()[]{}<>"))
		switch {
		case slices.Contains(routeWords, bare):
			return false
		case slices.Contains(objectWords, bare):
			object = true
		case strings.ContainsAny(bare, "0123456789_"):
			otherID = true // an id, or a code: not the one asked for
		}
	}
	return object && !otherID
}

// unroutedAnswer reports an answer given as to a route that is not served:
// a 405, or a 404 that is not the API speaking in its own words (an error
// body of its shape whose message is neither a router's generic one nor
// speaks of a route): a router's ({"error": "Not Found"}, "Cannot GET
// /path"), a proxy's page, an empty body. A 404 in which the API says
// that the object, or the project that holds it, does not exist is not.
func unroutedAnswer(status int, data []byte, id string) bool {
	switch {
	case status == http.StatusMethodNotAllowed:
		return true
	case status != http.StatusNotFound || saysGone(data, id):
		return false
	}
	said, _, ok := errorBody(data)
	if !ok || said == "" || generic(status, said) {
		return true
	}
	for _, word := range strings.Fields(said) {
		if slices.Contains(routeWords, strings.ToLower(strings.Trim(word, ".,;:!?\"'`()[]{}<>"))) {
			return true
		}
	}
	return false
}

// objectWords name the objects the API has; routeWords, what a router
// speaks of.
var (
	objectWords = []string{"job", "jobs", "export", "exports", "deployment", "deployments", "preview", "previews", "status", "bundle"}
	routeWords  = []string{"route", "routes", "endpoint", "endpoints", "path", "url", "page", "method", "resource"}
)

// namesID reports whether word holds id standing alone: not inside a longer
// identifier ("se_1" is not in "se_12"), though quotes and punctuation may
// surround it.
func namesID(word, id string) bool {
	idChar := func(b byte) bool {
		return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(word[i:], id)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(id)
		if (start == 0 || !idChar(word[start-1])) && (end == len(word) || !idChar(word[end])) {
			return true
		}
		i = start + 1
	}
}

// generic reports a message that any router or gateway gives for the
// status, which says nothing of the object asked for: the status's name
// ("Not Found", "404 Not Found", "404 page not found") or a router's
// "Cannot GET /path" and "Route GET:/path not found".
func generic(status int, message string) bool {
	m := strings.ToLower(strings.TrimSpace(message))
	m = strings.TrimSpace(strings.TrimPrefix(m, strconv.Itoa(status)))
	m = strings.ReplaceAll(m, "_", " ") // {"error": "not_found"}
	switch m {
	case strings.ToLower(http.StatusText(status)), "page not found", "resource not found", "no route found", "route not found", "endpoint not found":
		return true
	}
	for _, method := range []string{"get", "post", "put", "patch", "delete", "head", "options"} {
		if strings.HasPrefix(m, "cannot "+method+" ") || strings.HasPrefix(m, "route "+method+":") {
			return true
		}
	}
	return false
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
