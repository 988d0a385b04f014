package mockapi

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// Defaults used when the corresponding Config or ExportBehavior field is zero.
const (
	DefaultAPIKey         = "dsa_mock_0123456789abcdef"
	DefaultExportDuration = 3 * time.Second
	DefaultLinkTTL        = time.Hour
	DefaultPageCount      = sitegen.DefaultPageCount // the pages of the default site's archive
	DefaultFailMessage    = "export failed: rendering error on page guides/intro"
	// DefaultProjectExportStartsPerHour is part E's limit of static export
	// starts, per organization and hour.
	DefaultProjectExportStartsPerHour = 10
	// DefaultProjectDomain is the site of a project without
	// SetProjectDomain.
	DefaultProjectDomain = "docs.example.com"
	// DefaultAgentJobDuration is how long an agent job stays active before
	// Config.AgentJobOutcome, when that is set.
	DefaultAgentJobDuration = 30 * time.Second
)

// maxBodyBytes bounds request bodies; the real API only takes small JSON objects.
const maxBodyBytes = 1 << 20

// Config configures a Server. Zero values mean defaults.
type Config struct {
	// APIKey is the accepted bearer token with both scopes, read and write
	// (shape <prefix>_<secret>).
	APIKey string
	// ReadOnlyAPIKeys are further accepted tokens that have the read scope
	// only: the API answers 403 to any method but GET and HEAD made with
	// them. AddReadOnlyAPIKey adds more later.
	ReadOnlyAPIKeys []string
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
	// Limits adds server models of rate limits and latency (limits.go);
	// SetLimits changes them later.
	Limits Limits
	// OmitExpiresAt makes bundle responses, and the completed jobs of the
	// project routes, omit "expiresAt" so clients must derive the expiry
	// from the presigned query.
	OmitExpiresAt bool
	// ArchiveSize is ExportBehavior.ArchiveSize for the domains that do not
	// set it. Default 0: the site alone.
	ArchiveSize int64
	// PageCount is how many pages an export's site holds
	// (sitegen.Site.PageCount; sitegen.FileCount tells its files), for the
	// domains whose ExportBehavior sets none and the starts that name no
	// paths. Default 0: the paths asked for, else DefaultPageCount.
	PageCount int
	// Projects are the projects the API knows: a request on a route of any
	// other project (an agent job's, a deployment's, a preview's, a project
	// export's) answers 404 with ProjectNotFoundMessage, as the API answers
	// for a project that does not exist or is not in the key's
	// organization. Empty: every well-formed project exists.
	Projects []string
	// StablePages makes an export's pages depend on the site's content
	// alone (domain, version, pages and their revisions, see EditPage)
	// rather than on the export: by default the job's id is stamped on
	// every page and RSC payload, as a build stamp is, so two exports
	// differ in every page. With it, two exports of an unchanged site have
	// the same files, byte for byte (ArchiveSize's padding included), and
	// after EditPage they differ in the edited page's HTML file alone: the
	// mock's payloads, sitemap and search index carry no page text, and
	// assets never change.
	StablePages bool
	// AgentJobOutcome is what every agent job created or messaged through
	// the API becomes AgentJobDuration after that call, in projects without
	// a script of their own (SetAgentJobScript): AgentCompleted (with a pull
	// request link), AgentFailed, or AgentActive. Empty or AgentActive: jobs
	// stay active, as the real API's do until its agent finishes. Any other
	// value panics.
	AgentJobOutcome string
	// AgentJobDuration is how long a job stays active before
	// AgentJobOutcome. Default DefaultAgentJobDuration.
	AgentJobDuration time.Duration
	// ConflictOnRunningExport makes a start for a domain that still has an
	// unfinished job answer 409, as a later API revision does.
	ConflictOnRunningExport bool
	// DeploymentDuration is the time a deployment (update or preview) spends
	// in_progress before it ends. Default DefaultDeploymentDuration.
	DeploymentDuration time.Duration
	// DeploymentQueueDuration is the time a deployment spends queued before
	// it is in_progress. Default 0: queued only at the instant it starts.
	DeploymentQueueDuration time.Duration
	// DeploymentOutcome is how deployments end in projects whose
	// DeploymentBehavior does not make them fail: DeploymentSuccess (the
	// default when empty) or DeploymentFailure. Any other value panics.
	DeploymentOutcome string
	// APIRevision is the revision of static export served: RevisionDomain
	// (parts A/B, the default when empty), RevisionProject (part E) or
	// RevisionBoth. SetAPIRevision changes it later. Any other value panics.
	APIRevision APIRevision
	// SeparateRevisions makes each revision's routes know only the jobs
	// started through them, as a move between revisions that does not
	// carry the old jobs over: part E's read answers
	// ProjectJobNotFoundMessage for a job started through part B's route,
	// and part B's read and bundle call answer their 404 for a job of
	// part E's. Without it, a job reads through either revision's routes,
	// as a move that keeps them.
	SeparateRevisions bool
	// ProjectExportStartsPerHour is the most project export starts
	// (part E) accepted in any sliding hour of Now, over the whole server
	// as the API counts them over an organization; beyond it the start
	// answers 429. Default (0 or less) DefaultProjectExportStartsPerHour.
	ProjectExportStartsPerHour int
	// NoPreviewEntitlement plays an organisation whose plan lacks preview
	// deployments: the preview call answers 403 with
	// PreviewNotAvailableMessage.
	NoPreviewEntitlement bool
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
	limiter *rate.Limiter
	limits  limitState
	muxes   map[APIRevision]*http.ServeMux // by the revision served
	httpSrv *httptest.Server

	mu             sync.Mutex // guards URL, APIKey and readOnlyKeys too
	readOnlyKeys   []string
	jobs           map[string]*exportJob
	jobSeq         int64
	behaviors      map[string]ExportBehavior
	pageRevisions  map[string]map[string]int // by domain, then page (EditPage)
	counts         map[any]int               // keyed by the counter types below
	rateLimited    int
	faults         map[Endpoint][]Fault
	agents         map[agentKey]*agentEntry
	agentProjects  map[string]*agentProject
	agentPRs       int // pull requests opened by AgentJobOutcome, to number them
	deployments    map[string]*deployment
	deployProjects map[string]*deployProject
	requestLog     []LoggedRequest
	revision       APIRevision       // of static export, served by ServeHTTP
	projectDomains map[string]string // SetProjectDomain
	lostProjects   map[string]bool   // ForgetProject
	projectStarts  []time.Time       // project export starts accepted in the last hour
	linkExtra      string            // SetLinkExtra
}

