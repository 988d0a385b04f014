package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// exportWait words a failed wait on an export job, or on its link, bounded
// by the resource's timeout called name.
func exportWait(subject string, name timeoutName, limit time.Duration) waitFailure {
	return waitFailure{
		subject: subject,
		timeout: name,
		limit:   limit,
		onTimeout: fmt.Sprintf("The job keeps running on the server and its id is saved in state: run terraform apply again to continue with the same job "+
			"(no second export is started), or raise the limit in the resource's timeouts block, for example %s = \"2h\"", string(name)),
		onInterrupt: "The job id is saved in state: the next terraform apply continues with the same job",
		onGone:      "It disappeared while being awaited; the API may have expired it: run terraform apply again to start a new export",
	}
}

// waitForCompletion polls an export job until it completes or fails. seen,
// if not nil, is the job as an answer of a moment ago gave it (the start, or
// the read that found it): it counts as the first poll, which saves a
// request per export. It returns the last job seen (also on error) so that
// state can record it.
func (r *staticExportResource) waitForCompletion(ctx context.Context, jobID string, seen *client.StaticExportJob, name timeoutName, limit time.Duration) (*client.StaticExportJob, error) {
	last := seen
	changes := r.data.statusLog("export job "+jobID, map[string]any{"job_id": jobID})
	check := func(ctx context.Context) (poll.Observation, error) {
		job, err := r.data.client.GetStaticExport(ctx, jobID)
		if err != nil {
			return poll.Observation{}, transientOrPermanent(err)
		}
		last = job
		obs := exportObservation(job, r.data.sanitizer)
		changes.note(ctx, obs)
		return obs, nil
	}
	policy := r.data.pollPolicy(client.KnownExportStatuses)
	var err error
	if seen != nil {
		first := exportObservation(seen, r.data.sanitizer)
		changes.note(ctx, first)
		_, err = poll.UntilFrom(ctx, policy, first, check)
	} else {
		_, err = poll.Until(ctx, policy, check)
	}
	if err != nil {
		return last, errors.New(exportWait("export job "+jobID, name, limit).describe(err))
	}
	if last.Status == client.ExportFailed {
		return last, fmt.Errorf("export job %s failed: %s. Fix the cause and run terraform apply again: the failed job is not resumed, a new export is started", jobID, failureReason(last, r.data.sanitizer))
	}
	return last, nil
}

// failureReason is the API's reason for a failed export, sanitized.
func failureReason(job *client.StaticExportJob, s *redact.Sanitizer) string {
	if job.Error != nil && *job.Error != "" {
		return s.Message(*job.Error)
	}
	return "the API gave no reason"
}

func exportObservation(job *client.StaticExportJob, s *redact.Sanitizer) poll.Observation {
	obs := poll.Observation{Status: lineOf(s, string(job.Status)), Final: job.Status.Final(), Progress: job.Progress}
	if job.PageCount != nil {
		obs.Counts = []poll.Count{{Thing: "page", N: int(*job.PageCount)}}
	}
	return obs
}
