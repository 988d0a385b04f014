package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
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
	var unservable *archive.Error
	if errors.As(err, &unservable) && !errors.Is(err, archive.ErrRead) {
		return sum, fmt.Errorf("the archive of export job %s cannot be served to a deployment: %w", jobID, err)
	}
	return sum, fmt.Errorf("downloading the archive of export job %s to verify it failed: %w. "+
		"If this runner cannot reach the object storage that serves the archive, set verify_archive = false (nothing is checked then)", jobID, err)
}
