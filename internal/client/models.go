package client

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"time"
)

// idPattern is the one shape of an identifier (a job's, a deployment's, a
// project's): what may be kept in state, shown in a message and put in a
// request path as it is, whether an answer carries it (badIdentifier) or a
// configuration names it (the provider's plan-time check, through ValidID).
// The API documents ids as opaque strings such as se_3f9a2c1b8e7d4a06 or
// 6520f3a1c9b1a20012ab34cd.
var idPattern = regexp.MustCompile(fmt.Sprintf(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,%d}$`, MaxIDLength-1))

// MaxIDLength is the longest id idPattern accepts.
const MaxIDLength = 128

// IDShape says idPattern in words, for errors.
var IDShape = fmt.Sprintf("1 to %d letters, digits, '.', '_', ':' or '-', starting with a letter or digit", MaxIDLength)

// ValidID reports whether id has the one shape of an identifier.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// identifier is an id an answer carries, with the field it came from.
type identifier struct{ field, value string }

// identified is an answer that carries ids the provider keeps and follows.
type identified interface{ identifiers() []identifier }

// badIdentifier returns the first id of out, when it is identified, that is
// present and breaks idPattern, or that usable refuses.
func badIdentifier(out any, usable func(string) bool) (identifier, bool) {
	ided, ok := out.(identified)
	if !ok {
		return identifier{}, false
	}
	for _, id := range ided.identifiers() {
		if id.value != "" && (!ValidID(id.value) || !usable(id.value)) {
			return id, true
		}
	}
	return identifier{}, false
}

func (j *StaticExportJob) identifiers() []identifier  { return []identifier{{"jobId", j.JobID}} }
func (b *StaticExportLink) identifiers() []identifier { return []identifier{{"jobId", b.JobID}} }
func (a *AgentJob) identifiers() []identifier         { return []identifier{{"id", a.ID}} }
func (s *DeploymentStart) identifiers() []identifier  { return []identifier{{"statusId", s.StatusID}} }
func (d *Deployment) identifiers() []identifier       { return []identifier{{"_id", d.ID}} }

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

// EndedUnknown reports an agent job that the API archived (archivedAt is
// set) with a status it does not document: it will not change again,
// although its status is not Final.
func (a *AgentJob) EndedUnknown() bool {
	return a.ArchivedAt != nil && !slices.Contains(KnownAgentStatuses, string(a.Status))
}

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
	// Link is the fresh link a completed job of the project revision
	// carries; nil in the domain revision, which has a bundle call.
	Link *StaticExportLink
	// Revision is the revision of the API the job was found in.
	Revision ExportRevision
	// Malformed names the fields whose values had a type or form the
	// client does not read; they were left out (see object).
	Malformed []string
}

// UnmarshalJSON decodes tolerantly: unknown fields are ignored, numbers may be
// fractional, and unparseable timestamps are treated as absent rather than
// failing the whole read.
func (j *StaticExportJob) UnmarshalJSON(data []byte) error {
	o, err := readObject(data)
	if err != nil {
		return err
	}
	*j = StaticExportJob{
		JobID:     firstNonEmpty(o.id("jobId"), o.id("id")),
		Status:    ExportStatus(o.text("status")),
		Progress:  o.number("progress"),
		PageCount: wholeNumber(o.number("pageCount")),
		CreatedAt: o.time("createdAt"),
		UpdatedAt: o.time("updatedAt"),
		Error:     o.str("error"),
	}
	if link := readLink(o); link.BundleURL != "" {
		link.JobID = j.JobID
		j.Link = &link
	}
	j.Malformed = o.malformed()
	return nil
}

// StaticExportLink is a freshly generated, time-limited link to an export's archive.
type StaticExportLink struct {
	JobID     string
	BundleURL string
	SizeBytes *int64
	ExpiresAt *time.Time
	Malformed []string // see StaticExportJob
}

// UnmarshalJSON decodes tolerantly, like StaticExportJob.
func (b *StaticExportLink) UnmarshalJSON(data []byte) error {
	o, err := readObject(data)
	if err != nil {
		return err
	}
	*b = readLink(o)
	b.JobID = o.id("jobId")
	b.Malformed = o.malformed()
	return nil
}

// readLink reads the fields of a link, which a bundle answer and a
// completed project-revision job share.
func readLink(o object) StaticExportLink {
	return StaticExportLink{
		BundleURL: o.text("bundleUrl"),
		SizeBytes: wholeNumber(o.number("sizeBytes")),
		ExpiresAt: o.time("expiresAt"),
	}
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
	Malformed  []string // see StaticExportJob
}

// UnmarshalJSON decodes tolerantly, like StaticExportJob.
func (a *AgentJob) UnmarshalJSON(data []byte) error {
	o, err := readObject(data)
	if err != nil {
		return err
	}
	*a = AgentJob{
		ID:         o.id("id"),
		Status:     AgentStatus(o.text("status")),
		Model:      o.str("model"),
		PRLink:     o.str("prLink"),
		CreatedAt:  o.time("createdAt"),
		ArchivedAt: o.time("archivedAt"),
	}
	if src, ok := o.child("source"); ok {
		a.Source = &AgentJobSource{Repository: src.str("repository"), Ref: src.str("ref")}
	}
	a.Malformed = o.malformed()
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

// Known reports a status the API documents.
func (s DeploymentStatus) Known() bool { return slices.Contains(KnownDeploymentStatuses, string(s)) }

// PreviewDeploymentRequest is the body of the preview call.
type PreviewDeploymentRequest struct {
	Branch string `json:"branch"`
}

// DeploymentStart is the answer of the update and preview calls.
type DeploymentStart struct {
	StatusID   string
	PreviewURL *string  // previews only
	Malformed  []string // see StaticExportJob
}

// UnmarshalJSON decodes tolerantly: unknown fields are ignored.
func (s *DeploymentStart) UnmarshalJSON(data []byte) error {
	o, err := readObject(data)
	if err != nil {
		return err
	}
	*s = DeploymentStart{StatusID: o.id("statusId"), PreviewURL: nonEmpty(o.str("previewUrl"))}
	s.Malformed = o.malformed()
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
	Malformed []string // see StaticExportJob
}

// EndedUnknown reports a deployment that says it ended (endedAt is set)
// with a status the API does not document, such as "canceled": it will not
// change again, although its status is not Final.
func (d *Deployment) EndedUnknown() bool { return d.EndedAt != nil && !d.Status.Known() }

// UnmarshalJSON decodes tolerantly, like StaticExportJob: unknown fields
// are ignored, null and absent fields are alike, entries of logs and of the
// file lists that are not strings are dropped, and an identifier given as a number is read as text.
func (d *Deployment) UnmarshalJSON(data []byte) error {
	o, err := readObject(data)
	if err != nil {
		return err
	}
	*d = Deployment{
		ID:        firstNonEmpty(o.id("_id"), o.id("id")),
		ProjectID: o.id("projectId"),
		Status:    DeploymentStatus(o.text("status")),
		Summary:   nonEmpty(o.str("summary")),
		Subdomain: nonEmpty(o.str("subdomain")),
		Source:    nonEmpty(o.str("source")),
		CreatedAt: o.time("createdAt"),
		EndedAt:   o.time("endedAt"),
	}
	d.Logs = o.strings("logs")
	if a, ok := o.child("author"); ok {
		d.Author = &DeploymentAuthor{Name: nonEmpty(a.str("name")), AvatarURL: nonEmpty(a.str("avatarUrl")), GitHubUserID: nonEmpty(a.idText("githubUserId"))}
	}
	if c, ok := o.child("commit"); ok {
		d.Commit = &DeploymentCommit{SHA: c.text("sha"), Ref: c.text("ref"), Message: c.text("message")}
		if f, ok := c.child("filesChanged"); ok {
			d.Commit.Added = f.strings("added")
			d.Commit.Modified = f.strings("modified")
			d.Commit.Removed = f.strings("removed")
		}
	}
	d.Malformed = o.malformed()
	return nil
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
