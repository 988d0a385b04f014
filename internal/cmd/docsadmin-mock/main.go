// Command docsadmin-mock runs the in-memory fake of the documentation
// administration API on a loopback address, for demos and manual testing.
//
//	eval "$(go run ./internal/cmd/docsadmin-mock)"
//
// It prints DOCSADMIN_BASE_URL and DOCSADMIN_API_KEY on stdout, logs each
// request (method, path, status) on stderr and stops on SIGINT/SIGTERM.
// -site-files serves sites of at least that many files, -project names
// the projects it knows (the examples' proj_0123456789 by default; others
// answer 404; -any-project knows all), links live 24h by default (-link-ttl),
// so that the examples' renew_before = "12h" does not renew on every plan,
// -read-only-key adds a key whose writes answer 403,
// -agent-job-outcome with -agent-job-duration lets agent jobs finish,
// -deployment-outcome and -deployment-duration script deployments,
// -no-preview-entitlement makes previews answer 403, -stable-pages
// leaves the export's stamp off the pages, so that two exports of the site
// serve the same files, and -api-revision chooses the static export routes
// served: domain (a start with a domain, a bundle call), project (the
// project-scoped revision: a start without a body, the link on the
// completed job) or both. The revision can also be switched while the mock
// runs, as when an account moves to the other revision between two
// applies: a POST of its name to /mock/api-revision with the API key (a
// GET reads it). Every job is kept, and reads through either revision's
// routes, unless -separate-revisions: then each revision knows only the
// jobs started through it, as a move that does not carry old jobs over:
//
//	go run ./internal/cmd/docsadmin-mock -read-only-key dsa_mock_readonly -agent-job-outcome completed -agent-job-duration 30s
//	go run ./internal/cmd/docsadmin-mock -deployment-outcome failure -no-preview-entitlement
//	go run ./internal/cmd/docsadmin-mock -api-revision project
//	go run ./internal/cmd/docsadmin-mock -separate-revisions
//	curl -H "Authorization: Bearer $DOCSADMIN_API_KEY" -d project "$DOCSADMIN_BASE_URL/mock/api-revision"
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		stop()
		fmt.Fprintln(os.Stderr, "docsadmin-mock:", err)
		os.Exit(1)
	}
}