// The keys of Server.counts, one type for each thing counted. Endpoint keys
// count requests, and agentKey keys the GET requests for an agent job.
type (
	startsFor    string // export jobs started, by domain
	bundlesFor   string // bundle links generated, by job
	downloadsFor string // archive downloads, by job
)

// Keys that count over all requests and all jobs.
const (
	allRequests  Endpoint     = ""
	allDownloads downloadsFor = ""
)

// NewHandler returns a Server that does not listen. Serve it with your own
// listener and call SetURL so bundle links point at it; until then links are
// built from the request's Host header.
func NewHandler(cfg Config) *Server {
	cfg.APIKey = cmp.Or(cfg.APIKey, DefaultAPIKey)
	cfg.ExportDuration = cmp.Or(max(cfg.ExportDuration, 0), DefaultExportDuration)
	cfg.LinkTTL = cmp.Or(max(cfg.LinkTTL, 0), DefaultLinkTTL)
	cfg.AgentJobDuration = cmp.Or(max(cfg.AgentJobDuration, 0), DefaultAgentJobDuration)
	cfg.DeploymentDuration = cmp.Or(max(cfg.DeploymentDuration, 0), DefaultDeploymentDuration)
	cfg.DeploymentQueueDuration = max(cfg.DeploymentQueueDuration, 0)
	if !ValidDeploymentOutcome(cfg.DeploymentOutcome) {
		panic(fmt.Sprintf("mockapi: DeploymentOutcome %q is none of %s", cfg.DeploymentOutcome, strings.Join(DeploymentOutcomes, ", ")))
	}
	if !ValidAgentJobOutcome(cfg.AgentJobOutcome) {
		panic(fmt.Sprintf("mockapi: AgentJobOutcome %q is none of %s", cfg.AgentJobOutcome, strings.Join(AgentJobOutcomes, ", ")))
	}
	cfg.APIRevision = resolvedRevision(cfg.APIRevision)
	cfg.ProjectExportStartsPerHour = cmp.Or(max(cfg.ProjectExportStartsPerHour, 0), DefaultProjectExportStartsPerHour)
	cfg.PageCount = max(cfg.PageCount, 0)
	cfg.Projects = slices.Clone(cfg.Projects)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	s := &Server{
		APIKey:         cfg.APIKey,
		readOnlyKeys:   slices.Clone(cfg.ReadOnlyAPIKeys),
		cfg:            cfg,
		secret:         randomBytes(32),
		jobs:           map[string]*exportJob{},
		behaviors:      map[string]ExportBehavior{},
		pageRevisions:  map[string]map[string]int{},
		counts:         map[any]int{},
		faults:         map[Endpoint][]Fault{},
		agents:         map[agentKey]*agentEntry{},
		agentProjects:  map[string]*agentProject{},
		deployments:    map[string]*deployment{},
		deployProjects: map[string]*deployProject{},
		revision:       cfg.APIRevision,
		projectDomains: map[string]string{},
		lostProjects:   map[string]bool{},
	}
	if cfg.RateLimit > 0 {
		s.limiter = rate.NewLimiter(rate.Limit(cfg.RateLimit), max(1, int(cfg.RateLimit)))
	}
	s.limits.limits = cfg.Limits
	s.muxes = s.routes()
	return s
}

