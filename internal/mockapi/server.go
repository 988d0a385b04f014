// Package mockapi is a stateful in-memory fake of the documentation
// administration API: static export jobs, bundle links,
// presigned bundle downloads and agent jobs.
//
// It is deliberately an independent implementation of the contract (it shares
// no code with the provider's client) so that a misreading of the contract in
// one does not silently hide in the other. Tests script it through exported
// methods: per-domain export behaviour, queued faults, a controllable clock,
// a rate limiter and request counters.
package mockapi

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults used when the corresponding Config or ExportBehavior field is zero.
const (
	DefaultAPIKey         = "dsa_mock_0123456789abcdef"
	DefaultExportDuration = 3 * time.Second
	DefaultLinkTTL        = time.Hour
	DefaultPageCount      = 42
	DefaultFailMessage    = "export failed: rendering error on page guides/intro"
)

// maxBodyBytes bounds request bodies; the real API only takes small JSON objects.
const maxBodyBytes = 1 << 20

// Config configures a Server. Zero values mean defaults.
type Config struct {
	// APIKey is the only accepted bearer token (shape <prefix>_<secret>).
	APIKey string
	// ExportDuration is the time a new export job spends running before it
	// completes (or fails). Default 3s.
	ExportDuration time.Duration
	// QueueDuration is the time a new export job spends "queued" before it
	// starts running; it is added before ExportDuration. Default 0: the job is
	// queued only at the very instant it is created.
	QueueDuration time.Duration
	// LinkTTL is the lifetime of generated bundle links. Default 1h.
	LinkTTL time.Duration
	// Now is the clock for job progression, link signing and expiry, and the
	// agent creation window. Default time.Now.
	Now func() time.Time
	// RateLimit is the maximum number of API requests per second over all API
	// endpoints (token bucket, burst max(1, RateLimit), real time). 0 means
	// unlimited. Bundle downloads are not limited: they model object storage,
	// a different service.
	RateLimit float64
	// OmitExpiresAt makes bundle responses omit "expiresAt" so clients must
	// derive the expiry from the presigned query.
	OmitExpiresAt bool
	// ConflictOnRunningExport makes a start for a domain that still has an
	// unfinished job answer 409, as a later API revision does.
	ConflictOnRunningExport bool
	// ErrorLog receives internal errors of the listening server started by
	// NewServer. Default: discarded.
	ErrorLog *log.Logger
}

func (c Config) withDefaults() Config {
	if c.APIKey == "" {
		c.APIKey = DefaultAPIKey
	}
	if c.ExportDuration <= 0 {
		c.ExportDuration = DefaultExportDuration
	}
	if c.QueueDuration < 0 {
		c.QueueDuration = 0
	}
	if c.LinkTTL <= 0 {
		c.LinkTTL = DefaultLinkTTL
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Server is the fake API. It implements http.Handler.
type Server struct {
	// URL is the base address, e.g. "http://127.0.0.1:41234", without a
	// trailing slash. Empty for a NewHandler server until SetURL is called.
	URL string
	// APIKey is the key clients must send (updated by SetAPIKey).
	APIKey string

	cfg     Config
	secret  []byte // signs bundle links; random per server so links never leak across servers
	limiter *rateLimiter

	mu             sync.Mutex
	baseURL        string
	apiKey         string
	jobs           map[string]*exportJob
	jobSeq         int64
	behaviors      map[string]ExportBehavior
	exportsStarted map[string]int
	bundles        map[string]int
	requests       map[Endpoint]int
	total          int
	rateLimited    int
	downloads      int
	faults         map[Endpoint][]Fault
	agents         map[agentKey]*agentEntry
	agentCreations map[string][]time.Time

	httpSrv   *http.Server
	closeOnce sync.Once
}

// NewHandler returns a Server that does not listen. Serve it with your own
// listener (s.Handler()) and call SetURL so bundle links point at it; until
// then links are built from the request's Host header.
func NewHandler(cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{
		APIKey:         cfg.APIKey,
		cfg:            cfg,
		secret:         randomBytes(32),
		apiKey:         cfg.APIKey,
		jobs:           map[string]*exportJob{},
		behaviors:      map[string]ExportBehavior{},
		exportsStarted: map[string]int{},
		bundles:        map[string]int{},
		requests:       map[Endpoint]int{},
		faults:         map[Endpoint][]Fault{},
		agents:         map[agentKey]*agentEntry{},
		agentCreations: map[string][]time.Time{},
	}
	if cfg.RateLimit > 0 {
		s.limiter = newRateLimiter(cfg.RateLimit, time.Now)
	}
	return s
}

// NewServer returns a Server listening on a random loopback port, ready to
// serve. It panics if it cannot listen, like httptest.NewServer.
func NewServer(cfg Config) *Server {
	s := NewHandler(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("mockapi: listen on loopback: %v", err))
	}
	errLog := s.cfg.ErrorLog
	if errLog == nil {
		errLog = log.New(io.Discard, "", 0)
	}
	s.httpSrv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          errLog,
	}
	s.SetURL("http://" + ln.Addr().String())
	go func() { _ = s.httpSrv.Serve(ln) }()
	return s
}

