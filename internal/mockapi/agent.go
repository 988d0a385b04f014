package mockapi

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Agent job statuses the contract lists; any other string may be seeded.
const (
	AgentActive    = "active"
	AgentCompleted = "completed"
	AgentArchived  = "archived"
	AgentFailed    = "failed"
)

// AgentJobOutcomes are the values Config.AgentJobOutcome accepts besides "".
var AgentJobOutcomes = []string{AgentCompleted, AgentFailed, AgentActive}

// ValidAgentJobOutcome reports whether Config.AgentJobOutcome may be o.
func ValidAgentJobOutcome(o string) bool { return o == "" || slices.Contains(AgentJobOutcomes, o) }

// AgentCreationsPerHour is the documented creation limit per project.
const AgentCreationsPerHour = 100

// AgentJob is an agent job as seeded by tests. Nil pointers render as JSON
// null, which lets tests play fields the contract says are never null.
type AgentJob struct {
	ID         string
	Status     string  // empty means "active"; unknown values are served as is
	Repository *string // source.repository; nil omits "source" entirely
	Ref        *string // source.ref
	Model      *string
	PRLink     *string
	CreatedAt  *time.Time
	ArchivedAt *time.Time
	OmitFields bool // answer only {"id":..., "status":...}
}

func (j AgentJob) clone() AgentJob {
	j.Repository = clonePtr(j.Repository)
	j.Ref = clonePtr(j.Ref)
	j.Model = clonePtr(j.Model)
	j.PRLink = clonePtr(j.PRLink)
	j.CreatedAt = clonePtr(j.CreatedAt)
	j.ArchivedAt = clonePtr(j.ArchivedAt)
	if j.Status == "" {
		j.Status = AgentActive
	}
	return j
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

type agentKey struct{ project, id string }

type scheduledAgentJob struct {
	at   time.Time
	next AgentJob
}

// AgentStep is one scripted transition of a job: After the create or message
// call that started the script, the job becomes Job (its ID is forced).
type AgentStep struct {
	After time.Duration
	Job   AgentJob
}

// agentEntry is guarded by Server.mu. job is nil until the job exists.
type agentEntry struct {
	job      *AgentJob
	schedule []scheduledAgentJob // sorted by at
	prompts  []string            // received through the API: the creation's first, then each message
}

// agentProject is guarded by Server.mu.
type agentProject struct {
	script    []AgentStep // what every created or messaged job does next
	created   []string    // ids of the jobs created through the API, oldest first
	creations []time.Time // creation times in the last hour
}

// entry returns m[k], creating it. Called with s.mu held.
func entry[K comparable, V any](m map[K]*V, k K) *V {
	v, ok := m[k]
	if !ok {
		v = new(V)
		m[k] = v
	}
	return v
}

// SetAgentJobScript makes every job created or messaged through the API in
// the project from now on follow steps, counted from that call: for
// example, complete with a pull request link after a second, or fail. A
// message replaces what remained of a job's previous script. No steps (the
// default) leaves jobs as the calls left them.
func (s *Server) SetAgentJobScript(projectID string, steps ...AgentStep) {
	s.mu.Lock()
	defer s.mu.Unlock()
	entry(s.agentProjects, projectID).script = slices.Clone(steps)
}

// startScript schedules the project's script for e, from now. Called with
// s.mu held.
func (s *Server) startScript(projectID string, e *agentEntry, now time.Time) {
	script := entry(s.agentProjects, projectID).script
	if len(script) == 0 {
		script = s.outcomeScript(e)
	}
	if len(script) == 0 {
		return
	}
	e.schedule = e.schedule[:0]
	for _, step := range script {
		e.plan(now.Add(step.After), step.Job)
	}
}

// outcomeScript is Config.AgentJobOutcome as a script for e's job: nil
// unless an outcome is set and the job is active (a message leaves a failed
// job failed). Called with s.mu held.
func (s *Server) outcomeScript(e *agentEntry) []AgentStep {
	outcome := s.cfg.AgentJobOutcome
	if outcome == "" || outcome == AgentActive || e.job == nil || e.job.Status != AgentActive {
		return nil
	}
	// A step replaces the whole job: keep its source, model and dates.
	next := e.job.clone()
	next.Status = outcome
	if outcome == AgentCompleted && (next.PRLink == nil || *next.PRLink == "") {
		s.agentPRs++
		pr := fmt.Sprintf("https://github.com/example/docs/pull/%d", s.agentPRs)
		next.PRLink = &pr
	}
	return []AgentStep{{After: s.cfg.AgentJobDuration, Job: next}}
}

// plan makes the entry's job become next at at. Called with s.mu held.
func (e *agentEntry) plan(at time.Time, next AgentJob) {
	e.schedule = append(e.schedule, scheduledAgentJob{at: at, next: next.clone()})
	slices.SortStableFunc(e.schedule, func(a, b scheduledAgentJob) int { return a.at.Compare(b.at) })
}

// AgentJobPrompts returns the prompts the job received through the API: the
// one that created it, then each message, in order.
func (s *Server) AgentJobPrompts(projectID, id string) []string {
	return locked(s, func() []string {
		if e := s.agents[agentKey{projectID, id}]; e != nil {
			return slices.Clone(e.prompts)
		}
		return nil
	})
}

// AgentJobsCreated returns the ids of the jobs created through the API in
// the project, oldest first.
func (s *Server) AgentJobsCreated(projectID string) []string {
	return locked(s, func() []string {
		created := []string{}
		if p := s.agentProjects[projectID]; p != nil {
			created = append(created, p.created...)
		}
		return created
	})
}

// current applies due transitions and returns the job, or nil. Called with
// s.mu held. Transitions are lazy so a fake clock drives them without timers.
func (e *agentEntry) current(id string, now time.Time) *AgentJob {
	for len(e.schedule) > 0 && !e.schedule[0].at.After(now) {
		next := e.schedule[0].next.clone()
		next.ID = id
		e.job = &next
		e.schedule = e.schedule[1:]
	}
	return e.job
}

// SeedAgentJob creates or replaces an agent job. job.ID is required.
func (s *Server) SeedAgentJob(projectID string, job AgentJob) {
	if job.ID == "" {
		panic("mockapi: SeedAgentJob requires job.ID")
	}
	j := job.clone()
	s.mu.Lock()
	defer s.mu.Unlock()
	entry(s.agents, agentKey{projectID, job.ID}).job = &j
}

// ScheduleAgentJob makes job id become next at Now()+after (its ID is forced
// to id). If the job does not exist yet, it appears then.
func (s *Server) ScheduleAgentJob(projectID, id string, after time.Duration, next AgentJob) {
	at := s.now().Add(after)
	s.mu.Lock()
	defer s.mu.Unlock()
	entry(s.agents, agentKey{projectID, id}).plan(at, next)
}

// AgentJobReads is the number of GET requests for the job, including faulted
// and unauthorized ones.
func (s *Server) AgentJobReads(projectID, id string) int {
	return s.counted(agentKey{projectID, id})
}

// AgentJobState returns the job as it currently stands.
func (s *Server) AgentJobState(projectID, id string) (AgentJob, bool) {
	return s.updateAgentJob(projectID, id, func(*agentEntry, *AgentJob, time.Time) {})
}

// updateAgentJob applies the job's due transitions, then change (called
// with s.mu held), and returns a copy of the job.
func (s *Server) updateAgentJob(projectID, id string, change func(*agentEntry, *AgentJob, time.Time)) (AgentJob, bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.agents[agentKey{projectID, id}]; ok {
		if j := e.current(id, now); j != nil {
			change(e, j, now)
			return j.clone(), true
		}
	}
	return AgentJob{}, false
}

type agentSourceJSON struct {
	Repository string  `json:"repository"`
	Ref        *string `json:"ref"`
}

type agentJobJSON struct {
	ID         string           `json:"id"`
	Status     string           `json:"status"`
	Source     *agentSourceJSON `json:"source,omitempty"`
	Model      *string          `json:"model"`
	PRLink     *string          `json:"prLink"`
	CreatedAt  *string          `json:"createdAt"`
	ArchivedAt *string          `json:"archivedAt"`
}

func renderAgentJob(j AgentJob) any {
	if j.OmitFields {
		return map[string]string{"id": j.ID, "status": j.Status} // keys encode sorted: id, status
	}
	out := agentJobJSON{ID: j.ID, Status: j.Status, Model: j.Model, PRLink: j.PRLink,
		CreatedAt: formatTimePtr(j.CreatedAt), ArchivedAt: formatTimePtr(j.ArchivedAt)}
	if j.Repository != nil {
		out.Source = &agentSourceJSON{Repository: *j.Repository, Ref: j.Ref}
	}
	return out
}

func formatTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := formatTime(*t)
	return &s
}

