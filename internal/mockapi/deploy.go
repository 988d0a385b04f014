package mockapi

import (
	"cmp"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Deployment statuses of the contract's part D.
const (
	DeploymentQueued     = "queued"
	DeploymentInProgress = "in_progress"
	DeploymentSuccess    = "success"
	DeploymentFailure    = "failure"
)

// Defaults of deployments.
const (
	// DefaultDeploymentDuration is the time a deployment spends in_progress
	// before it ends.
	DefaultDeploymentDuration = 3 * time.Second
	// DefaultDeploymentBranch is the branch a project deploys from.
	DefaultDeploymentBranch = "main"
	// DefaultDeploymentFailSummary is the summary of a failed deployment.
	DefaultDeploymentFailSummary = "Build failed: 1 error in guides/intro.mdx"
	// PreviewNotAvailableMessage is the API's 403 to an organisation
	// without the preview entitlement, word for word.
	PreviewNotAvailableMessage = "Preview deployments are not available on your current plan."
)

// DeploymentOutcomes are the values Config.DeploymentOutcome accepts besides "".
var DeploymentOutcomes = []string{DeploymentSuccess, DeploymentFailure}

// ValidDeploymentOutcome reports whether Config.DeploymentOutcome may be o.
func ValidDeploymentOutcome(o string) bool { return o == "" || slices.Contains(DeploymentOutcomes, o) }

// Commit is a commit of a project's docs repository, as a deployment
// reports it.
type Commit struct {
	SHA      string
	Message  string
	Added    []string
	Modified []string
	Removed  []string
}

// DeploymentBehavior scripts the deployments (updates and previews) of one
// project.
type DeploymentBehavior struct {
	// Queue is the time spent queued; 0 means Config.DeploymentQueueDuration.
	Queue time.Duration
	// Duration is the time spent in_progress; 0 means
	// Config.DeploymentDuration.
	Duration time.Duration
	// Fail makes deployments end "failure"; without it they follow
	// Config.DeploymentOutcome.
	Fail bool
	// FailSummary is a failed deployment's summary; default
	// DefaultDeploymentFailSummary.
	FailSummary string
	// FailLogs are the log lines a failed deployment adds to the build's;
	// default a few lines naming the error.
	FailLogs []string
	// CommitWhileQueued makes a queued deployment report its commit; by
	// default "commit" is null until the deployment is in_progress, one of
	// the readings the contract leaves open.
	CommitWhileQueued bool
	// EndStatus, when set, is the status deployments end with instead of
	// success or failure, endedAt set as for any end: a status the API does
	// not document, such as "canceled".
	EndStatus string
}

// deployment is one deployment update or preview. Immutable after creation.
type deployment struct {
	id, projectID string
	preview       bool
	branch        string
	commit        Commit
	created       time.Time
	queue, run    time.Duration
	fail          bool
	failSummary   string
	failLogs      []string
	commitQueued  bool
	endStatus     string
	subdomain     string
}

// deployProject is guarded by Server.mu.
type deployProject struct {
	behavior DeploymentBehavior
	heads    map[string]Commit // published commits, by branch
	ids      []string          // deployments, oldest first
}

// DeploymentSnapshot is a deployment as the API reports it at one instant.
type DeploymentSnapshot struct {
	ID, ProjectID string
	Preview       bool
	Branch        string
	Status        string
	Summary       string
	Logs          []string
	Commit        *Commit // nil while queued, unless CommitWhileQueued
	CreatedAt     time.Time
	EndedAt       *time.Time
	Subdomain     string
}

// SetDeploymentBehavior scripts the deployments started for projectID from
// now on.
func (s *Server) SetDeploymentBehavior(projectID string, b DeploymentBehavior) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deployProjectLocked(projectID).behavior = b
}

// PublishCommit makes c the head of branch in projectID's repository: the
// next deployment of that branch deploys it. Without a published commit a
// branch's head is a fixed commit derived from the project and branch.
func (s *Server) PublishCommit(projectID, branch string, c Commit) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deployProjectLocked(projectID).heads[branch] = cloneCommit(c)
}

// Deployment returns a deployment as it currently stands.
func (s *Server) Deployment(statusID string) (DeploymentSnapshot, bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.deployments[statusID]
	if !ok {
		return DeploymentSnapshot{}, false
	}
	return d.snapshot(now), true
}

