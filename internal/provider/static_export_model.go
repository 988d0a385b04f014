package provider

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

type staticExportModel struct {
	ID              types.String   `tfsdk:"id"`
	Domain          types.String   `tfsdk:"domain"`
	Version         types.String   `tfsdk:"version"`
	Paths           types.List     `tfsdk:"paths"`
	Triggers        types.Map      `tfsdk:"triggers"`
	RenewBefore     types.String   `tfsdk:"renew_before"`
	RenewTriggers   types.Map      `tfsdk:"renew_triggers"`
	VerifyArchive   types.Bool     `tfsdk:"verify_archive"`
	JobID           types.String   `tfsdk:"job_id"`
	APIRevision     types.String   `tfsdk:"api_revision"`
	Status          types.String   `tfsdk:"status"`
	Progress        types.Float64  `tfsdk:"progress"`
	PageCount       types.Int64    `tfsdk:"page_count"`
	CreatedAt       types.String   `tfsdk:"created_at"`
	BundleURL       types.String   `tfsdk:"bundle_url"`
	BundleSizeBytes types.Int64    `tfsdk:"bundle_size_bytes"`
	BundleExpiresAt types.String   `tfsdk:"bundle_expires_at"`
	ReadyForRenewal types.Bool     `tfsdk:"ready_for_renewal"`
	LinkRevision    types.Int64    `tfsdk:"link_revision"`
	ArchiveSHA256   types.String   `tfsdk:"archive_sha256"`
	ArchiveMD5      types.String   `tfsdk:"archive_md5"`
	ArchiveMD5B64   types.String   `tfsdk:"archive_md5_base64"`
	ArchiveSize     types.Int64    `tfsdk:"archive_size_bytes"`
	ArchiveFiles    types.Int64    `tfsdk:"archive_file_count"`
	Timeouts        timeouts.Value `tfsdk:"timeouts"`
}

// named names the export in a message: "Export job se_1 of docs.example.com".
func (m staticExportModel) named() string {
	return "Export job " + m.JobID.ValueString() + " of " + m.Domain.ValueString()
}

// exportInputs are the settings that define an export.
type exportInputs struct {
	Domain   string
	Version  string
	Paths    []string
	Triggers map[string]string
}

func (m staticExportModel) inputs(ctx context.Context) (exportInputs, diag.Diagnostics) {
	var diags diag.Diagnostics
	in := exportInputs{Domain: m.Domain.ValueString(), Version: m.Version.ValueString()}
	if !m.Paths.IsNull() && !m.Paths.IsUnknown() {
		diags.Append(m.Paths.ElementsAs(ctx, &in.Paths, false)...)
	}
	if !m.Triggers.IsNull() && !m.Triggers.IsUnknown() && len(m.Triggers.Elements()) > 0 {
		diags.Append(m.Triggers.ElementsAs(ctx, &in.Triggers, false)...)
	}
	return in, diags
}

func (in exportInputs) request() client.StartStaticExportRequest {
	return client.StartStaticExportRequest{Domain: in.Domain, Version: in.Version, Paths: in.Paths}
}

// setJob copies what the API reported of a job, its text through the
// provider's sanitizer. Fields it left out keep their earlier value rather
// than turning null mid-run.
func (m *staticExportModel) setJob(job *client.StaticExportJob, d *providerData) {
	m.ID = types.StringValue(job.JobID)
	m.JobID = types.StringValue(job.JobID)
	if job.Revision != "" {
		m.APIRevision = types.StringValue(string(job.Revision))
	} else if m.APIRevision.IsUnknown() {
		m.APIRevision = types.StringNull()
	}
	m.Status = types.StringValue(d.apiLine(string(job.Status)))
	if job.Progress != nil {
		m.Progress = types.Float64Value(clampPercent(*job.Progress))
	} else if m.Progress.IsUnknown() {
		m.Progress = types.Float64Null()
	}
	if job.PageCount != nil {
		m.PageCount = types.Int64Value(*job.PageCount)
	} else if m.PageCount.IsUnknown() {
		m.PageCount = types.Int64Null()
	}
	if job.CreatedAt != nil {
		m.CreatedAt = types.StringValue(job.CreatedAt.Format(time.RFC3339))
	} else if m.CreatedAt.IsUnknown() {
		m.CreatedAt = types.StringNull()
	}
}

