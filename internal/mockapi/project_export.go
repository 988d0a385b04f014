package mockapi

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"time"
)

// Part E's error messages, as its reference words them.
const (
	// ProjectNotFoundMessage answers both project routes for a project
	// ForgetProject made unknown, and every route of a project outside
	// Config.Projects (404).
	ProjectNotFoundMessage = "The project does not exist or is not in your organization."
	// ProjectJobNotFoundMessage answers a read of a job that is not in the
	// project (404).
	ProjectJobNotFoundMessage = "No job exists with the provided ID for this deployment."
	// ProjectExportConflictMessage answers a start while another job of the
	// project is queued or running (409). It names no job.
	ProjectExportConflictMessage = "An export is already in progress for this deployment."
)

// projectIDPattern is a well-formed project id.
var projectIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// SetProjectDomain makes domain the site of projectID: its project exports
// are jobs of domain, scripted by SetExportBehavior(domain, ...), listed by
// ExportJobIDs(domain) and counted by ExportsStarted(domain). Without it a
// project's site is DefaultProjectDomain.
func (s *Server) SetProjectDomain(projectID, domain string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projectDomains[projectID] = domain
}

// ForgetProject makes projectID unknown to static export, as a project
// deleted or moved to another organization: both project routes answer 404
// with ProjectNotFoundMessage. Any other well-formed project id exists.
func (s *Server) ForgetProject(projectID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lostProjects[projectID] = true
}

// ResetProjectExportLimit empties the log of project export starts that
// Config.ProjectExportStartsPerHour counts, as if an hour had passed.
func (s *Server) ResetProjectExportLimit() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.projectStarts = nil
}

// projectJobJSON is part E's StaticExportJob: no progress, no pageCount; a
// completed job carries a fresh link, and error is there only when failed.
type projectJobJSON struct {
	JobID     string  `json:"jobId"`
	Status    string  `json:"status"`
	CreatedAt string  `json:"createdAt"`
	UpdatedAt string  `json:"updatedAt"`
	Error     *string `json:"error,omitempty"`
	BundleURL string  `json:"bundleUrl,omitempty"`
	SizeBytes int64   `json:"sizeBytes,omitempty"`
	ExpiresAt string  `json:"expiresAt,omitempty"`
}

// projectJob renders a job as part E does, with a new link (counted by
// BundlesGenerated) when it completed.
func (s *Server) projectJob(r *http.Request, snap ExportJobSnapshot) projectJobJSON {
	out := projectJobJSON{JobID: snap.ID, Status: snap.Status,
		CreatedAt: formatTime(snap.CreatedAt), UpdatedAt: formatTime(snap.UpdatedAt)}
	switch snap.Status {
	case StatusFailed:
		out.Error = &snap.Error
	case StatusCompleted:
		link := s.newLink(r, snap)
		out.BundleURL, out.SizeBytes, out.ExpiresAt = link.BundleURL, link.SizeBytes, link.ExpiresAt
	}
	return out
}

// project validates the project of a request on a project route: 400 for a
// malformed id, 404 for a project ForgetProject made unknown. It reports
// false when it answered.
func (s *Server) project(w http.ResponseWriter, r *http.Request) (string, bool) {
	projectID := r.PathValue("projectId")
	switch {
	case !projectIDPattern.MatchString(projectID):
		writeError(w, http.StatusBadRequest, fmt.Sprintf("project id %q is malformed: it must be 1 to 64 letters, digits, underscores or hyphens", projectID))
		return "", false
	case locked(s, func() bool { return s.lostProjects[projectID] }):
		writeError(w, http.StatusNotFound, ProjectNotFoundMessage)
		return "", false
	}
	return projectID, true
}

// handleStartProjectExport starts an export of the project's deployment,
// its site (SetProjectDomain). It takes no body; one export runs at a time
// per project (409); accepted starts count against the hourly limit, which
// a 409 does not reach.
func (s *Server) handleStartProjectExport(w http.ResponseWriter, r *http.Request) {
	projectID, ok := s.project(w, r)
	if !ok {
		return
	}
	if n, _ := io.Copy(io.Discard, io.LimitReader(r.Body, maxBodyBytes)); n > 0 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf(
			"this endpoint takes no request body (%d bytes were sent): it exports the project's deployment, and domain, version and paths cannot be given", n))
		return
	}

	now := s.now()
	s.mu.Lock()
	if other, _ := s.unfinishedExport(now, func(j *exportJob) bool { return j.project == projectID }); other != nil {
		s.mu.Unlock()
		writeError(w, http.StatusConflict, ProjectExportConflictMessage)
		return
	}
	limit := s.cfg.ProjectExportStartsPerHour
	var wait time.Duration
	s.projectStarts, wait = slide(s.projectStarts, now, time.Hour, limit)
	if wait > 0 {
		s.mu.Unlock()
		secs := retryAfterSeconds(wait)
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeError(w, http.StatusTooManyRequests, fmt.Sprintf(
			"rate limit exceeded: at most %d static export job starts per organization per hour; retry in %d s", limit, secs))
		return
	}
	domain := cmp.Or(s.projectDomains[projectID], DefaultProjectDomain)
	snap := s.newExportJob(domain, "", nil, projectID, now).snapshot(now)
	s.mu.Unlock()

	writeJSON(w, http.StatusAccepted, s.projectJob(r, snap))
}

// handleGetProjectExport reads a job of the project. A job started through
// part B's route has no project and reads through any project's route,
// unless Config.SeparateRevisions.
func (s *Server) handleGetProjectExport(w http.ResponseWriter, r *http.Request) {
	projectID, ok := s.project(w, r)
	if !ok {
		return
	}
	snap, ok := s.ExportJob(r.PathValue("jobId"))
	if !ok || (snap.Project != "" && snap.Project != projectID) || (snap.Project == "" && s.cfg.SeparateRevisions) {
		writeError(w, http.StatusNotFound, ProjectJobNotFoundMessage)
		return
	}
	writeJSON(w, http.StatusOK, s.projectJob(r, snap))
}