// NewServer returns a Server listening on a random loopback port, ready to
// serve. It panics if it cannot listen, like httptest.NewServer.
func NewServer(cfg Config) *Server {
	s := NewHandler(cfg)
	s.httpSrv = httptest.NewUnstartedServer(s)
	s.httpSrv.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.httpSrv.Start()
	s.SetURL(s.httpSrv.URL)
	return s
}

// SetURL sets the base address used in bundle links.
func (s *Server) SetURL(u string) {
	u = strings.TrimRight(u, "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.URL = u
}

// Close stops a server started by NewServer and drops its connections, so
// requests held by a fault's delay end at once. It is a no-op for a
// NewHandler server and safe to call more than once.
func (s *Server) Close() {
	if s.httpSrv != nil {
		s.httpSrv.CloseClientConnections()
		s.httpSrv.Close()
	}
}

// SetAPIKey replaces the accepted key, e.g. to simulate a key that expires
// in the middle of a run.
func (s *Server) SetAPIKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.APIKey = key
}

// AddReadOnlyAPIKey makes key an accepted token with the read scope only,
// e.g. to play a key generated for monitoring. A key equal to the full key
// has no effect on it: the full key keeps both scopes.
func (s *Server) AddReadOnlyAPIKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readOnlyKeys = append(s.readOnlyKeys, key)
}

// keyScope is what an accepted API key may do.
type keyScope int

// The scopes of the contract: GET needs read, every other method write.
const (
	scopeNone      keyScope = iota // not authenticated
	scopeRead                      // a read-only key
	scopeReadWrite                 // the full key
)

// scopeOf authenticates the request's bearer token.
func (s *Server) scopeOf(r *http.Request) keyScope {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return scopeNone
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return scopeNone
	}
	s.mu.Lock()
	key, readOnly := s.APIKey, s.readOnlyKeys
	s.mu.Unlock()
	if subtle.ConstantTimeCompare([]byte(token), []byte(key)) == 1 {
		return scopeReadWrite
	}
	for _, k := range readOnly {
		if subtle.ConstantTimeCompare([]byte(token), []byte(k)) == 1 {
			return scopeRead
		}
	}
	return scopeNone
}

// knowsProject reports whether the API knows projectID (Config.Projects).
func (s *Server) knowsProject(projectID string) bool {
	return len(s.cfg.Projects) == 0 || slices.Contains(s.cfg.Projects, projectID)
}