// DeploymentIDs lists the deployments (updates and previews) started in
// projectID through the API, oldest first.
func (s *Server) DeploymentIDs(projectID string) []string {
	return locked(s, func() []string {
		if p := s.deployProjects[projectID]; p != nil {
			return slices.Clone(p.ids)
		}
		return nil
	})
}

// deployProjectLocked returns the project's entry, creating it. Called with
// s.mu held.
func (s *Server) deployProjectLocked(projectID string) *deployProject {
	p := entry(s.deployProjects, projectID)
	if p.heads == nil {
		p.heads = map[string]Commit{}
	}
	return p
}

func cloneCommit(c Commit) Commit {
	c.Added, c.Modified, c.Removed = slices.Clone(c.Added), slices.Clone(c.Modified), slices.Clone(c.Removed)
	return c
}

// headOf is the commit a deployment of branch would deploy now. Called with
// s.mu held.
func (p *deployProject) headOf(projectID, branch string) Commit {
	if c, ok := p.heads[branch]; ok {
		return cloneCommit(c)
	}
	sum := sha1.Sum([]byte(projectID + "\x00" + branch))
	return Commit{SHA: hex.EncodeToString(sum[:]), Message: "Initial documentation", Modified: []string{"docs.json", "index.mdx"}}
}

func (d *deployment) snapshot(now time.Time) DeploymentSnapshot {
	elapsed := now.Sub(d.created)
	snap := DeploymentSnapshot{ID: d.id, ProjectID: d.projectID, Preview: d.preview, Branch: d.branch,
		CreatedAt: d.created, Subdomain: d.subdomain, Logs: []string{}}
	commit := cloneCommit(d.commit)
	short := d.commit.SHA[:min(7, len(d.commit.SHA))]
	build := []string{
		fmt.Sprintf("Cloning %s at %s", d.branch, short),
		"Installing dependencies",
		"Building pages",
	}
	end := d.queue + d.run
	switch {
	case elapsed <= 0 || elapsed < d.queue:
		snap.Status, snap.Summary = DeploymentQueued, "Waiting for a builder"
		if d.commitQueued {
			snap.Commit = &commit
		}
		return snap
	case elapsed < end:
		snap.Status, snap.Summary, snap.Logs, snap.Commit = DeploymentInProgress, "Building "+short, build, &commit
		return snap
	}
	ended := d.created.Add(end)
	snap.EndedAt, snap.Commit = &ended, &commit
	if d.endStatus != "" {
		snap.Status, snap.Summary, snap.Logs = d.endStatus, "Deployment "+d.endStatus, build
		return snap
	}
	if d.fail {
		snap.Status, snap.Summary = DeploymentFailure, d.failSummary
		snap.Logs = append(build, d.failLogs...)
		return snap
	}
	snap.Status, snap.Summary = DeploymentSuccess, "Deployed "+short
	snap.Logs = append(build, "Uploading the site", "Deployment complete")
	return snap
}

type deploymentCommitJSON struct {
	SHA          string `json:"sha"`
	Ref          string `json:"ref"`
	Message      string `json:"message"`
	FilesChanged struct {
		Added    []string `json:"added"`
		Modified []string `json:"modified"`
		Removed  []string `json:"removed"`
	} `json:"filesChanged"`
}

type deploymentAuthorJSON struct {
	Name         string `json:"name"`
	AvatarURL    string `json:"avatarUrl"`
	GitHubUserID int64  `json:"githubUserId"`
}

