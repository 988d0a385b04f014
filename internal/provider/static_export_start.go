package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// The statuses of a start that the API delays.
const (
	startWaiting = "another export of the project is running"
	startDone    = "started"
)

// startQuotaError is a 429 to a start whose Retry-After does not fit in the
// time the operation has left: waiting would only end in a timeout.
type startQuotaError struct {
	answer      error
	retryPhrase string        // when, as retryPhrase words it
	left        time.Duration // what the operation had left
}

func (e *startQuotaError) Error() string {
	return fmt.Sprintf("the API limits how many exports may be started (the project-scoped revision allows 10 per organization an hour) "+
		"and asks to start again %s, which is beyond the %s this operation has left: %s", e.retryPhrase, duration.Written(e.left.Round(time.Second)), e.answer)
}

func (e *startQuotaError) Unwrap() error { return e.answer }

// startExport starts the export of inputs. What the API says only delays a
// start is waited out, never answered with a second start: a 409 says that
// another export of the project is queued or running (the API allows one at
// a time and names no job, so there is nothing to follow), and the start is
// asked again, spaced as the polls of a job without progress, until ctx
// ends; a 429 is waited out when its Retry-After fits in what is left of
// ctx, and fails at once, saying when to retry, when it does not.
func (d *providerData) startExport(ctx context.Context, inputs exportInputs) (*client.StaticExportJob, error) {
	var job *client.StaticExportJob
	check := func(ctx context.Context) (poll.Observation, error) {
		started, err := d.client.StartStaticExport(ctx, inputs.request())
		switch {
		case err == nil:
			job = started
			return poll.Observation{Status: startDone, Final: true}, nil
		case client.IsConflict(err):
			tflog.Info(ctx, "the API answered 409 to the start: another export of the project is queued or running, and the API allows one at a time; the start is asked again until it ends",
				map[string]any{"answer": err.Error()})
			return poll.Observation{Status: startWaiting}, nil
		case client.Classify(err).Kind == client.KindRateLimited:
			return poll.Observation{Status: startWaiting}, d.waitForStartQuota(ctx, err)
		}
		return poll.Observation{}, poll.Permanent(err)
	}
	_, err := poll.Until(ctx, d.pollPolicy([]string{startWaiting, startDone}), check)
	return job, err
}

// waitForStartQuota waits out a 429 to a start when its Retry-After fits in
// what is left of ctx, and otherwise ends the start with a
// *startQuotaError. A 429 without Retry-After is spaced as a poll.
func (d *providerData) waitForStartQuota(ctx context.Context, err error) error {
	wait := client.Classify(err).RetryAfter
	if wait <= 0 {
		return err // transient: the poll's backoff spaces the next start
	}
	if deadline, ok := ctx.Deadline(); ok {
		// A deadline is wall time, whatever the provider's clock.
		if left := time.Until(deadline); wait > left {
			return poll.Permanent(&startQuotaError{answer: err, retryPhrase: d.retryPhrase(wait), left: left})
		}
	}
	tflog.Info(ctx, "the API answered 429 to the start; waiting for its Retry-After", map[string]any{"retry_after": duration.Written(wait)})
	if sleepErr := clock.Sleep(ctx, d.clock, wait); sleepErr != nil {
		return poll.Permanent(err)
	}
	return nil
}

// startWait words a start that the API kept delaying until the operation's
// limit.
func startWait(domain string, name timeoutName, limit time.Duration) waitFailure {
	return waitFailure{
		subject: "the start of an export of " + domain,
		timeout: name,
		limit:   limit,
		onTimeout: "Nothing was started: the API answered 409, another export of the project was still running, and it allows one at a time. " +
			"Apply again once that export has ended, or raise the limit in the resource's timeouts block, for example " + string(name) + " = \"2h\"",
		onInterrupt: "Nothing was started",
	}
}

// startFailure explains a start that did not start an export, or may have.
func (d *providerData) startFailure(domain string, name timeoutName, limit time.Duration, err error) string {
	if text, ok := startWait(domain, name, limit).explain(err); ok {
		return text
	}
	var quota *startQuotaError
	if errors.As(err, &quota) {
		return fmt.Sprintf("Starting an export of %s: %s. Nothing was started: apply again %s, or raise %s.",
			domain, quota, quota.retryPhrase, name)
	}
	if client.MayHaveActed(err) {
		return fmt.Sprintf("Starting an export of %s failed after the request was sent: %s. The API may have started the export: "+
			"an answer such as a gateway's 502, 503 or 504 does not tell whether the request reached it, so "+
			"the request was not repeated and no second export is started. Look for the export on the dashboard; "+
			"run terraform apply again to start a new one.", domain, err)
	}
	text := fmt.Sprintf("Starting an export of %s failed: %s", domain, withHint(err))
	if client.Classify(err).Kind == client.KindNoSuchPath || client.IsRevisionUnavailable(err) {
		text += ". " + d.revisionHint()
	}
	return sentence(text) + " The API did not act on the request: no export was started."
}

// revisionHint says which revisions of the static export API were tried
// and how to use the other.
func (d *providerData) revisionHint() string {
	switch {
	case d.exportRevision == client.RevisionDomain:
		return "static_export_revision = \"domain\" pins the revision that exports a domain (POST /v1/static-export/jobs); " +
			"if this API scopes static export by project, set static_export_revision = \"project\" (or leave it unset) and project_id"
	case d.exportRevision == client.RevisionProject:
		return "static_export_revision = \"project\" pins the project-scoped revision (POST /v1/static-export/{projectId}/jobs): " +
			"check project_id, which must name a project of the key's organization, or leave static_export_revision unset to try the domain revision too"
	case d.projectID == "":
		return "Only the revision that exports a domain was tried, since no project_id is set: if this API scopes static export by project " +
			"(POST /v1/static-export/{projectId}/jobs), set project_id in the provider block or " + envProjectID
	}
	return "Both revisions of the static export API were tried: check base_url, and that project_id names a project of the key's organization"
}

// warnWholeProject warns that version and paths were not sent: the
// project-scoped revision exports the project's whole deployment.
func warnWholeProject(diags *diag.Diagnostics, m staticExportModel, r client.ExportRevision) {
	if r != client.RevisionProject {
		return
	}
	for _, setting := range []struct {
		name  string
		value attr.Value
	}{{"version", m.Version}, {"paths", m.Paths}} {
		if setting.value.IsNull() {
			continue
		}
		diags.AddAttributeWarning(path.Root(setting.name), setting.name+" is not sent: the API exports the whole project",
			"The API speaks the project-scoped revision of static export, which takes no request body: it exports the project's current deployment, "+
				"every page of its latest published version, whatever version and paths say. Remove "+setting.name+
				", or pin static_export_revision = \"domain\" if the API still serves the revision that exports a domain.")
	}
}
