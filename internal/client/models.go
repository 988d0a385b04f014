package client

import (
	"encoding/json"
	"math"
	"time"
)

// ExportStatus is the state of a static export job. Values other than the
// constants below may appear; they are not final.
type ExportStatus string

const (
	ExportQueued    ExportStatus = "queued"
	ExportRunning   ExportStatus = "running"
	ExportCompleted ExportStatus = "completed"
	ExportFailed    ExportStatus = "failed"
)

// KnownExportStatuses lists the statuses the API documents.
var KnownExportStatuses = []string{string(ExportQueued), string(ExportRunning), string(ExportCompleted), string(ExportFailed)}

// Final reports whether no further change is expected.
func (s ExportStatus) Final() bool { return s == ExportCompleted || s == ExportFailed }

// AgentStatus is the state of an agent job.
type AgentStatus string

const (
	AgentActive    AgentStatus = "active"
	AgentCompleted AgentStatus = "completed"
	AgentArchived  AgentStatus = "archived"
	AgentFailed    AgentStatus = "failed"
)

// KnownAgentStatuses lists the statuses the API documents.
var KnownAgentStatuses = []string{string(AgentActive), string(AgentCompleted), string(AgentArchived), string(AgentFailed)}

// Final reports whether the agent job has stopped working.
func (s AgentStatus) Final() bool {
	return s == AgentCompleted || s == AgentArchived || s == AgentFailed
}

// StartStaticExportRequest is the body of POST /v1/static-export/jobs.
type StartStaticExportRequest struct {
	Domain  string   `json:"domain"`
	Version string   `json:"version,omitempty"`
	Paths   []string `json:"paths,omitempty"`
}

// StaticExportJob is an export job. Every field but JobID may be absent.
type StaticExportJob struct {
	JobID     string
	Status    ExportStatus
	Progress  *float64 // percent, possibly fractional
	PageCount *int64
	CreatedAt *time.Time
	UpdatedAt *time.Time
	Error     *string
}