// deploymentJSON is the update-status answer, every field of part D.
type deploymentJSON struct {
	ID              string                `json:"_id"`
	ProjectID       string                `json:"projectId"`
	CreatedAt       string                `json:"createdAt"`
	EndedAt         *string               `json:"endedAt"`
	Status          string                `json:"status"`
	Summary         string                `json:"summary"`
	Logs            []string              `json:"logs"`
	Subdomain       string                `json:"subdomain"`
	Screenshot      *string               `json:"screenshot"`
	ScreenshotLight *string               `json:"screenshotLight"`
	ScreenshotDark  *string               `json:"screenshotDark"`
	Author          *deploymentAuthorJSON `json:"author"`
	Commit          *deploymentCommitJSON `json:"commit"`
	Source          string                `json:"source"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (snap DeploymentSnapshot) toJSON() deploymentJSON {
	out := deploymentJSON{ID: snap.ID, ProjectID: snap.ProjectID, CreatedAt: formatTime(snap.CreatedAt),
		EndedAt: formatTimePtr(snap.EndedAt), Status: snap.Status, Summary: snap.Summary, Logs: nonNil(snap.Logs),
		Subdomain: snap.Subdomain, Source: "api"}
	if snap.Commit != nil {
		c := &deploymentCommitJSON{SHA: snap.Commit.SHA, Ref: snap.Branch, Message: snap.Commit.Message}
		c.FilesChanged.Added = nonNil(snap.Commit.Added)
		c.FilesChanged.Modified = nonNil(snap.Commit.Modified)
		c.FilesChanged.Removed = nonNil(snap.Commit.Removed)
		out.Commit = c
	}
	if snap.Status == DeploymentSuccess {
		shot := fmt.Sprintf("https://screenshots.example.com/%s.png", snap.ID)
		out.Screenshot, out.ScreenshotLight, out.ScreenshotDark = &shot, &shot, &shot
	}
	return out
}

// startDeployment records a new deployment of branch. Called with s.mu held.
func (s *Server) startDeployment(projectID, branch string, preview bool, now time.Time) *deployment {
	p := s.deployProjectLocked(projectID)
	b := p.behavior
	fail := b.Fail || s.cfg.DeploymentOutcome == DeploymentFailure
	logs := b.FailLogs
	if logs == nil {
		logs = []string{
			"Error: guides/intro.mdx:12:3: unexpected closing tag </Card>",
			"Build failed with 1 error",
		}
	}
	d := &deployment{
		id:           newObjectID(func(id string) bool { return s.deployments[id] != nil }),
		projectID:    projectID,
		preview:      preview,
		branch:       branch,
		commit:       p.headOf(projectID, branch),
		created:      now,
		queue:        cmp.Or(max(b.Queue, 0), s.cfg.DeploymentQueueDuration),
		run:          cmp.Or(max(b.Duration, 0), s.cfg.DeploymentDuration),
		fail:         fail,
		failSummary:  cmp.Or(b.FailSummary, DefaultDeploymentFailSummary),
		failLogs:     slices.Clone(logs),
		commitQueued: b.CommitWhileQueued,
		endStatus:    b.EndStatus,
		subdomain:    subdomainFor(projectID),
	}
	s.deployments[d.id] = d
	p.ids = append(p.ids, d.id)
	return d
}

// newObjectID returns 24 hex digits, the shape of the API's "_id" and of
// part E's jobId, that taken refuses.
func newObjectID(taken func(id string) bool) string {
	for {
		if id := randomHex(12); !taken(id) {
			return id
		}
	}
}

var notSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug turns a name into a DNS label.
func slug(s string) string {
	return strings.Trim(notSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

func subdomainFor(projectID string) string { return cmp.Or(slug(projectID), "project") }

// PreviewURL is the address of a branch's preview deployment.
func PreviewURL(projectID, branch string) string {
	return fmt.Sprintf("https://%s-%s.preview.example.com", subdomainFor(projectID), cmp.Or(slug(branch), "branch"))
}

func (s *Server) handleDeploy(w http.ResponseWriter, r *http.Request) {
	projectID := r.PathValue("projectId")
	now := s.now()
	s.mu.Lock()
	d := s.startDeployment(projectID, DefaultDeploymentBranch, false, now)
	s.mu.Unlock()
	writeJSON(w, http.StatusAccepted, struct {
		StatusID string `json:"statusId"`
	}{d.id})
}

type previewRequest struct {
	Branch string `json:"branch"`
}

func (s *Server) handlePreview(w http.ResponseWriter, r *http.Request) {
	if s.cfg.NoPreviewEntitlement {
		writeError(w, http.StatusForbidden, PreviewNotAvailableMessage)
		return
	}
	var req previewRequest
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if strings.TrimSpace(req.Branch) == "" {
		writeError(w, http.StatusBadRequest, "branch is required")
		return
	}
	projectID := r.PathValue("projectId")
	now := s.now()
	s.mu.Lock()
	d := s.startDeployment(projectID, req.Branch, true, now)
	s.mu.Unlock()
	writeJSON(w, http.StatusAccepted, struct {
		StatusID   string `json:"statusId"`
		PreviewURL string `json:"previewUrl"`
	}{d.id, PreviewURL(projectID, req.Branch)})
}

func (s *Server) handleDeploymentStatus(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("statusId")
	snap, ok := s.Deployment(id)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("deployment status %s not found", id))
		return
	}
	writeJSON(w, http.StatusOK, snap.toJSON())
}