// run serves until ctx is cancelled.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("docsadmin-mock", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address (loopback only)")
	var cfg mockapi.Config
	fs.StringVar(&cfg.APIKey, "api-key", mockapi.DefaultAPIKey, "accepted API key")
	fs.DurationVar(&cfg.ExportDuration, "export-duration", mockapi.DefaultExportDuration, "time an export job runs before it completes")
	fs.DurationVar(&cfg.QueueDuration, "queue-duration", 0, "time an export job stays queued before it runs")
	fs.DurationVar(&cfg.LinkTTL, "link-ttl", defaultLinkTTL,
		"lifetime of bundle links (the examples' renew_before = \"12h\" renews a link of the default lifetime 12h after it was issued, not on every plan)")
	fs.Float64Var(&cfg.RateLimit, "rate-limit", 0, "max API requests per second (0 = unlimited)")
	fs.BoolVar(&cfg.OmitExpiresAt, "omit-expires-at", false, "leave expiresAt out of bundle answers")
	fs.Int64Var(&cfg.ArchiveSize, "archive-size", 0, "pad every export's site to this many bytes of files with poorly compressible content (0 = the site alone)")
	siteFiles := fs.Int("site-files", 0, fmt.Sprintf("serve every export that names no paths as a site of at least this many files (pages with their payloads, "+
		"the sitemap, the search index and the assets; at least %d): the smallest such site, whose file count the start-up log gives (0 = the default site of %d files)",
		sitegen.FileCount(1), sitegen.FileCount(sitegen.DefaultPageCount)))
	var projects []string
	fs.Func("project", fmt.Sprintf("a project the API knows (repeatable; default %s, the examples' project): a request on a route of any other "+
		"project answers 404, as the API answers for a project that does not exist or is not in the key's organization", strings.Join(defaultProjects, ", ")),
		func(p string) error {
			if !projectID.MatchString(p) {
				return errors.New("must be 1 to 64 letters, digits, underscores or hyphens")
			}
			projects = append(projects, p)
			return nil
		})
	anyProject := fs.Bool("any-project", false, "know every project: no 404 for a project id (-project is then not allowed)")
	fs.BoolVar(&cfg.StablePages, "stable-pages", false, "render pages from the site's content alone, not stamped with their export: two exports of the site serve the same files")
	fs.Func("read-only-key", "also accept this API key with the read scope only: writes made with it answer 403 (repeatable)", func(k string) error {
		if strings.TrimSpace(k) == "" || strings.ContainsAny(k, " \t\r\n") {
			return errors.New("must be a non-empty key without whitespace")
		}
		cfg.ReadOnlyAPIKeys = append(cfg.ReadOnlyAPIKeys, k)
		return nil
	})
	fs.StringVar(&cfg.AgentJobOutcome, "agent-job-outcome", mockapi.AgentActive,
		"what agent jobs become -agent-job-duration after each create or message call: "+strings.Join(mockapi.AgentJobOutcomes, ", ")+" (active: they never finish)")
	fs.DurationVar(&cfg.AgentJobDuration, "agent-job-duration", mockapi.DefaultAgentJobDuration, "time an agent job stays active before -agent-job-outcome")
	fs.DurationVar(&cfg.DeploymentDuration, "deployment-duration", mockapi.DefaultDeploymentDuration, "time a deployment or preview is in_progress before it ends")
	fs.DurationVar(&cfg.DeploymentQueueDuration, "deployment-queue-duration", 0, "time a deployment or preview stays queued before it is in_progress")
	fs.StringVar(&cfg.DeploymentOutcome, "deployment-outcome", mockapi.DeploymentSuccess,
		"how deployments and previews end: "+strings.Join(mockapi.DeploymentOutcomes, ", "))
	fs.BoolVar(&cfg.NoPreviewEntitlement, "no-preview-entitlement", false, "play an organisation without preview deployments: the preview call answers 403")
	revisions := make([]string, len(mockapi.APIRevisions))
	for i, r := range mockapi.APIRevisions {
		revisions[i] = string(r)
	}
	fs.BoolVar(&cfg.SeparateRevisions, "separate-revisions", false,
		"each static export revision's routes know only the jobs started through them, as a move between revisions that does not carry old jobs over (default: a job reads through either)")
	revision := fs.String("api-revision", string(mockapi.RevisionDomain),
		"static export routes served: "+strings.Join(revisions, ", ")+
			" (domain: a start with a domain and a bundle call; project: a start without a body at /v1/static-export/{projectId}/jobs, the link on the completed job; both: the two at once)")
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return nil
	case err != nil:
		return err
	case fs.NArg() > 0:
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	case cfg.RateLimit < 0 || cfg.ArchiveSize < 0:
		return errors.New("-rate-limit and -archive-size must not be negative")
	case *siteFiles != 0 && *siteFiles < sitegen.FileCount(1):
		return fmt.Errorf("-site-files %d: a site holds at least %d files (one page and its payload, the sitemap, robots.txt, the search index and the assets)", *siteFiles, sitegen.FileCount(1))
	case *anyProject && len(projects) > 0:
		return errors.New("-any-project and -project exclude each other: -any-project knows every project")
	case !mockapi.ValidAgentJobOutcome(cfg.AgentJobOutcome):
		return fmt.Errorf("invalid -agent-job-outcome %q: want one of %s", cfg.AgentJobOutcome, strings.Join(mockapi.AgentJobOutcomes, ", "))
	case cfg.AgentJobDuration <= 0:
		return errors.New("-agent-job-duration must be positive")
	case !mockapi.ValidDeploymentOutcome(cfg.DeploymentOutcome):
		return fmt.Errorf("invalid -deployment-outcome %q: want one of %s", cfg.DeploymentOutcome, strings.Join(mockapi.DeploymentOutcomes, ", "))
	case cfg.DeploymentDuration <= 0 || cfg.DeploymentQueueDuration < 0:
		return errors.New("-deployment-duration must be positive and -deployment-queue-duration not negative")
	case *revision == "" || !mockapi.ValidAPIRevision(mockapi.APIRevision(*revision)):
		return fmt.Errorf("invalid -api-revision %q: want one of %s", *revision, strings.Join(revisions, ", "))
	}
	cfg.APIRevision = mockapi.APIRevision(*revision)
	cfg.PageCount = pagesForFiles(*siteFiles)
	switch {
	case *anyProject:
	case len(projects) > 0:
		cfg.Projects = projects
	default:
		cfg.Projects = defaultProjects
	}
	for _, k := range cfg.ReadOnlyAPIKeys {
		if k == cfg.APIKey {
			return errors.New("-read-only-key must differ from -api-key, which has the write scope")
		}
	}
	if err := checkLoopback(*addr); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := mockapi.NewHandler(cfg)
	logger := log.New(stderr, "", log.LstdFlags)
	ts := httptest.NewUnstartedServer(logRequests(logger, revisionControl(srv, logger, revisions, srv)))
	_ = ts.Listener.Close()
	ts.Listener = ln
	ts.Config.ErrorLog = logger
	ts.Start()
	srv.SetURL(ts.URL)
	fmt.Fprintf(stdout, "DOCSADMIN_BASE_URL=%s\nDOCSADMIN_API_KEY=%s\n", srv.URL, srv.APIKey)
	// Settings go to stderr without the keys: stdout is meant for eval.
	jobs := "agent jobs stay active"
	if cfg.AgentJobOutcome != "" && cfg.AgentJobOutcome != mockapi.AgentActive {
		jobs = fmt.Sprintf("agent jobs end %s after %s", cfg.AgentJobOutcome, cfg.AgentJobDuration)
	}
	previews := "previews enabled"
	if cfg.NoPreviewEntitlement {
		previews = "previews answer 403 (no entitlement)"
	}
	revisionJobs := ""
	if cfg.SeparateRevisions {
		revisionJobs = ", each revision knowing only its own jobs"
	}
	known := "every project"
	if len(cfg.Projects) > 0 {
		known = "projects " + strings.Join(cfg.Projects, ", ") + " (others answer 404)"
	}
	pages := cmp.Or(cfg.PageCount, sitegen.DefaultPageCount)
	logger.Printf("%d read-only key(s); static export revision %s%s; sites of %d files (%d pages); links live %s; %s; %s; deployments end %s after %s; %s",
		len(cfg.ReadOnlyAPIKeys), cfg.APIRevision, revisionJobs, sitegen.FileCount(pages), pages, cfg.LinkTTL, known, jobs,
		cmp.Or(cfg.DeploymentOutcome, mockapi.DeploymentSuccess), cfg.DeploymentQueueDuration+cfg.DeploymentDuration, previews)

	<-ctx.Done()
	logger.Print("shutting down")
	ts.CloseClientConnections()
	ts.Close() // waits for the requests in flight, so that all are logged
	return nil
}

