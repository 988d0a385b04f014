package provider

import (
	"fmt"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
)

// agentJobProgressEvery is the longest the action stays silent while it
// waits for a job: an agent job may stay active for half an hour, and
// Terraform shows nothing of an action but its progress messages.
// Options.ProgressEvery shortens it in tests.
const agentJobProgressEvery = 30 * time.Second

// jobProgress words the action's progress messages about one agent job: a
// line at each status change and when a pull request appears, and a
// reminder of the status whenever every has passed since the last line.
// Messages name the job, its status, the time waited and the pull request,
// never the prompt.
//
// It is driven by the job's reads rather than by a timer of its own: agent
// jobs report no progress, so the poller reads them at least every
// poll.Policy.MaxInterval (8s by default), well within every, and the
// messages follow the provider's clock, fake in tests.
type jobProgress struct {
	send  func(string)
	now   func() time.Time
	every time.Duration

	jobID  string
	start  time.Time // when the action started waiting
	last   time.Time // when the last line was sent
	status client.AgentStatus
	prLink string
}

func newJobProgress(send func(string), now func() time.Time, every time.Duration) *jobProgress {
	t := now()
	return &jobProgress{send: send, now: now, every: every, start: t, last: t}
}

func (p *jobProgress) say(format string, args ...any) {
	p.last = p.now()
	p.send(fmt.Sprintf(format, args...))
}

func (p *jobProgress) elapsed() string {
	return duration.Written(p.now().Sub(p.start).Round(time.Second))
}

// started reports the answer of the create (or, with messaged, the
// message) call, or, with resumed, a job an earlier run left unfinished.
func (p *jobProgress) started(job *client.AgentJob, messaged, resumed bool) {
	p.jobID, p.status = job.ID, job.Status
	switch {
	case resumed:
		p.say("continuing agent job %s (status %s)", job.ID, statusText(job.Status))
	case messaged:
		p.say("sent the prompt to agent job %s (status %s)", job.ID, statusText(job.Status))
	default:
		p.say("created agent job %s (status %s)", job.ID, statusText(job.Status))
	}
	if job.PRLink != nil && *job.PRLink != "" {
		p.prLink = *job.PRLink
		p.say("agent job %s: pull request %s", job.ID, p.prLink)
	}
}

// seen reports what changed in job since the last read, or, when nothing
// did for every, that the job is still in its status.
func (p *jobProgress) seen(job *client.AgentJob) {
	changed := false
	if job.Status != p.status {
		p.status, changed = job.Status, true
		p.say("agent job %s is now %s after %s", p.jobID, statusText(job.Status), p.elapsed())
	}
	if p.prLink == "" && job.PRLink != nil && *job.PRLink != "" {
		p.prLink, changed = *job.PRLink, true
		p.say("agent job %s opened pull request %s", p.jobID, p.prLink)
	}
	if changed || p.now().Sub(p.last) < p.every {
		return
	}
	if p.prLink != "" {
		p.say("agent job %s is still %s after %s (pull request %s)", p.jobID, statusText(p.status), p.elapsed(), p.prLink)
		return
	}
	p.say("agent job %s is still %s after %s", p.jobID, statusText(p.status), p.elapsed())
}

// reportedPR reports whether a pull request link was sent.
func (p *jobProgress) reportedPR() bool { return p.prLink != "" }
