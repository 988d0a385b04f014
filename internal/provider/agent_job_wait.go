package provider

import (
	"context"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// waitForAgentJob polls an agent job until its status is final, for at most
// limit. first, if not nil, is the job as an answer of a moment ago gave it
// (the create or message call): it counts as the first poll. seen, if not
// nil, is called with every job read, first included, so that a caller can
// report changes as they happen. It returns the last job read, also on
// error (nil when none was), and the poller's error for waitFailure to word.
// ended says what to do about a job archived with a status the provider
// does not know, which ends the wait at once.
func (d *providerData) waitForAgentJob(ctx context.Context, projectID, jobID string, limit time.Duration,
	first *client.AgentJob, seen func(*client.AgentJob), ended string) (*client.AgentJob, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()

	last := first
	changes := d.statusLog("agent job "+jobID, map[string]any{"project_id": projectID, "job_id": jobID})
	observe := func(job *client.AgentJob) poll.Observation {
		last = job
		if seen != nil {
			seen(d.shownJob(job))
		}
		obs := poll.Observation{Status: d.apiLine(string(job.Status)), Final: job.Status.Final()}
		changes.note(ctx, obs)
		return obs
	}
	check := func(ctx context.Context) (poll.Observation, error) {
		job, err := d.client.GetAgentJob(ctx, projectID, jobID)
		if err != nil {
			return poll.Observation{}, transientOrPermanent(err)
		}
		obs := observe(job)
		if job.EndedUnknown() {
			return obs, poll.Permanent(&unknownEndError{subject: "agent job " + jobID, status: d.apiLine(string(job.Status)), known: client.KnownAgentStatuses,
				field: "archiving time (archivedAt)", next: ended})
		}
		return obs, nil
	}
	policy := d.pollPolicy(client.KnownAgentStatuses)
	var err error
	if first != nil {
		_, err = poll.UntilFrom(ctx, policy, observe(first), check)
	} else {
		_, err = poll.Until(ctx, policy, check)
	}
	return last, err
}