func clampPercent(p float64) float64 {
	return min(max(p, 0), 100)
}

func (m *staticExportModel) clearBundle() {
	m.LinkRevision = types.Int64Null()
	m.BundleURL = types.StringNull()
	m.BundleSizeBytes = types.Int64Null()
	m.BundleExpiresAt = types.StringNull()
	m.ReadyForRenewal = types.BoolValue(false)
}

// planNewLink plans a link that the apply asks for.
func (m *staticExportModel) planNewLink() {
	m.BundleURL = types.StringUnknown()
	m.BundleSizeBytes = types.Int64Unknown()
	m.BundleExpiresAt = types.StringUnknown()
	m.LinkRevision = types.Int64Unknown()
	m.ReadyForRenewal = types.BoolValue(false)
}

// planNewArchive plans an archive that the apply verifies.
func (m *staticExportModel) planNewArchive() {
	m.ArchiveSHA256 = types.StringUnknown()
	m.ArchiveMD5 = types.StringUnknown()
	m.ArchiveMD5B64 = types.StringUnknown()
	m.ArchiveSize = types.Int64Unknown()
	m.ArchiveFiles = types.Int64Unknown()
}

// setBundle records a fresh link, issued at issuedAt, and its expiry: the
// API's expiresAt, else what the presigned query says, else unknown (and so
// never renewed). The link's revision rises.
func (m *staticExportModel) setBundle(b *client.StaticExportLink, issuedAt time.Time) {
	m.LinkRevision = types.Int64Value(nextLinkRevision(m.LinkRevision, issuedAt))
	m.BundleURL = types.StringValue(b.BundleURL)
	m.BundleSizeBytes = types.Int64PointerValue(b.SizeBytes)
	m.BundleExpiresAt = types.StringNull()
	if expiry, ok := bundleExpiry(b); ok {
		m.BundleExpiresAt = types.StringValue(expiry.Format(time.RFC3339))
	}
	m.ReadyForRenewal = types.BoolValue(false)
}

// nextLinkRevision is the revision of a link issued at issuedAt: the time in
// milliseconds since 1970, and in any case higher than the previous
// revision, so that it never goes down, also when a new export replaces the
// resource (its revision starts from the time) or the clock steps back.
func nextLinkRevision(previous types.Int64, issuedAt time.Time) int64 {
	revision := issuedAt.UnixMilli()
	if !previous.IsNull() && !previous.IsUnknown() {
		revision = max(revision, previous.ValueInt64()+1)
	}
	return revision
}

func bundleExpiry(b *client.StaticExportLink) (time.Time, bool) {
	if b.ExpiresAt != nil {
		return b.ExpiresAt.UTC(), true
	}
	expiry, err := bundlelink.Expiry(b.BundleURL)
	return expiry, err == nil
}

func (m *staticExportModel) copyJobFrom(s staticExportModel) {
	m.ID, m.JobID, m.Status, m.Progress, m.PageCount, m.CreatedAt = s.ID, s.JobID, s.Status, s.Progress, s.PageCount, s.CreatedAt
	m.APIRevision = s.APIRevision
}

// copyLinkFrom keeps the link in s.
func (m *staticExportModel) copyLinkFrom(s staticExportModel) {
	m.BundleURL, m.BundleSizeBytes, m.BundleExpiresAt = s.BundleURL, s.BundleSizeBytes, s.BundleExpiresAt
	m.LinkRevision, m.ReadyForRenewal = s.LinkRevision, s.ReadyForRenewal
}

