package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// Asking for a link to a completed export's archive, for every resource,
// data source and ephemeral resource that needs one, and the wording of a
// failure to get one.

// linkNotReadyError is a wait for a link that ended while the API still
// answered that the archive was not ready.
type linkNotReadyError struct {
	wait   error // how the wait ended
	answer error // the API's last 409
}

func (e *linkNotReadyError) Error() string {
	return fmt.Sprintf("%s. The API's last answer: %s", e.wait, e.answer)
}

func (e *linkNotReadyError) Unwrap() error { return e.wait }

// requestLink asks for a link to a completed export's archive. A 409 right
// after completion (or, in the project revision, a completed job without its
// link yet) means the archive is not ready yet, so it is asked again until
// ctx ends; other failures end the wait (the client already retried
// the transient ones). A wait that ends on a 409 returns a
// *linkNotReadyError.
func (d *providerData) requestLink(ctx context.Context, jobID string) (*client.StaticExportLink, error) {
	var link *client.StaticExportLink
	var lastConflict error
	_, err := poll.Until(ctx, d.pollPolicy([]string{"link not ready", "link ready"}), func(ctx context.Context) (poll.Observation, error) {
		l, err := d.client.CreateStaticExportLink(ctx, jobID)
		switch {
		case client.IsLinkNotReady(err):
			lastConflict = err
			return poll.Observation{Status: "link not ready"}, nil
		case err != nil:
			return poll.Observation{}, poll.Permanent(err)
		}
		if problem := d.sanitizer.SignedLink(l.BundleURL); problem != "" {
			// Neither stored nor fetched nor shown: the link is sensitive.
			return poll.Observation{}, poll.Permanent(fmt.Errorf("the API answered with a bundleUrl that cannot be used as bundle_url: %s; "+
				"it was neither stored nor fetched", problem))
		}
		link = l
		return poll.Observation{Status: "link ready", Final: true}, nil
	})
	if err != nil && lastConflict != nil {
		return nil, &linkNotReadyError{wait: err, answer: lastConflict}
	}
	return link, err
}

// completedExportLink generates a fresh link to the archive of a completed
// export, or adds an error saying why there is none and returns nil.
// Reading the job first turns "queued", "running" and "failed" into errors that
// say what to do, instead of the bundle endpoint's bare 409.
func (d *providerData) completedExportLink(ctx context.Context, jobID string, diags *diag.Diagnostics) *client.StaticExportLink {
	if !d.completedExport(ctx, jobID, diags) {
		return nil
	}

	// The link endpoint may answer 409 for a short while after a job completes.
	linkCtx, cancel := context.WithTimeout(ctx, bundleReadyTimeout)
	defer cancel()
	bundle, err := d.requestLink(linkCtx, jobID)
	if err != nil {
		wait := waitFailure{
			subject: "the bundle of export job " + jobID, timeout: fixedLimit("for a completed export's bundle"), limit: bundleReadyTimeout,
			onTimeout: "Run Terraform again in a few minutes",
		}
		diags.AddError(linkFailureSummary, linkFailure(jobID, wait, err))
		return nil
	}
	diags.Append(plainHTTPLinkWarning(bundle.BundleURL)...)
	return bundle
}

// completedExport reads the job (read scope is enough) and reports whether
// it completed, with an error that says why not.
func (d *providerData) completedExport(ctx context.Context, jobID string, diags *diag.Diagnostics) bool {
	job, err := d.client.GetStaticExport(ctx, jobID)
	if err != nil {
		diags.AddError(bundleErrorSummary(err), bundleJobReadError(jobID, err))
		return false
	}
	if problem := notBundleable(job, d.sanitizer); problem != "" {
		diags.AddError("Static export not ready for a bundle link", problem)
		return false
	}
	return true
}

// notBundleable explains why a job cannot be bundled yet, or returns "".
func notBundleable(job *client.StaticExportJob, s *redact.Sanitizer) string {
	switch job.Status {
	case client.ExportCompleted:
		return ""
	case client.ExportFailed:
		return fmt.Sprintf("Export job %s failed: %s. A failed export has no archive to link to; start a new export "+
			"(with the docsadmin_static_export resource, change its triggers) and pass the new job's id.", job.JobID, failureReason(job, s))
	}
	state := fmt.Sprintf("status %s", lineOf(s, string(job.Status)))
	if job.Progress != nil {
		state += fmt.Sprintf(", progress %.1f%%", clampPercent(*job.Progress))
	}
	return fmt.Sprintf("Export job %s is not completed yet: %s; wait for it, e.g. with the docsadmin_static_export resource "+
		"(which waits for completion) or the docsadmin_static_export data source (which reports its status), then run Terraform again.",
		job.JobID, state)
}

func bundleErrorSummary(err error) string {
	if client.IsNotFound(err) {
		return "Static export job not found"
	}
	return "Cannot read the static export job"
}

func bundleJobReadError(jobID string, err error) string {
	if client.IsNotFound(err) {
		return gone("export job "+jobID, err) + " Check the id; the API may also have stopped retaining an old job, in which case start a new export."
	}
	return fmt.Sprintf("Reading export job %s failed: %s", jobID, withHint(err))
}

// linkFailureSummary is the summary of every failed request for a link.
const linkFailureSummary = "Cannot generate the export's bundle link"

// linkFailure words a failed request for a fresh link to export job jobID,
// for every place that asks for one; wait words a wait that ended before
// the link.
func linkFailure(jobID string, wait waitFailure, err error) string {
	lastAnswer := ""
	var notReady *linkNotReadyError
	if errors.As(err, &notReady) {
		err, lastAnswer = notReady.wait, ". The API's last answer: "+notReady.answer.Error()
	}
	wait.onGone = "It disappeared before its link was generated; the API may have stopped retaining it: start a new export"
	wait.call = "generating a link for export job " + jobID
	return wait.describe(err) + lastAnswer
}
