package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

// pollPolicy is the provider's polling policy for one kind of wait.
func (d *providerData) pollPolicy(knownStatuses []string) poll.Policy {
	p := d.policy
	p.Clock = d.clock
	p.KnownStatuses = knownStatuses
	p.Logf = tflogLogger{}.Debug
	return p
}

// waitForCompletion polls an export job until it completes or fails. seen,
// if not nil, is the job as an answer of a moment ago gave it (the start, or
// the read that found it): it counts as the first poll, which saves a
// request per export. It returns the last job seen (also on error) so that
// state can record it.
func (r *staticExportResource) waitForCompletion(ctx context.Context, jobID string, seen *client.StaticExportJob, timeoutName string, limit time.Duration) (*client.StaticExportJob, error) {
	last := seen
	check := func(ctx context.Context) (poll.Observation, error) {
		job, err := r.data.client.GetStaticExport(ctx, jobID)
		if err != nil {
			if client.IsTransient(err) {
				return poll.Observation{}, err
			}
			return poll.Observation{}, poll.Permanent(err)
		}
		last = job
		return exportObservation(job), nil
	}
	policy := r.data.pollPolicy(client.KnownExportStatuses)
	var err error
	if seen != nil {
		_, err = poll.UntilAfter(ctx, policy, exportObservation(seen), check)
	} else {
		_, err = poll.Until(ctx, policy, check)
	}
	if err != nil {
		return last, waitError("export job "+jobID, timeoutName, limit, err)
	}
	if last.Status == client.ExportFailed {
		return last, fmt.Errorf("export job %s failed: %s. Fix the cause and run terraform apply again: the failed job is not resumed, a new export is started", jobID, failureReason(last))
	}
	return last, nil
}

func failureReason(job *client.StaticExportJob) string {
	if job.Error != nil && *job.Error != "" {
		return *job.Error
	}
	return "the API gave no reason"
}

func exportObservation(job *client.StaticExportJob) poll.Observation {
	obs := poll.Observation{Status: string(job.Status), Final: job.Status.Final(), Progress: job.Progress}
	if job.PageCount != nil {
		pages := int(*job.PageCount)
		obs.PageCount = &pages
	}
	return obs
}

// requestBundle asks for a link to a completed export. A 409 right after
// completion means the archive is not ready yet, so it is asked again until
// ctx ends; other failures end the wait (the client already retried the
// transient ones). On failure it also returns the last 409, for messages.
func (d *providerData) requestBundle(ctx context.Context, jobID string) (bundle *client.StaticExportLink, lastConflict, err error) {
	_, err = poll.Until(ctx, d.pollPolicy([]string{"bundle not ready", "bundle ready"}), func(ctx context.Context) (poll.Observation, error) {
		b, err := d.client.CreateStaticExportLink(ctx, jobID)
		switch {
		case client.IsConflict(err):
			lastConflict = err
			return poll.Observation{Status: "bundle not ready"}, nil
		case err != nil:
			return poll.Observation{}, poll.Permanent(err)
		}
		bundle = b
		return poll.Observation{Status: "bundle ready", Final: true}, nil
	})
	return bundle, lastConflict, err
}

// generateBundle is requestBundle with the resource's error messages.
func (r *staticExportResource) generateBundle(ctx context.Context, jobID, timeoutName string, limit time.Duration) (*client.StaticExportLink, error) {
	bundle, lastConflict, err := r.data.requestBundle(ctx, jobID)
	if err != nil {
		err = waitError("the bundle of export job "+jobID, timeoutName, limit, err)
		if lastConflict != nil {
			err = fmt.Errorf("%w. The API's last answer: %s", err, lastConflict)
		}
		return nil, err
	}
	return bundle, nil
}

// waitError turns a failed wait into a message that names what was awaited,
// the last state seen, the time waited and what to do next.
func waitError(subject, timeoutName string, limit time.Duration, err error) error {
	var timeout *poll.TimeoutError
	var budget *poll.ErrorBudgetError
	switch {
	case errors.As(err, &timeout) && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("waiting for %s timed out after %s (limit %s = %s); last seen: %s. "+
			"The job keeps running on the server and its id is saved in state: run terraform apply again to continue with the same job "+
			"(no second export is started), or raise the limit in the resource's timeouts block, for example %s = \"2h\"",
			subject, timeout.Waited.Round(time.Second), timeoutName, limit, lastSeen(timeout.Last, timeout.Seen), timeoutField(timeoutName))
	case errors.As(err, &timeout):
		return fmt.Errorf("waiting for %s was interrupted after %s; last seen: %s. "+
			"The job id is saved in state: the next terraform apply continues with the same job",
			subject, timeout.Waited.Round(time.Second), lastSeen(timeout.Last, timeout.Seen))
	case errors.As(err, &budget):
		return fmt.Errorf("reading %s failed %d times in a row over %s; last seen: %s; last error: %s",
			subject, budget.Errors, budget.Waited.Round(time.Second), lastSeen(budget.Last, budget.Seen), withHint(budget.Err))
	case client.IsNotFound(err):
		return fmt.Errorf("%s disappeared while being awaited: %s. The API may have expired it; run terraform apply again to start a new export", subject, err)
	}
	return fmt.Errorf("reading %s failed: %s", subject, withHint(err))
}

func timeoutField(name string) string {
	return strings.TrimPrefix(name, "timeouts.")
}

func lastSeen(obs poll.Observation, seen bool) string {
	if !seen {
		return "nothing (no poll succeeded)"
	}
	text := fmt.Sprintf("status %q", obs.Status)
	if obs.Progress != nil {
		text += fmt.Sprintf(", progress %.1f%%", *obs.Progress)
	}
	if obs.PageCount != nil {
		text += fmt.Sprintf(", %d pages", *obs.PageCount)
	}
	return text
}

// withHint appends what the user can do about an API error.
func withHint(err error) string {
	if hint := client.Hint(err); hint != "" {
		return err.Error() + ". " + hint
	}
	return err.Error()
}

// startErrorDetail explains a failed start, including whether an export may
// have been started anyway.
func startErrorDetail(domain string, err error) string {
	if startMayHaveActed(err) {
		return fmt.Sprintf("Starting an export of %s failed after the request was sent: %s. The API may have started the export; "+
			"the request was not repeated so that no second export is started. Run terraform apply again to start a new one.", domain, err)
	}
	if client.IsConflict(err) {
		return fmt.Sprintf("Starting an export of %s failed: %s. An export of this domain is still running: wait for it to finish, "+
			"or manage it with an import of <domain>/<job_id>, then apply again.", domain, err)
	}
	return fmt.Sprintf("Starting an export of %s failed: %s", domain, withHint(err))
}

// startMayHaveActed tells whether a failed start may nonetheless have started
// an export: the connection broke after sending, the server failed in a way
// that does not promise it did nothing (a 5xx other than 503 with
// Retry-After), or it answered 2xx with a body that could not be read.
func startMayHaveActed(err error) bool {
	var reqErr *client.RequestError
	if errors.As(err, &reqErr) {
		return reqErr.MaybeProcessed
	}
	var apiErr *client.APIError
	if !errors.As(err, &apiErr) {
		return false
	}
	switch code := apiErr.StatusCode; {
	case code == http.StatusServiceUnavailable && apiErr.RetryAfter > 0:
		return false
	case code >= 500, code >= 200 && code < 300:
		return true
	}
	return false
}