// setArchive records the identity of the archive a download verified.
func (m *staticExportModel) setArchive(sum archive.Summary) {
	m.ArchiveSHA256 = types.StringValue(sum.SHA256)
	m.ArchiveMD5 = types.StringValue(sum.MD5)
	m.ArchiveMD5B64 = md5Base64(sum.MD5)
	m.ArchiveSize = types.Int64Value(sum.Size)
	m.ArchiveFiles = types.Int64Value(int64(sum.Files))
}

// md5Base64 is an MD5 in hex as base64, null when it is not one.
func md5Base64(hexMD5 string) types.String {
	if raw, err := hex.DecodeString(hexMD5); err == nil && len(raw) == md5.Size {
		return types.StringValue(base64.StdEncoding.EncodeToString(raw))
	}
	return types.StringNull()
}

// clearArchive forgets the archive's identity: nothing verified it (yet).
func (m *staticExportModel) clearArchive() {
	m.ArchiveSHA256 = types.StringNull()
	m.ArchiveMD5 = types.StringNull()
	m.ArchiveMD5B64 = types.StringNull()
	m.ArchiveSize = types.Int64Null()
	m.ArchiveFiles = types.Int64Null()
}

// copyArchiveFrom keeps the identity of the archive in s: a renewed link
// serves the same files.
func (m *staticExportModel) copyArchiveFrom(s staticExportModel) {
	m.ArchiveSHA256, m.ArchiveSize, m.ArchiveFiles = s.ArchiveSHA256, s.ArchiveSize, s.ArchiveFiles
	m.ArchiveMD5, m.ArchiveMD5B64 = s.ArchiveMD5, s.ArchiveMD5B64
}

// verifies tells whether completed exports are downloaded and checked.
func (m staticExportModel) verifies() bool {
	return m.VerifyArchive.IsNull() || m.VerifyArchive.IsUnknown() || m.VerifyArchive.ValueBool()
}

// renewalWindow is how long before expiry a link is renewed: renew_before as
// written when the user set it; otherwise the default, capped at half the
// link's lifetime when its issue time is known, so that a link that lives
// shorter than the default is not renewed on every plan.
func renewalWindow(m staticExportModel, lifetime time.Duration) time.Duration {
	if window, err := time.ParseDuration(m.RenewBefore.ValueString()); err == nil && !m.RenewBefore.IsNull() && !m.RenewBefore.IsUnknown() {
		return window
	}
	if half := lifetime / 2; half > 0 && half < defaultRenewBefore {
		return half
	}
	return defaultRenewBefore
}

// linkExpiry is when the link in m stops working, if known.
func linkExpiry(m staticExportModel) (time.Time, bool) {
	if m.BundleExpiresAt.IsNull() || m.BundleExpiresAt.IsUnknown() {
		return time.Time{}, false
	}
	expiry, err := time.Parse(time.RFC3339, m.BundleExpiresAt.ValueString())
	return expiry, err == nil
}

// linkLifetime is how long the link in m lives from issue to expiry, or 0
// when either end is unknown.
func linkLifetime(m staticExportModel, issuedAt *time.Time) time.Duration {
	expiry, ok := linkExpiry(m)
	if !ok || issuedAt == nil {
		return 0
	}
	return max(expiry.Sub(*issuedAt), 0)
}

// renewalDue tells whether the link in m has expired or expires within the
// renewal window at now.
func renewalDue(m staticExportModel, now time.Time, issuedAt *time.Time) bool {
	expiry, ok := linkExpiry(m)
	if !ok {
		return false
	}
	return !now.Before(expiry.Add(-renewalWindow(m, linkLifetime(m, issuedAt))))
}

// timeoutsAttrTypes is the shape of the resource's timeouts block, for state
// written by import, where no configuration is at hand.
var timeoutsAttrTypes = map[string]attr.Type{
	"create": types.StringType,
	"read":   types.StringType,
	"update": types.StringType,
}
