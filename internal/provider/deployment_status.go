package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/resume"
)

// What every deployment type (the resource, the preview resource and the
// data source) records of a deployment status, and how a wait on one reads.

const defaultDeploymentWait = 30 * time.Minute

// Bounds of the log excerpt a failed deployment's error shows: the end of
// the build's log is where a build says what went wrong.
const (
	failureLogLines = 20
	failureLogBytes = 4 << 10
)

// deploymentStatusModel is a deployment status as state records it.
type deploymentStatusModel struct {
	StatusID      types.String `tfsdk:"status_id"`
	Status        types.String `tfsdk:"status"`
	CommitSHA     types.String `tfsdk:"commit_sha"`
	CommitRef     types.String `tfsdk:"commit_ref"`
	CommitMessage types.String `tfsdk:"commit_message"`
	FilesAdded    types.List   `tfsdk:"files_added"`
	FilesModified types.List   `tfsdk:"files_modified"`
	FilesRemoved  types.List   `tfsdk:"files_removed"`
	Summary       types.String `tfsdk:"summary"`
	CreatedAt     types.String `tfsdk:"created_at"`
	EndedAt       types.String `tfsdk:"ended_at"`
}

// deploymentStatusDescriptions document the attributes of deploymentStatusModel.
var deploymentStatusDescriptions = map[string]string{
	"status_id": "Identifier of the deployment's status, as `POST /v1/project/update/{projectId}` (or the preview call) returned it; " +
		"the `status_id` that reads it with the `docsadmin_deployment` data source.",
	"status": "Last seen status: `queued`, `in_progress`, `success` or `failure` (other values the API may add are passed through, " +
		"and are not final).",
	"commit_sha":     "Commit the deployment built, as the API reports it. Null while the API does not say (it may not while the deployment is queued).",
	"commit_ref":     "Branch (ref) of that commit. Null while not reported.",
	"commit_message": "Message of that commit, redacted and bounded like `summary`. Null while not reported.",
	"files_added":    "Paths the commit added. Null while not reported.",
	"files_modified": "Paths the commit modified. Null while not reported.",
	"files_removed":  "Paths the commit removed. Null while not reported.",
	"summary":        "The API's summary of the deployment, such as the reason it failed. Null when empty. The API key, link signatures and tokens it quotes are redacted, control characters quoted (such as `\\x1b`), and it is cut at 4 KiB with a marker.",
	"created_at":     "When the deployment was queued (RFC 3339). Null when not reported.",
	"ended_at":       "When the deployment ended (RFC 3339). Null until it ends.",
}

var deploymentListAttributes = map[string]bool{"files_added": true, "files_modified": true, "files_removed": true}

// deploymentStatusResourceAttributes are the computed attributes of the
// resources. Their plan is set by the resource's ModifyPlan.
func deploymentStatusResourceAttributes() map[string]rschema.Attribute {
	attrs := map[string]rschema.Attribute{}
	for name, desc := range deploymentStatusDescriptions {
		if deploymentListAttributes[name] {
			attrs[name] = rschema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: types.StringType}
		} else {
			attrs[name] = rschema.StringAttribute{MarkdownDescription: desc, Computed: true}
		}
	}
	return attrs
}

// deploymentStatusDataSourceAttributes are the same for the data source.
func deploymentStatusDataSourceAttributes() map[string]dschema.Attribute {
	attrs := map[string]dschema.Attribute{}
	for name, desc := range deploymentStatusDescriptions {
		if deploymentListAttributes[name] {
			attrs[name] = dschema.ListAttribute{MarkdownDescription: desc, Computed: true, ElementType: types.StringType}
		} else {
			attrs[name] = dschema.StringAttribute{MarkdownDescription: desc, Computed: true}
		}
	}
	return attrs
}

