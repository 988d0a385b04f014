package provider

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// agentJobRun is one prompt sent to an agent job, by the action or by the
// resource: a new job, or a follow-up message to an existing one.
type agentJobRun struct {
	projectID string
	jobID     string // the job to message; "" starts a new job
	prompt    string
	// resumed, if not nil, is a job that an earlier run started with the same
	// prompt and left unfinished: it is followed instead of sending the
	// prompt again.
	resumed *client.AgentJob
	wait    bool
	limit   time.Duration
	timeout fmt.Stringer // the setting that bounds the wait, such as "timeout" or timeouts.create
	// say reports progress to the user; the action sends progress events,
	// the resource logs them.
	say func(string)
	// started, if not nil, receives the job once the API named it, before
	// any wait, so that a resource saves its id first.
	started func(*client.AgentJob)
	// rerun is what the user would do to try again, such as "invoking the
	// action again"; afterInterrupt, afterFailure and afterEnded (a job
	// archived with a status the provider does not know) say what happens
	// then.
	rerun          string
	afterInterrupt string
	afterFailure   string
	afterEnded     string
}

// runAgentJob sends the prompt (unless it resumes a job) and, with wait,
// follows the job until its status is final, reporting its progress. It
// returns the job as last seen, nil when none was started; every failure is
// in diags, a failed job included.
func (d *providerData) runAgentJob(ctx context.Context, run agentJobRun, diags *diag.Diagnostics) *client.AgentJob {
	ctx = maskPrompt(ctx, run.prompt)
	// Known before it is sent: an answer that quotes it is redacted.
	d.sanitizer.AddPrompt(run.prompt)
	job := run.resumed
	if job == nil {
		tflog.Info(ctx, "sending a prompt to an agent job", map[string]any{
			"project_id":    run.projectID,
			"job_id":        run.jobID,
			"prompt_length": utf8.RuneCountInString(run.prompt),
			"prompt_start":  redact.PromptStart(run.prompt),
		})
		callCtx, cancel := context.WithTimeout(ctx, agentJobCallLimit)
		var err error
		if run.jobID == "" {
			job, err = d.client.CreateAgentJob(callCtx, run.projectID, run.prompt)
		} else {
			job, err = d.client.SendAgentJobMessage(callCtx, run.projectID, run.jobID, run.prompt)
		}
		cancel()
		if err != nil {
			d.agentJobCallError(diags, run, err)
			return nil
		}
		warnMalformed(diags, "the prompt for project "+run.projectID, job.Malformed)
		if job.ID == "" {
			diags.AddError("Cannot start the agent job",
				fmt.Sprintf("The API accepted the prompt for project %s but its answer named no job id, so the job cannot be followed. Look for it on the dashboard.", run.projectID))
			return nil
		}
	}
	if run.started != nil {
		run.started(job)
	}
	progress := newJobProgress(run.say, d.now, d.progressEvery)
	progress.started(d.shownJob(job), run.jobID != "", run.resumed != nil)

	if run.wait {
		wait := waitFailure{subject: fmt.Sprintf("agent job %s in project %s", job.ID, run.projectID), timeout: run.timeout, limit: run.limit,
			onTimeout: fmt.Sprintf("The job keeps running on the server: raise %s, or follow it with the docsadmin_agent_job data source (job_id = %q)", run.timeout, job.ID),
			onInterrupt: fmt.Sprintf("The job keeps running on the server: follow it with the docsadmin_agent_job data source (job_id = %q); %s",
				job.ID, run.afterInterrupt),
			onGone: agentJobGone}
		last, err := d.waitForAgentJob(ctx, run.projectID, job.ID, run.limit, job, progress.seen, run.afterEnded)
		if last != nil {
			job = last
		}
		if err != nil {
			diags.AddError("Cannot follow the agent job", wait.describe(err))
			return job
		}
	}

	switch job.Status {
	case client.AgentFailed:
		diags.AddError("Agent job failed",
			fmt.Sprintf("Agent job %s in project %s failed; the API reports no reason for agent jobs: see the job on the dashboard. %s",
				job.ID, run.projectID, run.afterFailure))
	case client.AgentCompleted, client.AgentArchived:
		if !progress.reportedPR() {
			progress.say("agent job %s is %s without a pull request (no file changed)", job.ID, d.apiLine(string(job.Status)))
		}
	}
	return job
}

// agentJobCallError words a failed create or message call.
func (d *providerData) agentJobCallError(diags *diag.Diagnostics, run agentJobRun, err error) {
	summary, subject := "Cannot start the agent job", "a new agent job in project "+run.projectID
	if run.jobID != "" {
		summary, subject = "Cannot send the prompt to the agent job", fmt.Sprintf("agent job %s in project %s", run.jobID, run.projectID)
	}
	var detail string
	switch {
	case client.Classify(err).Kind == client.KindRateLimited:
		detail = fmt.Sprintf("The API refused %s: %s. It accepts at most %d agent job creations per project per hour, "+
			"and may limit messages too. %s; nothing was started.", subject, err, agentJobCreationsPerHour, d.tryAgain(err))
	case run.jobID != "" && client.IsNotFound(err):
		detail = gone(subject, err) + " Check job_id and project_id (shown on the dashboard's API keys page), or remove job_id to start a new job."
	case client.MayHaveActed(err):
		detail = fmt.Sprintf("Sending the prompt for %s failed in a way that does not tell whether the API acted on it: %s. "+
			"Look on the dashboard before %s, or a second job may start.", subject, clause(withHint(err)), run.rerun)
	default:
		detail = fmt.Sprintf("Sending the prompt for %s failed: %s", subject, withHint(err))
	}
	diags.AddError(summary, detail)
}

// agentJobGone says what to do about an agent job the API does not know.
const agentJobGone = "Check the job id and the project id (shown on the dashboard's API keys page)"