// SetURL sets the base address used in bundle links.
func (s *Server) SetURL(u string) {
	u = strings.TrimRight(u, "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.URL = u
	s.baseURL = u
}

// Handler returns the server as an http.Handler.
func (s *Server) Handler() http.Handler { return s }

// Close stops a server started by NewServer and closes its connections. It is
// a no-op for a NewHandler server and safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		if s.httpSrv != nil {
			_ = s.httpSrv.Close()
		}
	})
}

// SetAPIKey replaces the accepted key, e.g. to simulate a key that expires
// in the middle of a run.
func (s *Server) SetAPIKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiKey = key
	s.APIKey = key
}

// ServeHTTP routes a request: count it, rate-limit it, apply a queued fault
// if any, check auth, then handle it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ep, params, allowed := matchRoute(r.Method, r.URL.Path)
	s.countRequest(ep, params)
	if ep == "" {
		if len(allowed) > 0 {
			w.Header().Set("Allow", strings.Join(allowed, ", "))
			writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed on %s", r.Method, r.URL.Path))
			return
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint: %s %s", r.Method, r.URL.Path))
		return
	}
	if ep != EndpointDownload && s.limiter != nil {
		if ok, wait := s.limiter.take(); !ok {
			s.mu.Lock()
			s.rateLimited++
			s.mu.Unlock()
			secs := retryAfterSeconds(wait)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			writeError(w, http.StatusTooManyRequests, fmt.Sprintf("rate limit exceeded: retry in %d s", secs))
			return
		}
	}
	handle := func(w http.ResponseWriter, r *http.Request) { s.handle(ep, params, w, r) }
	if f, ok := s.nextFault(ep); ok {
		s.applyFault(w, r, f, handle)
		return
	}
	handle(w, r)
}

func (s *Server) handle(ep Endpoint, p routeParams, w http.ResponseWriter, r *http.Request) {
	// Bundle downloads are presigned: the link itself is the credential.
	if ep != EndpointDownload && !s.authorized(r) {
		writeError(w, http.StatusUnauthorized, "authentication failed: missing or invalid API key")
		return
	}
	switch ep {
	case EndpointStartExport:
		s.handleStartExport(w, r)
	case EndpointGetExport:
		s.handleGetExport(w, p["jobId"])
	case EndpointBundle:
		s.handleBundle(w, r, p["jobId"])
	case EndpointDownload:
		s.handleDownload(w, r, p["jobId"])
	case EndpointGetAgentJob:
		s.handleGetAgentJob(w, p["projectId"], p["id"])
	case EndpointCreateAgentJob:
		s.handleCreateAgentJob(w, r, p["projectId"])
	case EndpointAgentMessage:
		s.handleAgentMessage(w, r, p["projectId"], p["id"])
	default:
		writeError(w, http.StatusNotFound, "no such endpoint")
	}
}

func (s *Server) authorized(r *http.Request) bool {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	s.mu.Lock()
	key := s.apiKey
	s.mu.Unlock()
	token = strings.TrimSpace(token)
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(key)) == 1
}

func (s *Server) now() time.Time { return s.cfg.Now() }

// baseURLFor is the address bundle links point at.
func (s *Server) baseURLFor(r *http.Request) string {
	s.mu.Lock()
	u := s.baseURL
	s.mu.Unlock()
	if u != "" {
		return u
	}
	return "http://" + r.Host
}

// Counters.

func (s *Server) countRequest(ep Endpoint, p routeParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total++
	if ep == "" {
		return
	}
	s.requests[ep]++
	if ep == EndpointGetAgentJob {
		s.agentEntry(agentKey{p["projectId"], p["id"]}).reads++
	}
}

// ExportsStarted is the number of export jobs successfully started for domain.
func (s *Server) ExportsStarted(domain string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exportsStarted[domain]
}

// BundlesGenerated is the number of bundle links generated for jobID.
func (s *Server) BundlesGenerated(jobID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bundles[jobID]
}

// Requests is the number of requests routed to e, including those answered
// by a fault, a 401 or a 429.
func (s *Server) Requests(e Endpoint) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[e]
}

// TotalRequests is the number of requests received, routed or not.
func (s *Server) TotalRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// RateLimited is the number of requests the rate limiter answered with 429.
func (s *Server) RateLimited() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rateLimited
}

// Downloads is the number of bundle archives successfully served.
func (s *Server) Downloads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.downloads
}

// Helpers.

type errorBody struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errorBody{Error: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	// No HTML escaping: links must read "&", not "\u0026", like real APIs.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	b := []byte(`{"error":"internal error encoding response"}`)
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
	} else {
		b = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// decodeBody reads a JSON object into v. Unknown fields are ignored, as the
// real API does; an empty or malformed body is a client error.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err := dec.Decode(v); err != nil {
		var maxErr *http.MaxBytesError
		switch {
		case errors.As(err, &maxErr):
			return fmt.Errorf("request body exceeds %d bytes", maxErr.Limit)
		case errors.Is(err, io.EOF):
			return errors.New("request body is required (a JSON object)")
		default:
			return fmt.Errorf("invalid JSON body: %v", err)
		}
	}
	if dec.More() {
		return errors.New("invalid JSON body: unexpected data after the JSON object")
	}
	return nil
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails on supported platforms
	return b
}

func randomHex(nBytes int) string { return hex.EncodeToString(randomBytes(nBytes)) }

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