// UnmarshalJSON decodes tolerantly: unknown fields are ignored, numbers may be
// fractional, and unparseable timestamps are treated as absent rather than
// failing the whole read.
func (j *StaticExportJob) UnmarshalJSON(data []byte) error {
	var raw struct {
		JobID     string   `json:"jobId"`
		ID        string   `json:"id"`
		Status    string   `json:"status"`
		Progress  *float64 `json:"progress"`
		PageCount *float64 `json:"pageCount"`
		CreatedAt *string  `json:"createdAt"`
		UpdatedAt *string  `json:"updatedAt"`
		Error     *string  `json:"error"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*j = StaticExportJob{
		JobID:     firstNonEmpty(raw.JobID, raw.ID),
		Status:    ExportStatus(raw.Status),
		Progress:  raw.Progress,
		PageCount: wholeNumber(raw.PageCount),
		CreatedAt: parseTime(raw.CreatedAt),
		UpdatedAt: parseTime(raw.UpdatedAt),
		Error:     raw.Error,
	}
	return nil
}

// StaticExportLink is a freshly generated, time-limited link to an export's archive.
type StaticExportLink struct {
	JobID     string
	BundleURL string
	SizeBytes *int64
	ExpiresAt *time.Time
}

// UnmarshalJSON decodes tolerantly, like StaticExportJob.
func (b *StaticExportLink) UnmarshalJSON(data []byte) error {
	var raw struct {
		JobID     string   `json:"jobId"`
		BundleURL string   `json:"bundleUrl"`
		SizeBytes *float64 `json:"sizeBytes"`
		ExpiresAt *string  `json:"expiresAt"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*b = StaticExportLink{
		JobID:     raw.JobID,
		BundleURL: raw.BundleURL,
		SizeBytes: wholeNumber(raw.SizeBytes),
		ExpiresAt: parseTime(raw.ExpiresAt),
	}
	return nil
}

// AgentJobSource is where an agent job works.
type AgentJobSource struct {
	Repository *string `json:"repository"`
	Ref        *string `json:"ref"`
}

// AgentJob is an AI agent job. No field is guaranteed to be present.
type AgentJob struct {
	ID         string
	Status     AgentStatus
	Source     *AgentJobSource
	Model      *string
	PRLink     *string
	CreatedAt  *time.Time
	ArchivedAt *time.Time
}

// UnmarshalJSON decodes tolerantly, like StaticExportJob.
func (a *AgentJob) UnmarshalJSON(data []byte) error {
	var raw struct {
		ID         string          `json:"id"`
		Status     string          `json:"status"`
		Source     *AgentJobSource `json:"source"`
		Model      *string         `json:"model"`
		PRLink     *string         `json:"prLink"`
		CreatedAt  *string         `json:"createdAt"`
		ArchivedAt *string         `json:"archivedAt"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*a = AgentJob{
		ID:         raw.ID,
		Status:     AgentStatus(raw.Status),
		Source:     raw.Source,
		Model:      raw.Model,
		PRLink:     raw.PRLink,
		CreatedAt:  parseTime(raw.CreatedAt),
		ArchivedAt: parseTime(raw.ArchivedAt),
	}
	return nil
}

// AgentPromptRequest is the body of the agent job create and message calls.
type AgentPromptRequest struct {
	Prompt string `json:"prompt"`
}

func parseTime(s *string) *time.Time {
	if s == nil || *s == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return nil
	}
	t = t.UTC()
	return &t
}

// wholeNumber truncates a JSON number to an integer. Values beyond int64
// saturate: Go leaves out-of-range conversions to the platform, and amd64
// turns 1e19 into a negative number.
func wholeNumber(f *float64) *int64 {
	if f == nil {
		return nil
	}
	var n int64
	switch {
	case *f >= math.MaxInt64:
		n = math.MaxInt64
	case *f <= math.MinInt64:
		n = math.MinInt64
	default:
		n = int64(*f)
	}
	return &n
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// DeploymentStatus is the state of a deployment update or preview. Values
// other than the constants below may appear; they are not final.
type DeploymentStatus string

const (
	DeploymentQueued     DeploymentStatus = "queued"
	DeploymentInProgress DeploymentStatus = "in_progress"
	DeploymentSuccess    DeploymentStatus = "success"
	DeploymentFailure    DeploymentStatus = "failure"
)

// KnownDeploymentStatuses lists the statuses the API documents.
var KnownDeploymentStatuses = []string{string(DeploymentQueued), string(DeploymentInProgress), string(DeploymentSuccess), string(DeploymentFailure)}

// Final reports whether the deployment has ended.
func (s DeploymentStatus) Final() bool { return s == DeploymentSuccess || s == DeploymentFailure }

// PreviewDeploymentRequest is the body of the preview call.
type PreviewDeploymentRequest struct {
	Branch string `json:"branch"`
}

// DeploymentStart is the answer of the update and preview calls.
type DeploymentStart struct {
	StatusID   string
	PreviewURL *string // previews only
}

// UnmarshalJSON decodes tolerantly: unknown fields are ignored.
func (s *DeploymentStart) UnmarshalJSON(data []byte) error {
	var raw struct {
		StatusID   string  `json:"statusId"`
		PreviewURL *string `json:"previewUrl"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*s = DeploymentStart{StatusID: raw.StatusID, PreviewURL: nonEmpty(raw.PreviewURL)}
	return nil
}

// DeploymentCommit is the commit a deployment builds. Absent fields are
// empty.
type DeploymentCommit struct {
	SHA      string
	Ref      string
	Message  string
	Added    []string
	Modified []string
	Removed  []string
}

// DeploymentAuthor is who caused a deployment, when the API names one.
type DeploymentAuthor struct {
	Name         *string
	AvatarURL    *string
	GitHubUserID *string // a number or a string in the answer
}

// Deployment is the status of a deployment update or preview. Only ID is
// guaranteed; the API does not say whether commit is present while queued.
type Deployment struct {
	ID        string
	ProjectID string
	Status    DeploymentStatus
	Summary   *string
	Logs      []string
	Subdomain *string
	Source    *string
	Author    *DeploymentAuthor
	Commit    *DeploymentCommit
	CreatedAt *time.Time
	EndedAt   *time.Time
}

// UnmarshalJSON decodes tolerantly, like StaticExportJob: unknown fields
// are ignored, null and absent fields are alike, entries of logs and of the
// file lists that are not strings are dropped, and an identifier given as a number is read as text.
func (d *Deployment) UnmarshalJSON(data []byte) error {
	var raw struct {
		ID        string            `json:"_id"`
		AltID     string            `json:"id"`
		ProjectID string            `json:"projectId"`
		Status    string            `json:"status"`
		Summary   *string           `json:"summary"`
		Logs      []json.RawMessage `json:"logs"`
		Subdomain *string           `json:"subdomain"`
		Source    *string           `json:"source"`
		CreatedAt *string           `json:"createdAt"`
		EndedAt   *string           `json:"endedAt"`
		Author    *struct {
			Name         *string         `json:"name"`
			AvatarURL    *string         `json:"avatarUrl"`
			GitHubUserID json.RawMessage `json:"githubUserId"`
		} `json:"author"`
		Commit *struct {
			SHA          string `json:"sha"`
			Ref          string `json:"ref"`
			Message      string `json:"message"`
			FilesChanged *struct {
				Added    []json.RawMessage `json:"added"`
				Modified []json.RawMessage `json:"modified"`
				Removed  []json.RawMessage `json:"removed"`
			} `json:"filesChanged"`
		} `json:"commit"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*d = Deployment{
		ID:        firstNonEmpty(raw.ID, raw.AltID),
		ProjectID: raw.ProjectID,
		Status:    DeploymentStatus(raw.Status),
		Summary:   nonEmpty(raw.Summary),
		Subdomain: nonEmpty(raw.Subdomain),
		Source:    nonEmpty(raw.Source),
		CreatedAt: parseTime(raw.CreatedAt),
		EndedAt:   parseTime(raw.EndedAt),
	}
	d.Logs = stringsOf(raw.Logs)
	if a := raw.Author; a != nil {
		d.Author = &DeploymentAuthor{Name: nonEmpty(a.Name), AvatarURL: nonEmpty(a.AvatarURL), GitHubUserID: scalarText(a.GitHubUserID)}
	}
	if c := raw.Commit; c != nil {
		d.Commit = &DeploymentCommit{SHA: c.SHA, Ref: c.Ref, Message: c.Message}
		if f := c.FilesChanged; f != nil {
			d.Commit.Added, d.Commit.Modified, d.Commit.Removed = stringsOf(f.Added), stringsOf(f.Modified), stringsOf(f.Removed)
		}
	}
	return nil
}

// stringsOf keeps the strings of a JSON array and drops other entries.
func stringsOf(items []json.RawMessage) []string {
	var out []string
	for _, item := range items {
		var s *string
		if json.Unmarshal(item, &s) == nil && s != nil {
			out = append(out, *s)
		}
	}
	return out
}

// nonEmpty treats an empty string like an absent one.
func nonEmpty(s *string) *string {
	if s == nil || *s == "" {
		return nil
	}
	return s
}

// scalarText reads a JSON string or number as text; anything else is absent.
func scalarText(raw json.RawMessage) *string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return nonEmpty(&s)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		text := n.String()
		return &text
	}
	return nil
}