// needsWrite reports whether the method needs the write scope.
func needsWrite(method string) bool {
	return method != http.MethodGet && method != http.MethodHead
}

func (s *Server) now() time.Time { return s.cfg.Now() }

// baseURLFor is the address bundle links point at.
func (s *Server) baseURLFor(r *http.Request) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.URL != "" {
		return s.URL
	}
	return "http://" + r.Host
}

// locked reads a counter under the lock.
func locked[T any](s *Server, read func() T) T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return read()
}

// count adds one to each of keys.
func (s *Server) count(keys ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		s.counts[k]++
	}
}

func (s *Server) counted(key any) int { return locked(s, func() int { return s.counts[key] }) }

// ExportsStarted is the number of export jobs successfully started for domain.
func (s *Server) ExportsStarted(domain string) int { return s.counted(startsFor(domain)) }

// BundlesGenerated is the number of bundle links generated for jobID: by
// the bundle call, and by each read of the completed job through a project
// route, which carries a fresh link.
func (s *Server) BundlesGenerated(jobID string) int { return s.counted(bundlesFor(jobID)) }

// Requests is the number of requests routed to e, including those answered
// by a fault, a 401 or a 429.
func (s *Server) Requests(e Endpoint) int { return s.counted(e) }

// TotalRequests is the number of requests received, routed or not.
func (s *Server) TotalRequests() int { return s.counted(allRequests) }

// RateLimited is the number of requests the rate limiter answered with 429.
func (s *Server) RateLimited() int { return locked(s, func() int { return s.rateLimited }) }

// Downloads is the number of archive downloads served, over all jobs.
func (s *Server) Downloads() int { return s.counted(allDownloads) }

// ArchiveDownloads is the number of archive downloads served for jobID: a
// link renewal alone does not count.
func (s *Server) ArchiveDownloads(jobID string) int { return s.counted(downloadsFor(jobID)) }

// writeBody answers with body.
func writeBody(w http.ResponseWriter, status int, contentType string, body []byte) {
	writeStream(w, status, contentType, int64(len(body)), func(w io.Writer) error {
		_, err := w.Write(body)
		return err
	})
}

// writeStream answers with the size bytes that write writes. Headers already
// set (by a fault) win: a Content-Length larger than the body makes a
// truncated answer.
func writeStream(w http.ResponseWriter, status int, contentType string, size int64, write func(io.Writer) error) {
	h := w.Header()
	if h.Get("Content-Type") == "" && contentType != "" {
		h.Set("Content-Type", contentType)
	}
	if h.Get("Content-Length") == "" {
		h.Set("Content-Length", strconv.FormatInt(size, 10))
	}
	w.WriteHeader(status)
	_ = write(w) // a failed write is the client going away
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, struct {
		Error string `json:"error"`
	}{msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	// No HTML escaping: links must read "&", not "\u0026", like real APIs.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		writeBody(w, http.StatusInternalServerError, "application/json", []byte(`{"error":"internal error encoding response"}`))
		return
	}
	writeBody(w, status, "application/json", bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// decodeBody reads a JSON object into v. Unknown fields are ignored, as the
// real API does; an empty or malformed body is a client error.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	var maxErr *http.MaxBytesError
	switch err := dec.Decode(v); {
	case errors.As(err, &maxErr):
		return fmt.Errorf("request body exceeds %d bytes", maxErr.Limit)
	case errors.Is(err, io.EOF):
		return errors.New("request body is required (a JSON object)")
	case err != nil:
		return fmt.Errorf("invalid JSON body: %v", err)
	case dec.More():
		return errors.New("invalid JSON body: unexpected data after the JSON object")
	}
	return nil
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails on supported platforms
	return b
}

// randomHex is nBytes of random hex digits: the shape of the API's ids
// (newID, newObjectID), which tests and the examples of the API match.
// Where the shape does not matter, rand.Text serves.
func randomHex(nBytes int) string { return hex.EncodeToString(randomBytes(nBytes)) }

// newID returns prefix and random hex digits, an id that taken refuses.
func newID(prefix string, taken func(id string) bool) string {
	for {
		if id := prefix + randomHex(8); !taken(id) {
			return id
		}
	}
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
