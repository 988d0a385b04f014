package mockapi

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// Export job statuses.
const (
	StatusQueued    = "queued"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// ProgressShape is how progress evolves while a job runs. Its name is its
// value; empty means Linear.
type ProgressShape string

const (
	// Linear progress grows at a constant rate.
	Linear ProgressShape = "linear"
	// Noisy progress follows the linear trend within ±3 percentage points
	// of random noise, never goes backwards, and ends on time.
	Noisy ProgressShape = "noisy"
	// Stalling progress climbs to 60% in the first quarter, stays flat for
	// the rest of the run, then the job finishes at once.
	Stalling ProgressShape = "stalling"
	// Erratic progress cannot be extrapolated: sixteen stretches of random
	// slope, a fifth of them flat, so the job speeds up and slows down
	// several times over. The API is not known to report such progress; a
	// poller must survive it.
	Erratic ProgressShape = "erratic"
)

// enumName is names[v], or Type(v) for a value without a name.
func enumName[T ~int](names []string, v T) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", reflect.TypeFor[T]().Name(), int(v))
}

// ExportBehavior scripts the export jobs of one domain.
type ExportBehavior struct {
	// Duration is the running time. 0 means Config.ExportDuration (or
	// DefaultExportDuration when StateAt is called directly).
	Duration time.Duration
	// Queue is the time spent queued before running. 0 means
	// Config.QueueDuration (or none when StateAt is called directly).
	Queue time.Duration
	// Fail makes the job end "failed" instead of "completed".
	Fail bool
	// FailMessage is the failed job's error; default DefaultFailMessage.
	FailMessage string
	// Progress is the shape of progress while running.
	Progress ProgressShape
	// OmitProgress drops progress and pageCount from job answers.
	OmitProgress bool
	// PageCount is the total number of pages. 0 means the number of
	// requested paths if any, else DefaultPageCount.
	PageCount int
	// Archive is what the job's download serves, its site by default.
	// SetArchive changes it for a job already started.
	Archive ArchiveKind
	// ArchiveSize pads the site with a file of poorly compressible bytes so
	// that its files hold this many bytes in all (0: the site alone). Such
	// an archive is generated as it is downloaded and never held in memory
	// (sitegen.Archive).
	ArchiveSize int64
}

// JobState is the observable state of an export job at some instant.
type JobState struct {
	Status      string
	Progress    float64 // percent, 0-100, one decimal
	PageCount   int
	HasProgress bool   // false: answers carry no progress/pageCount
	Error       string // set when Status is failed
}

// resolved fills in the defaults; a negative duration or count means the
// default too.
func (b ExportBehavior) resolved() ExportBehavior {
	b.Duration = cmp.Or(max(b.Duration, 0), DefaultExportDuration)
	b.Queue = max(b.Queue, 0)
	b.PageCount = cmp.Or(max(b.PageCount, 0), DefaultPageCount)
	b.FailMessage = cmp.Or(b.FailMessage, DefaultFailMessage)
	b.Progress = cmp.Or(b.Progress, Linear)
	return b
}

// StateAt is the state of a job with this behaviour, elapsed after it was
// created. It is the exact model the server uses (with seed = the job's
// sequence number, starting at 1), exported so polling strategies can be
// measured under a simulated clock without HTTP.
//
// The job is queued until elapsed > 0 and elapsed >= Queue, runs until
// Queue+Duration, then is completed (progress 100, full page count) or
// failed (progress frozen where it stopped).
func (b ExportBehavior) StateAt(elapsed time.Duration, seed int64) JobState {
	b = b.resolved()
	st := JobState{HasProgress: !b.OmitProgress}
	end := b.Queue + b.Duration
	switch {
	case elapsed <= 0 || elapsed < b.Queue:
		st.Status = StatusQueued
	case elapsed >= end:
		if b.Fail {
			st.Status = StatusFailed
			st.Error = b.FailMessage
			st.Progress = runningProgress(b.curve(1, seed))
			st.PageCount = pagesAt(st.Progress, b.PageCount)
		} else {
			st.Status = StatusCompleted
			st.Progress = 100
			st.PageCount = b.PageCount
		}
	default:
		f := float64(elapsed-b.Queue) / float64(b.Duration)
		st.Status = StatusRunning
		st.Progress = runningProgress(b.curve(f, seed))
		st.PageCount = pagesAt(st.Progress, b.PageCount)
	}
	if !st.HasProgress {
		st.Progress, st.PageCount = 0, 0
	}
	return st
}