// set records what the API reported of a deployment, every text through
// the sanitizer s first: the summary and the commit message are free text
// that may quote the key or a link's signature, which state, show -json and
// the next plan's diff would otherwise show; they are bounded too.
func (m *deploymentStatusModel) set(d *client.Deployment, s *redact.Sanitizer) {
	line := func(v string) types.String { return optionalString(lineOf(s, v)) }
	m.StatusID = types.StringValue(d.ID)
	m.Status = line(string(d.Status))
	m.Summary = types.StringNull()
	if d.Summary != nil {
		m.Summary = types.StringValue(s.Text(*d.Summary, redact.StoredBytes))
	}
	m.CreatedAt = timeValue(d.CreatedAt)
	m.EndedAt = timeValue(d.EndedAt)
	m.CommitSHA, m.CommitRef, m.CommitMessage = types.StringNull(), types.StringNull(), types.StringNull()
	m.FilesAdded, m.FilesModified, m.FilesRemoved = stringList(nil, false), stringList(nil, false), stringList(nil, false)
	if c := d.Commit; c != nil {
		m.CommitSHA, m.CommitRef = line(c.SHA), line(c.Ref)
		m.CommitMessage = optionalString(s.Text(c.Message, redact.StoredBytes))
		paths := func(ps []string) types.List {
			clean := make([]string, len(ps))
			for i, p := range ps {
				clean[i] = lineOf(s, p)
			}
			return stringList(clean, true)
		}
		m.FilesAdded, m.FilesModified, m.FilesRemoved = paths(c.Added), paths(c.Modified), paths(c.Removed)
	}
}

// started records a deployment just queued, of which only the id is known.
func (m *deploymentStatusModel) started(statusID string) {
	m.set(&client.Deployment{ID: statusID, Status: client.DeploymentQueued}, nil)
}

// unknown plans every attribute as known only after apply.
func (m *deploymentStatusModel) unknown() {
	m.StatusID, m.Status, m.Summary, m.CreatedAt, m.EndedAt = types.StringUnknown(), types.StringUnknown(), types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	m.CommitSHA, m.CommitRef, m.CommitMessage = types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	m.FilesAdded, m.FilesModified, m.FilesRemoved = types.ListUnknown(types.StringType), types.ListUnknown(types.StringType), types.ListUnknown(types.StringType)
}

func (m deploymentStatusModel) status() client.DeploymentStatus {
	return client.DeploymentStatus(m.Status.ValueString())
}

// unsuccessful reports a recorded deployment that will never succeed: it
// failed, or it ended (ended_at is set) with a status the provider does not
// know, such as "canceled". Either way the next apply deploys again.
func (m deploymentStatusModel) unsuccessful() bool {
	status := m.status()
	return status == client.DeploymentFailure || (!m.EndedAt.IsNull() && !m.EndedAt.IsUnknown() && !status.Known())
}

// work is the recorded deployment, for the resume protocol.
func (m deploymentStatusModel) work() resume.Work {
	return resume.Work{ID: m.StatusID.ValueString(), Status: m.Status.ValueString()}
}

// setUnread records work, a deployment an earlier apply left unfinished
// that could not be read again: its id and last seen status, the rest null.
func (m *deploymentStatusModel) setUnread(work resume.Work) {
	m.set(&client.Deployment{ID: work.ID, Status: client.DeploymentStatus(work.Status)}, nil)
}

// stringList is a list of strings; null when not present.
func stringList(items []string, present bool) types.List {
	if !present {
		return types.ListNull(types.StringType)
	}
	values := make([]string, len(items))
	copy(values, items)
	list, _ := types.ListValueFrom(context.Background(), types.StringType, values)
	return list
}

// waitForDeployment polls a deployment status until it is final, for at
// most limit. It returns the last deployment read, also on error (nil when
// none was), and the poller's error for waitFailure to word.
func (d *providerData) waitForDeployment(ctx context.Context, subject, statusID string, limit time.Duration) (*client.Deployment, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var last *client.Deployment
	changes := d.statusLog(subject, map[string]any{"status_id": statusID})
	_, err := poll.Until(ctx, d.pollPolicy(client.KnownDeploymentStatuses), func(ctx context.Context) (poll.Observation, error) {
		dep, err := d.client.GetDeployment(ctx, statusID)
		if err != nil {
			return poll.Observation{}, transientOrPermanent(err)
		}
		last = dep
		obs := poll.Observation{Status: d.apiLine(string(dep.Status)), Final: dep.Status.Final()}
		changes.note(ctx, obs)
		if dep.EndedUnknown() {
			return obs, poll.Permanent(&unknownEndError{subject: subject, status: d.apiLine(string(dep.Status)), known: client.KnownDeploymentStatuses,
				field: "end time (endedAt)", next: "It is saved in state as it ended, and the next terraform apply deploys again " +
					"rather than following it; check the deployment on the dashboard first"})
		}
		return obs, nil
	})
	return last, err
}