func agentNotFound(w http.ResponseWriter, projectID, id string) {
	writeError(w, http.StatusNotFound, fmt.Sprintf("agent job %s not found in project %s", id, projectID))
}

func (s *Server) handleGetAgentJob(w http.ResponseWriter, r *http.Request) {
	projectID, id := r.PathValue("projectId"), r.PathValue("id")
	j, ok := s.AgentJobState(projectID, id)
	if !ok {
		agentNotFound(w, projectID, id)
		return
	}
	writeJSON(w, http.StatusOK, renderAgentJob(j))
}

type agentPromptRequest struct {
	Prompt string `json:"prompt"`
}

// validPrompt answers 400 and reports false for a body without a prompt.
func validPrompt(w http.ResponseWriter, r *http.Request) (string, bool) {
	var req agentPromptRequest
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return "", false
	}
	if strings.TrimSpace(req.Prompt) == "" {
		writeError(w, http.StatusBadRequest, "prompt is required")
		return "", false
	}
	return req.Prompt, true
}

func (s *Server) handleCreateAgentJob(w http.ResponseWriter, r *http.Request) {
	prompt, ok := validPrompt(w, r)
	if !ok {
		return
	}
	projectID := r.PathValue("projectId")
	now := s.now()
	s.mu.Lock()
	p := entry(s.agentProjects, projectID)
	// Creations count in a sliding one-hour window.
	var wait time.Duration
	p.creations, wait = slide(p.creations, now, time.Hour, AgentCreationsPerHour)
	if wait > 0 {
		s.mu.Unlock()
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(wait)))
		writeError(w, http.StatusTooManyRequests, fmt.Sprintf("rate limit exceeded: at most %d agent job creations per project per hour", AgentCreationsPerHour))
		return
	}
	id := newID("aj_", func(id string) bool {
		e := s.agents[agentKey{projectID, id}]
		return e != nil && e.job != nil
	})
	repo, ref, model := "https://github.com/example/docs", "agent/"+id, "mock-agent-1"
	created := now.UTC()
	job := AgentJob{ID: id, Status: AgentActive, Repository: &repo, Ref: &ref, Model: &model, CreatedAt: &created}
	e := entry(s.agents, agentKey{projectID, id})
	e.job, e.prompts = &job, []string{prompt}
	p.created = append(p.created, id)
	s.startScript(projectID, e, now)
	out := job.clone()
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, renderAgentJob(out))
}

// handleAgentMessage sends a follow-up prompt. A completed job resumes work
// (back to active); other states are returned unchanged.
func (s *Server) handleAgentMessage(w http.ResponseWriter, r *http.Request) {
	prompt, ok := validPrompt(w, r)
	if !ok {
		return
	}
	projectID, id := r.PathValue("projectId"), r.PathValue("id")
	j, ok := s.updateAgentJob(projectID, id, func(e *agentEntry, j *AgentJob, now time.Time) {
		if j.Status == AgentCompleted {
			j.Status = AgentActive
		}
		e.prompts = append(e.prompts, prompt)
		s.startScript(projectID, e, now)
	})
	if !ok {
		agentNotFound(w, projectID, id)
		return
	}
	writeJSON(w, http.StatusOK, renderAgentJob(j))
}