// runningProgress rounds to one decimal and keeps an unfinished job below
// 100 so that "100" always means done.
func runningProgress(p float64) float64 {
	return math.Min(math.Round(p*10)/10, 99.9)
}

func pagesAt(progress float64, total int) int {
	return min(int(progress/100*float64(total)), total)
}

// Noisy progress is a job that works at a steady pace but reports it with
// bounded random error, as a job does that judges its progress by an
// estimate of the work still to do: reading = done / (done + estimate of the
// rest), where the estimate is off by a fraction that drifts at random within
// ±noisyError (drawn at noisyKnots+1 evenly spaced knots, joined linearly,
// deterministic from the seed). The reading strays at most 3 points from the
// linear trend (the most at mid-run), is exact at the start and at the end, so
// the job completes on time, and never goes backwards: with the error's slope
// at most 2·noisyError·noisyKnots, the reading's derivative stays positive.
const (
	noisyKnots = 12
	noisyError = 0.11
)

// curve maps the running fraction f (0..1) to percent progress.
func (b ExportBehavior) curve(f float64, seed int64) float64 {
	f = math.Max(0, math.Min(1, f))
	switch b.Progress {
	case Noisy:
		return noisyCurve(f, seed)
	case Stalling:
		if f < 0.25 {
			return 240 * f
		}
		return 60
	case Erratic:
		return erraticCurve(f, seed)
	default:
		return 100 * f
	}
}

// noisyCurve is Noisy's progress at fraction f of the run.
func noisyCurve(f float64, seed int64) float64 {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	var knots [noisyKnots + 1]float64
	for i := range knots {
		knots[i] = noisyError * (2*rng.Float64() - 1)
	}
	x := f * noisyKnots
	i := min(int(x), noisyKnots-1)
	e := knots[i] + (knots[i+1]-knots[i])*(x-float64(i))
	return 100 * f / (f + (1-f)*(1+e))
}

// erraticCurve is Erratic's progress at fraction f of the run.
func erraticCurve(f float64, seed int64) float64 {
	const segments = 16
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	var w [segments]float64
	var total float64
	for i := range w {
		if rng.Float64() < 0.2 {
			continue
		}
		w[i] = 0.2 + rng.Float64()*rng.Float64()*3
		total += w[i]
	}
	if total == 0 {
		return 100 * f
	}
	pos := f * segments
	i := min(int(pos), segments-1)
	var done float64
	for _, x := range w[:i] {
		done += x
	}
	done += (pos - float64(i)) * w[i]
	return 100 * done / total
}

// exportJob is one static export. All fields but forcedAt and archive are
// immutable after creation; those two are guarded by Server.mu.
type exportJob struct {
	id       string
	seq      int64
	domain   string
	project  string // set for a job started through part E's route
	version  string
	paths    []string
	behavior ExportBehavior // resolved at creation
	created  time.Time
	forcedAt *time.Time
	site     func() []sitegen.File // rendered once, on first use
	padding  uint64                // the seed of the padding's bytes
	archive  *jobArchive
}

// ExportJobSnapshot is the state of an export job as the API would report it.
type ExportJobSnapshot struct {
	JobState
	ID, Domain           string
	Project              string // the project of a job started by part E's route; empty otherwise
	Version              string // as requested; empty means latest
	Paths                []string
	CreatedAt, UpdatedAt time.Time
	archive              *jobArchive // what the job's download serves
}

func (j *exportJob) snapshot(now time.Time) ExportJobSnapshot {
	b, elapsed, updated := j.behavior, now.Sub(j.created), now
	end := b.Queue + b.Duration
	if j.forcedAt != nil { // completed at forcedAt, whatever the behaviour
		b.Fail = false
		elapsed, updated = end, *j.forcedAt
	}
	st := b.StateAt(elapsed, j.seq)
	switch {
	case j.forcedAt != nil:
	case st.Status == StatusQueued:
		updated = j.created
	case st.Status != StatusRunning:
		updated = j.created.Add(end)
	}
	return ExportJobSnapshot{JobState: st, ID: j.id, Domain: j.domain, Project: j.project, Version: j.version,
		Paths: slices.Clone(j.paths), CreatedAt: j.created, UpdatedAt: updated, archive: j.archive}
}