// defaultLinkTTL is the lifetime of the links the command's mock issues:
// a day, as a real API's links commonly live, so that the examples'
// renew_before = "12h" renews a link halfway through its life rather than
// on every plan, as it would with mockapi.DefaultLinkTTL (1h).
const defaultLinkTTL = 24 * time.Hour

// defaultProjects are the projects the command's mock knows without
// -project: the one the examples and the README name.
var defaultProjects = []string{"proj_0123456789"}

// projectID is the shape of a project id the mock's routes accept.
var projectID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// pagesForFiles is the page count of the smallest site of at least files
// files (0: the default site).
func pagesForFiles(files int) int {
	if files <= 0 {
		return 0
	}
	return max(1, (files-sitegen.FileCount(0)+1)/2)
}

// checkLoopback refuses addresses reachable from other hosts: the fake
// accepts a well-known key and must never be exposed.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("invalid -addr %q: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("refusing to listen on %q: -addr must be a loopback address such as 127.0.0.1:0", addr)
	}
	return nil
}

// logRequests logs method, path and status. The query string is left out on
// purpose: bundle links carry their signature there.
func logRequests(logger *log.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			status := "reset"
			if sw.status != 0 {
				status = fmt.Sprint(sw.status)
			}
			logger.Printf("%s %s %s %s", r.Method, r.URL.Path, status, time.Since(start).Round(time.Microsecond))
		}()
		next.ServeHTTP(sw, r)
	})
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (fault injection
// hijacks it to simulate resets).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// revisionControlPath is the mock's own route, beside the API's, that reads
// (GET) and switches (POST, the revision's name as the body) the revision of
// static export served.
const revisionControlPath = "/mock/api-revision"

// revisionControl serves revisionControlPath with the mock's write key and
// passes every other request to next.
func revisionControl(srv *mockapi.Server, logger *log.Logger, revisions []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != revisionControlPath {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if r.Header.Get("Authorization") != "Bearer "+srv.APIKey {
			http.Error(w, "the mock's control routes need its API key with the write scope (Authorization: Bearer <key>)", http.StatusUnauthorized)
			return
		}
		switch r.Method {
		case http.MethodGet:
		case http.MethodPost:
			body, _ := io.ReadAll(io.LimitReader(r.Body, 64))
			revision := mockapi.APIRevision(strings.TrimSpace(string(body)))
			if revision == "" || !mockapi.ValidAPIRevision(revision) {
				http.Error(w, fmt.Sprintf("%q is not a revision: want one of %s", body, strings.Join(revisions, ", ")), http.StatusBadRequest)
				return
			}
			srv.SetAPIRevision(revision)
			logger.Printf("static export revision switched to %s; jobs and links kept", revision)
		default:
			w.Header().Set("Allow", "GET, POST")
			http.Error(w, "GET reads the revision, POST switches it", http.StatusMethodNotAllowed)
			return
		}
		fmt.Fprintln(w, srv.APIRevision())
	})
}