// deploymentFollow is a deployment a resource waits for.
type deploymentFollow struct {
	subject  string // e.g. "deployment 6743... of project proj_1"
	statusID string
	timeout  timeoutName
	limit    time.Duration
	status   *deploymentStatusModel // the resource's model's
	save     func() diag.Diagnostics
	again    string // what to do after a failure
}

// followDeployment saves the deployment in state before waiting for it, so
// that a timeout or an interrupt never loses its id, then records how it
// ended. A failure is saved too: state never claims a success that did not
// happen. It reports whether it saw the deployment end.
func (d *providerData) followDeployment(ctx context.Context, f deploymentFollow, diags *diag.Diagnostics) bool {
	f.status.started(f.statusID)
	diags.Append(f.save()...)
	wait := deploymentWaitFailure(f.subject, f.timeout, f.limit)
	dep, err := d.waitForDeployment(ctx, f.subject, f.statusID, f.limit)
	if dep != nil {
		f.status.set(dep, d.sanitizer)
		f.status.StatusID = types.StringValue(f.statusID)
		diags.Append(f.save()...)
	}
	if err != nil {
		diags.AddError("Deployment did not end", wait.describe(err))
		return false
	}
	if dep.Status == client.DeploymentFailure {
		diags.AddError("Deployment failed", d.deploymentFailure(f.subject, dep, f.again))
	}
	return true
}

// deploymentFailure words a deployment that ended in failure: the API's
// summary and the end of its log, bounded and without secrets.
func (d *providerData) deploymentFailure(subject string, dep *client.Deployment, next string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed", subject)
	if dep.Commit != nil && dep.Commit.SHA != "" {
		fmt.Fprintf(&b, " building commit %s", d.apiLine(dep.Commit.SHA))
	}
	if dep.Summary != nil {
		fmt.Fprintf(&b, ": %s", d.sanitizer.Text(*dep.Summary, redact.MessageBytes))
	} else {
		b.WriteString(" (the API gave no summary)")
	}
	b.WriteString(".")
	if lines, shown := logTail(dep.Logs, d.sanitizer); shown > 0 {
		fmt.Fprintf(&b, "\n\nLast %s of %d:\n%s", poll.Count{Thing: "log line", N: shown}, len(dep.Logs), lines)
	} else {
		b.WriteString(" The API reported no log lines.")
	}
	b.WriteString("\n\n" + next)
	return b.String()
}

// logTail is the end of a log: at most failureLogLines lines and
// failureLogBytes bytes, each line as lineOf shows it.
func logTail(logs []string, s *redact.Sanitizer) (string, int) {
	var lines []string
	size := 0
	for i := len(logs) - 1; i >= 0 && len(lines) < failureLogLines; i-- {
		line := lineOf(s, strings.TrimRight(logs[i], "\r\n"))
		if size+len(line)+3 > failureLogBytes {
			break
		}
		size += len(line) + 3
		lines = append(lines, line)
	}
	for i, j := 0, len(lines)-1; i < j; i, j = i+1, j-1 {
		lines[i], lines[j] = lines[j], lines[i]
	}
	if len(lines) == 0 {
		return "", 0
	}
	return "  " + strings.Join(lines, "\n  "), len(lines)
}

// deploymentStartError explains a failed update or preview call, including
// whether the API may have queued a deployment anyway.
func deploymentStartError(what string, err error) string {
	switch {
	case client.MayHaveActed(err):
		return fmt.Sprintf("Requesting %s failed after the request was sent: %s. The API may have queued it; the request was not repeated "+
			"so that no second deployment is queued. Check the dashboard, then run terraform apply again.", what, err)
	case client.IsNotFound(err):
		return fmt.Sprintf("Requesting %s failed: %s. Check project_id (shown on the dashboard's API keys page).", what, err)
	}
	return fmt.Sprintf("Requesting %s failed: %s", what, withHint(err))
}

// deploymentWaitFailure words a wait on a deployment bounded by the
// resource's timeout called name.
func deploymentWaitFailure(subject string, name timeoutName, limit time.Duration) waitFailure {
	return waitFailure{subject: subject, timeout: name, limit: limit,
		onTimeout: fmt.Sprintf("The deployment keeps running on the server and its status id is saved in state: run terraform apply again to "+
			"continue waiting for it (no second deployment is queued), or raise the limit in the resource's timeouts block, for example %s = \"1h\"", string(name)),
		onInterrupt: "The status id is saved in state: the next terraform apply continues waiting for the same deployment",
		onGone:      "The API may no longer keep it: run terraform apply again to deploy again"}
}