// jobJSON is the StaticExportJob model. domain and version are extra fields
// the contract does not list; clients must ignore them.
type jobJSON struct {
	JobID     string   `json:"jobId"`
	Status    string   `json:"status"`
	Progress  *float64 `json:"progress,omitempty"`
	PageCount *int     `json:"pageCount,omitempty"`
	CreatedAt string   `json:"createdAt"`
	UpdatedAt string   `json:"updatedAt"`
	Error     *string  `json:"error"`
	Domain    string   `json:"domain"`
	Version   string   `json:"version,omitempty"`
}

func (snap ExportJobSnapshot) toJSON() jobJSON {
	out := jobJSON{JobID: snap.ID, Status: snap.Status, CreatedAt: formatTime(snap.CreatedAt),
		UpdatedAt: formatTime(snap.UpdatedAt), Domain: snap.Domain, Version: snap.Version}
	if snap.HasProgress { // snap is a copy: its fields can be pointed at
		out.Progress, out.PageCount = &snap.Progress, &snap.PageCount
	}
	if snap.Error != "" {
		out.Error = &snap.Error
	}
	return out
}

// SetExportBehavior scripts the export jobs started for domain from now on.
func (s *Server) SetExportBehavior(domain string, b ExportBehavior) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.behaviors[domain] = b
}

// SetArchive makes the downloads of a started job serve an archive of kind
// from now on, e.g. a good one after a bad one, and reports whether the job
// exists.
func (s *Server) SetArchive(jobID string, kind ArchiveKind) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j, ok := s.jobs[jobID]
	if ok {
		j.archive = archiveFor(kind, j.site, j.behavior.ArchiveSize, j.padding)
	}
	return ok
}

// DeleteExportJob forgets a job, as when its retention expires: GET, bundle
// and download then answer 404.
func (s *Server) DeleteExportJob(jobID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.jobs, jobID)
}

// ExportJob returns the current state of a job.
func (s *Server) ExportJob(jobID string) (ExportJobSnapshot, bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.jobs[jobID]; ok {
		return j.snapshot(now), true
	}
	return ExportJobSnapshot{}, false
}

// domainJob is ExportJob as part B's routes know it: without a job of
// part E's under Config.SeparateRevisions.
func (s *Server) domainJob(jobID string) (ExportJobSnapshot, bool) {
	snap, ok := s.ExportJob(jobID)
	return snap, ok && (snap.Project == "" || !s.cfg.SeparateRevisions)
}

// ExportJobIDs lists the jobs started for domain, oldest first.
func (s *Server) ExportJobIDs(domain string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, j := range slices.SortedFunc(maps.Values(s.jobs), func(a, b *exportJob) int { return cmp.Compare(a.seq, b.seq) }) {
		if j.domain == domain {
			ids = append(ids, j.id)
		}
	}
	return ids
}

// CompleteExportJob forces a job to completed now, whatever its behaviour.
func (s *Server) CompleteExportJob(jobID string) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.jobs[jobID]; ok && j.forcedAt == nil {
		j.forcedAt = &now
	}
}

// EditPage publishes a new revision of a page of domain's site (a page
// path such as "guides/getting-started") and returns it: the exports
// started from now on render the page's text anew, and with
// Config.StablePages that page's HTML file is the only one that differs
// from an earlier export's. Exports already started keep what they had.
func (s *Server) EditPage(domain, page string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pageRevisions[domain] == nil {
		s.pageRevisions[domain] = map[string]int{}
	}
	s.pageRevisions[domain][page]++
	return s.pageRevisions[domain][page]
}

type startExportRequest struct {
	Domain  string   `json:"domain"` // absent or null: "", which validateDomain refuses
	Version string   `json:"version"`
	Paths   []string `json:"paths"`
}

