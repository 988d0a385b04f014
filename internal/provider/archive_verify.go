package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
)

// verifyArchive downloads the archive behind link once, streaming, and
// checks that a deployment could serve it. Its errors name the job and the
// link's host, never the link itself; the caller says what happens next.
func (d *providerData) verifyArchive(ctx context.Context, jobID, link string) (archive.Summary, error) {
	// nil: archive.DownloadClient, which honours HTTPS_PROXY, NO_PROXY and
	// SSL_CERT_FILE, sends no Referer and refuses https to http redirects;
	// the download is bounded by ctx and the idle timeout, not a fixed one.
	sum, err := d.limits.Fetch(ctx, nil, link, nil)
	if err == nil {
		tflog.Info(ctx, "verified the export's archive", map[string]any{
			"job_id": jobID, "sha256": sum.SHA256, "size_bytes": sum.Size, "files": sum.Files,
		})
		return sum, nil
	}
	failure := archiveFailure{
		doing: "downloading the archive of export job " + jobID + " to verify it",
		use:   "a deployment",
		unreachable: "If this runner cannot reach the object storage that serves the archive, set verify_archive = false " +
			"(nothing is checked then)",
	}
	return sum, errors.New(failure.explain(d, link, err))
}

// archiveFailure words a failed download of an export's archive, for every
// place that downloads one (the export's verification, the file, the site,
// the manifest): the archive's refusal, with the setting whose cap it met;
// what the host answered; a local failure; a deadline, with the timeout
// that set it. Never the link itself.
type archiveFailure struct {
	doing string // what failed, such as "writing the archive of export job se_1 to a.tar.gz"
	use   string // what could not serve a refused archive, such as "a deployment"
	// unreachable is the advice when the host could not be read from.
	unreachable string
	// timeout and limit name the timeout that a deadline came from; nil
	// for a limit that no timeouts block sets.
	timeout fmt.Stringer
	limit   time.Duration
}

func (f archiveFailure) explain(d *providerData, link string, err error) string {
	err = bundlelink.WithoutLink(link, err)
	var refused *archive.Error
	var text string
	switch {
	case errors.As(err, &refused) && !errors.Is(err, archive.ErrRead):
		text = fmt.Sprintf("%s failed: it cannot be served to %s: %s", f.doing, f.use, err)
		if refused.Cap == archive.CapUnpackedBytes {
			text += fmt.Sprintf(". The cap is the provider's max_unpacked_bytes (now %d bytes): raise it if the site really is that large", d.limits.MaxUnpacked())
		}
	case errors.Is(err, context.DeadlineExceeded) && f.timeout != nil:
		text = fmt.Sprintf("%s failed: %s. It did not finish within %s = %s: raise it, for example %s = \"60m\"",
			f.doing, err, f.timeout, duration.Written(f.limit), f.timeout)
	case errors.Is(err, context.DeadlineExceeded):
		text = fmt.Sprintf("%s failed: %s. It did not finish within %s", f.doing, err, duration.Written(f.limit))
	default:
		text = fmt.Sprintf("%s failed: %s", f.doing, err)
		if f.unreachable != "" {
			text += ". " + f.unreachable
		}
	}
	return strings.ToUpper(text[:1]) + text[1:]
}
