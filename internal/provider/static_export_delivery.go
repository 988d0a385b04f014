package provider

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// importTimeout bounds an import, which has no timeouts block: the link
// request and the verifying download of a completed export.
const importTimeout = 30 * time.Minute

// deliveryFailure is a delivery that handed over no link, worded for a
// diagnostic; the caller adds what becomes of the export.
type deliveryFailure struct {
	summary string
	detail  string
}

// deliverBundle is the one delivery step of a completed export, for create,
// resume, update and import: a fresh link (the 409 the API answers for a
// short while after completion is waited out), the verifying download of the
// archive behind it when m verifies and no download verified this export
// yet, then the link and the archive's identity in m and the link's issue
// time in private state. On failure m is left as it was.
func (d *providerData) deliverBundle(ctx context.Context, m *staticExportModel, wait waitFailure, private privateSetter) (diag.Diagnostics, *deliveryFailure) {
	jobID := m.JobID.ValueString()
	link, err := d.requestLink(ctx, jobID)
	if err != nil {
		return nil, &deliveryFailure{linkFailureSummary, linkFailure(jobID, wait, err)}
	}
	diags := plainHTTPLinkWarning(link.BundleURL)
	verified := m.ArchiveSHA256
	if m.verifies() && (verified.IsNull() || verified.IsUnknown()) {
		sum, err := d.verifyArchive(ctx, jobID, link.BundleURL)
		if err != nil {
			return nil, &deliveryFailure{"The export's archive failed verification", err.Error()}
		}
		m.setArchive(sum)
	}
	issuedAt := d.now()
	m.setBundle(link, issuedAt)
	diags.Append(recordBundleIssued(ctx, private, issuedAt)...)
	return diags, nil
}

// plainHTTPLinkWarning warns of a link that carries the archive unencrypted
// across a network.
func plainHTTPLinkWarning(link string) diag.Diagnostics {
	u, err := url.Parse(link)
	if err != nil || !strings.EqualFold(u.Scheme, "http") || isLoopback(u.Hostname()) {
		return nil
	}
	return diag.Diagnostics{diag.NewWarningDiagnostic("Bundle link over plain HTTP",
		fmt.Sprintf("The API handed out a link to %s over plain http, which is not a loopback address: the archive crosses the network "+
			"unencrypted, where it can be read and altered on the way (verification checks its contents, not where they come from). "+
			"Object storage serves https; ask the API's operator why this link does not use it.", u.Host))}
}

// bundleWait words a failed wait for the link of export job jobID, bounded
// by the resource's timeout called name; the caller says what becomes of
// the export.
func bundleWait(jobID string, name timeoutName, limit time.Duration) waitFailure {
	return waitFailure{
		subject:   "the bundle of export job " + jobID,
		timeout:   name,
		limit:     limit,
		onTimeout: fmt.Sprintf("If this persists, raise the limit in the resource's timeouts block, for example %s = \"2h\"", string(name)),
	}
}

// importBundleWait words a failed wait for an imported export's link.
func importBundleWait(jobID string) waitFailure {
	return waitFailure{subject: "the bundle of export job " + jobID, timeout: fixedLimit("of an import"), limit: importTimeout}
}

// fixedLimit names, in a message, a limit that no timeouts block sets.
type fixedLimit string

func (l fixedLimit) String() string { return string(l) }

// stateKept words what becomes of an export in state whose delivery failed.
func (f *deliveryFailure) stateKept(jobID string) string {
	return fmt.Sprintf("%s. Export job %s is kept: run terraform apply again once the cause is fixed and the same export is used, no second export is started.",
		strings.TrimSuffix(f.detail, "."), jobID)
}

// notImported words what becomes of an import whose delivery failed.
func (f *deliveryFailure) notImported() string {
	return strings.TrimSuffix(f.detail, ".") + ". Nothing was imported: import again once the cause is fixed."
}