func (s *Server) handleStartExport(w http.ResponseWriter, r *http.Request) {
	var req startExportRequest
	var paths []string
	err := decodeBody(w, r, &req)
	if err == nil {
		err = validateDomain(req.Domain)
	}
	if err == nil {
		paths, err = normalizePaths(req.Paths)
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	domain, version := req.Domain, strings.TrimSpace(req.Version)

	now := s.now()
	s.mu.Lock()
	if s.cfg.ConflictOnRunningExport {
		if other, st := s.unfinishedExport(now, func(j *exportJob) bool { return j.domain == domain }); other != nil {
			s.mu.Unlock()
			writeError(w, http.StatusConflict, fmt.Sprintf("an export for domain %s is already %s (job %s)", domain, st, other.id))
			return
		}
	}
	j := s.newExportJob(domain, version, paths, "", now)
	snap := j.snapshot(now)
	s.mu.Unlock()

	writeJSON(w, http.StatusAccepted, snap.toJSON())
}

// unfinishedExport is a job that of selects and that is queued or running
// at now, and its status, or nil. s.mu must be held.
func (s *Server) unfinishedExport(now time.Time, of func(*exportJob) bool) (*exportJob, string) {
	for _, j := range s.jobs {
		if !of(j) {
			continue
		}
		if st := j.snapshot(now).Status; st == StatusQueued || st == StatusRunning {
			return j, st
		}
	}
	return nil, ""
}

// newExportJob starts a job of domain, of project for a job started through
// part E's route, with s.mu held.
func (s *Server) newExportJob(domain, version string, paths []string, project string, now time.Time) *exportJob {
	b := s.behaviors[domain] // then the server's defaults, then the package's (resolved)
	b.Duration = cmp.Or(max(b.Duration, 0), s.cfg.ExportDuration)
	b.Queue = cmp.Or(max(b.Queue, 0), s.cfg.QueueDuration)
	b.ArchiveSize = cmp.Or(max(b.ArchiveSize, 0), s.cfg.ArchiveSize)
	b.PageCount = cmp.Or(max(b.PageCount, 0), len(paths), s.cfg.PageCount)
	taken := func(id string) bool { return s.jobs[id] != nil }
	var id string
	if project == "" {
		id = newID("se_", taken)
	} else {
		id = newObjectID(taken)
		b.OmitProgress = true // part E's jobs carry neither progress nor pageCount
	}
	s.jobSeq++
	j := &exportJob{
		id:       id,
		seq:      s.jobSeq,
		domain:   domain,
		project:  project,
		version:  version,
		paths:    paths,
		behavior: b.resolved(),
		created:  now,
	}
	site := sitegen.Site{Domain: domain, Version: version, Paths: paths, PageCount: j.behavior.PageCount,
		Build: j.id, Revisions: maps.Clone(s.pageRevisions[domain])}
	j.padding = uint64(j.seq)
	if s.cfg.StablePages {
		site.Build, j.padding = "", 0
	}
	j.site = sync.OnceValue(site.Files)
	j.archive = archiveFor(b.Archive, j.site, b.ArchiveSize, j.padding)
	s.jobs[j.id] = j
	s.counts[startsFor(domain)]++
	return j
}

func (s *Server) handleGetExport(w http.ResponseWriter, r *http.Request) {
	jobID := r.PathValue("jobId")
	snap, ok := s.domainJob(jobID)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("static export job %s not found", jobID))
		return
	}
	writeJSON(w, http.StatusOK, snap.toJSON())
}

// hostname is a bare DNS name: dot-separated labels of 1 to 63 letters,
// digits and inner hyphens.
var hostname = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$`)

// validateDomain accepts a bare hostname, as the API requires.
func validateDomain(d string) error {
	switch {
	case strings.TrimSpace(d) == "":
		return fmt.Errorf("domain is required")
	case strings.Contains(d, "://"):
		return fmt.Errorf("domain %q must be a hostname without a scheme (e.g. docs.example.com)", d)
	case len(d) > 253:
		return fmt.Errorf("domain %q is longer than 253 characters", d)
	case !hostname.MatchString(d):
		return fmt.Errorf("domain %q is not a valid hostname: no port, path or spaces, and labels of 1 to 63 letters, digits and inner hyphens", d)
	case strings.HasSuffix(strings.ToLower(d), ".invalid"):
		// The reserved .invalid TLD plays the documented "unreachable domain" 400.
		return fmt.Errorf("domain %s is unreachable", d)
	}
	return nil
}

// normalizePaths validates page paths and strips leading/trailing slashes
// and a ".html" suffix, so "/guides/intro.html" and "guides/intro" are the
// same page.
func normalizePaths(in []string) ([]string, error) {
	if len(in) == 0 { // empty means all pages, like omitted
		return nil, nil
	}
	out := make([]string, 0, len(in))
	for i, p := range in {
		n := strings.TrimSuffix(strings.Trim(strings.TrimSpace(p), "/"), ".html")
		if n == "" {
			return nil, fmt.Errorf("paths[%d] must be a non-empty page path such as \"index\" or \"guides/getting-started\"", i)
		}
		if strings.ContainsAny(n, " \t\r\n?#\\") || strings.Contains(n, "://") {
			return nil, fmt.Errorf("paths[%d] %q is not a page path", i, p)
		}
		for seg := range strings.SplitSeq(n, "/") {
			if seg == "" || seg == "." || seg == ".." {
				return nil, fmt.Errorf("paths[%d] %q is not a page path", i, p)
			}
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}
