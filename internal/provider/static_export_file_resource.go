package provider

import (
	"bufio"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
)

const (
	defaultFilePermission    = "0644"
	defaultFileCreateTimeout = 30 * time.Minute
	// fileWriteBuffer batches the download's small writes into fewer system calls.
	fileWriteBuffer = 256 << 10
)

var (
	_ resource.ResourceWithConfigure      = (*staticExportFileResource)(nil)
	_ resource.ResourceWithValidateConfig = (*staticExportFileResource)(nil)
)

// NewStaticExportFileResource is the docsadmin_static_export_file resource.
func NewStaticExportFileResource() resource.Resource { return &staticExportFileResource{} }

// staticExportFileResource writes an export's archive to a local file, in
// the manner of local_file: Read checks the file on disk and forgets it when
// it is gone or changed, so that the next plan writes it again.
type staticExportFileResource struct {
	data *providerData
}

type staticExportFileModel struct {
	ID             types.String   `tfsdk:"id"`
	JobID          types.String   `tfsdk:"job_id"`
	Filename       types.String   `tfsdk:"filename"`
	ExpectedSHA256 types.String   `tfsdk:"expected_sha256"`
	FilePermission types.String   `tfsdk:"file_permission"`
	SHA256         types.String   `tfsdk:"sha256"`
	MD5            types.String   `tfsdk:"md5"`
	SizeBytes      types.Int64    `tfsdk:"size_bytes"`
	FileCount      types.Int64    `tfsdk:"file_count"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
}

func (r *staticExportFileResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_static_export_file"
}

func (r *staticExportFileResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := func() []planmodifier.String { return []planmodifier.String{stringplanmodifier.RequiresReplace()} }
	resp.Schema = schema.Schema{
		MarkdownDescription: "Downloads the archive of a completed static export to a local file, verified, for a durable copy: " +
			"a mirror in your own storage, or a transfer into an air-gapped network. Apply generates a fresh link itself (a link " +
			"in state may have expired), streams the archive to a temporary file next to `filename` while checking that a " +
			"deployment can unpack and serve it, compares it with `expected_sha256` when set, and only then moves it into place. " +
			"Like `local_file`, refresh checks the file on disk without any request: when it is missing (a fresh CI runner) or its " +
			"content changed, the resource leaves the state and the next apply downloads it again. Destroy deletes the file when it " +
			"is still the archive written; another file at `filename` is left, with a warning.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The SHA-256 of the file (same as `sha256`), as `local_file`'s id is a digest of its content.",
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"job_id": completedJobIDAttribute("Changing it downloads the new export's archive."),
			"filename": schema.StringAttribute{
				MarkdownDescription: "Path of the file to write, such as `\"${path.module}/dist/docs-bundle.tar.gz\"`; a relative path is " +
					"relative to the directory Terraform runs in. Missing parent directories are created. Changing it writes a new file " +
					"and deletes the old one.",
				Required:      true,
				Validators:    []validator.String{stringCheck{summary: "Invalid filename", description: "must be a file path", check: filenameProblem}},
				PlanModifiers: replace(),
			},
			"expected_sha256": expectedSHA256Attribute("SHA-256 the archive must have, as 64 hexadecimal digits, for example " +
				"`docsadmin_static_export.docs.archive_sha256` or a digest recorded where the export was verified. A download " +
				"with another digest fails and writes nothing. When set, `sha256` is known already in the plan that writes the file. Default: no comparison " +
				"(the archive is still verified)."),
			"file_permission": schema.StringAttribute{
				MarkdownDescription: "Permission of the file, as an octal string such as `\"0644\"` or `\"0600\"`. Changing it writes the file " +
					"again. Default: `\"" + defaultFilePermission + "\"`.",
				Optional:      true,
				Computed:      true,
				Default:       stringdefault.StaticString(defaultFilePermission),
				Validators:    []validator.String{stringCheck{summary: "Invalid file permission", description: "must be an octal permission such as 0644", check: filePermissionProblem}},
				PlanModifiers: replace(),
			},
			"sha256": schema.StringAttribute{
				MarkdownDescription: "Lower-case hex SHA-256 of the file, that is of the archive as served. Feed it to an upload's checksum " +
					"argument (such as `source_hash` of `aws_s3_object`) so that the upload happens only when the content changes.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{expectedDigestPlan{}, stringplanmodifier.UseStateForUnknown()},
			},
			"md5": schema.StringAttribute{
				MarkdownDescription: "Lower-case hex MD5 of the file, the value `filemd5(filename)` would give, but known without reading the file " +
					"at plan time (where, on a fresh runner, it does not exist yet). For arguments that take an MD5 in hex, such as " +
					"`content_md5` of `azurerm_storage_blob`; `source_md5hash` of `google_storage_bucket_object` is documented as base64: " +
					"use the export's `archive_md5_base64` there.",
				Computed:      true,
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"size_bytes": useStateInt64Attribute("Size of the file, in bytes."),
			"file_count": useStateInt64Attribute("Number of regular files in the archive."),
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create:            true,
				CreateDescription: "Longest time for generating the link and downloading the archive, as a duration such as `45m`. Default: `" + duration.Written(defaultFileCreateTimeout) + "`.",
			}),
		},
	}
}

// ValidateConfig refuses timeouts under a second at plan time (validateTimeouts).
func (r *staticExportFileResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(validateTimeouts[timeouts.Value](ctx, req.Config)...)
}

func (r *staticExportFileResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *staticExportFileResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan staticExportFileModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, limit, ok := beginOperation(ctx, r.data, "the export's archive cannot be downloaded", plan.Timeouts.Create, defaultFileCreateTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()

	jobID, filename := plan.JobID.ValueString(), plan.Filename.ValueString()
	// One handle of the file's directory for everything that follows: its
	// path is resolved once.
	dir, name, err := openFileDir(filename)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("filename"), "Cannot write the static export's archive", err.Error())
		return
	}
	defer dir.Close()
	if info, err := dir.Lstat(name); err == nil && info.IsDir() {
		// Checked at plan too; the disk may have changed since.
		resp.Diagnostics.AddAttributeError(path.Root("filename"), "Invalid filename", directoryAtFilename(filename))
		return
	}
	// Always a fresh link: one kept in state may have expired long ago.
	link := r.data.completedExportLink(ctx, jobID, &resp.Diagnostics)
	if link == nil {
		return
	}
	perm, _ := parseFilePermission(plan.FilePermission.ValueString())
	var reported int64
	if link.SizeBytes != nil {
		reported = *link.SizeBytes
	}
	written, err := r.data.downloadArchive(ctx, link.BundleURL, dir, name, perm, plan.ExpectedSHA256.ValueString(), reported)
	if err != nil {
		failure := archiveFailure{doing: "writing the archive of export job " + jobID + " to " + filename,
			use: "a deployment", timeout: timeoutCreate, limit: limit}
		resp.Diagnostics.AddError("Cannot write the static export's archive", failure.explain(r.data, link.BundleURL, err))
		return
	}
	tflog.Debug(ctx, "wrote the export's archive", map[string]any{
		"job_id": jobID, "filename": plan.Filename.ValueString(), "sha256": written.SHA256, "size_bytes": written.Size, "files": written.Files,
	})

	plan.ID = types.StringValue(written.SHA256)
	plan.SHA256 = types.StringValue(written.SHA256)
	plan.MD5 = types.StringValue(written.MD5)
	plan.SizeBytes = types.Int64Value(written.Size)
	plan.FileCount = types.Int64Value(int64(written.Files))
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Read looks at the file only: no request, no download. A file that is gone
// or whose content changed leaves the state, so the next plan writes it again.
func (r *staticExportFileResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state staticExportFileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	filename := state.Filename.ValueString()
	reason, err := archiveOnDisk(filename, state.SHA256.ValueString(), state.SizeBytes.ValueInt64(), nil)
	if err != nil {
		resp.Diagnostics.AddError("Cannot check the static export's archive on disk",
			fmt.Sprintf("Reading %s to compare it with the archive of export job %s failed: %s", filename, state.JobID.ValueString(), err))
		return
	}
	if reason != "" {
		tflog.Info(ctx, "the archive on disk is "+reason+"; the next apply writes it again", map[string]any{
			"job_id": state.JobID.ValueString(), "filename": filename,
		})
		resp.State.RemoveResource(ctx)
	}
}

// Update only happens for a change of timeouts: every other input replaces.
func (r *staticExportFileResource) Update(_ context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.State.Raw = req.Plan.Raw
}

func (r *staticExportFileResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state staticExportFileModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	filename := state.Filename.ValueString()
	// Only the archive this resource wrote is deleted: a destroy without a
	// refresh may meet a file someone put there since. It is hashed and
	// removed through one handle of its directory, and removed only while
	// it is the file hashed.
	reason, err := archiveOnDisk(filename, state.SHA256.ValueString(), state.SizeBytes.ValueInt64(), localfile.RemoveFound)
	switch {
	case err != nil:
		resp.Diagnostics.AddError("Cannot delete the static export's archive", fmt.Sprintf("Deleting %s, the archive of export job %s, failed: %s",
			filename, state.JobID.ValueString(), err))
	case reason != "" && reason != "missing":
		resp.Diagnostics.AddWarning("The static export's archive was left in place", fmt.Sprintf(
			"%s is %s: it is not the archive of export job %s that this resource wrote, and the provider deletes only what it wrote. "+
				"Delete it by hand if it is not needed.", filename, reason, state.JobID.ValueString()))
	}
}

// writtenArchive describes the file a download wrote.
type writtenArchive struct {
	archive.Summary
	MD5 string // lower-case hex
}

// downloadArchive streams the archive behind link into a temporary file in
// dir, verifying it on the way, checks its digest against expected when
// set, syncs it, and renames it into place as name: name is either left as
// it was or holds the complete, verified archive. A download that grows
// past reportedSize, the size the API reported (0: unknown), stops at once.
func (d *providerData) downloadArchive(ctx context.Context, link string, dir *os.Root, name string, perm os.FileMode, expected string, reportedSize int64) (writtenArchive, error) {
	var written writtenArchive
	err := localfile.Write(dir, name, perm, func(w io.Writer) error {
		buffered := bufio.NewWriterSize(w, fileWriteBuffer)
		md5sum := md5.New()
		out := io.MultiWriter(buffered, md5sum)
		if reportedSize > 0 {
			out = &sizeBound{w: out, limit: reportedSize}
		}
		// nil: archive.DownloadClient, which honours HTTPS_PROXY, NO_PROXY and SSL_CERT_FILE.
		sum, err := d.limits.Fetch(ctx, nil, link, out)
		if err != nil {
			return err
		}
		if expected != "" {
			if err := archive.CheckSHA256(sum, expected); err != nil {
				return fmt.Errorf("download from %s: %w", bundlelink.Host(link), err)
			}
		}
		written = writtenArchive{Summary: sum, MD5: hex.EncodeToString(md5sum.Sum(nil))}
		return buffered.Flush()
	})
	if err != nil {
		return writtenArchive{}, err
	}
	return written, nil
}

// openFileDir opens the directory of filename, made when missing, as the
// one handle the resource writes, hashes and removes the file through.
func openFileDir(filename string) (*os.Root, string, error) {
	root, err := localfile.OpenRootDir(filepath.Dir(filename))
	return root, filepath.Base(filename), err
}

// sizeBound passes on at most left bytes, then fails: a download larger
// than the API said is not written in full first.
type sizeBound struct {
	w              io.Writer
	limit, written int64
}

func (b *sizeBound) Write(p []byte) (int, error) {
	if b.written+int64(len(p)) > b.limit {
		return 0, fmt.Errorf("the archive is larger than the %d bytes the API reported for it", b.limit)
	}
	b.written += int64(len(p))
	return b.w.Write(p)
}

// archiveOnDisk says why the file at filename no longer holds the archive
// recorded in state ("missing", "changed on disk"), or "" when it still
// does, and then hands it to remove, when set, with what Lstat found of it.
// The file's directory is opened once and everything goes through it
// (localfile.OpenParent): a directory of the path swapped for a link
// between the hash and the removal leads the removal nowhere else. The file
// is read as a stream: memory stays bounded whatever its size.
func archiveOnDisk(filename, wantSHA256 string, wantSize int64, remove func(*os.Root, string, fs.FileInfo) error) (string, error) {
	dir, name, err := localfile.OpenParent(filename)
	if errors.Is(err, fs.ErrNotExist) {
		return "missing", nil
	}
	if err != nil {
		return "", err
	}
	defer dir.Close()
	info, err := dir.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "missing", nil
	case err != nil:
		return "", err
	case !info.Mode().IsRegular():
		return "no longer a regular file", nil
	case info.Size() != wantSize:
		return "changed on disk (another size)", nil
	}
	sum, size, found, err := localfile.SHA256In(dir, name)
	switch {
	case errors.Is(err, localfile.ErrReplaced), errors.As(err, new(*localfile.NotRegularError)):
		return "changed on disk (replaced while it was read)", nil
	case errors.Is(err, fs.ErrNotExist):
		return "missing", nil
	case err != nil:
		return "", err
	case size != wantSize || sum != wantSHA256:
		return "changed on disk (another SHA-256)", nil
	case remove == nil:
		return "", nil
	}
	err = remove(dir, name, found)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "missing", nil
	case errors.Is(err, localfile.ErrReplaced):
		return "changed on disk (replaced before it was removed)", nil
	}
	return "", err
}

// expectedDigestPlan makes sha256 known at plan time when the configuration
// states which digest the download must have: apply either writes exactly
// that archive or fails.
type expectedDigestPlan struct{}

func (expectedDigestPlan) Description(context.Context) string {
	return "plans sha256 as expected_sha256 when it is set"
}
func (m expectedDigestPlan) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (expectedDigestPlan) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.StateValue.IsNull() || !req.PlanValue.IsUnknown() {
		return // not a create: UseStateForUnknown keeps the recorded digest
	}
	var expected types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, req.Path.ParentPath().AtName("expected_sha256"), &expected)...)
	if expected.IsNull() || expected.IsUnknown() || sha256Problem(expected.ValueString()) != "" {
		return
	}
	resp.PlanValue = types.StringValue(strings.ToLower(expected.ValueString()))
}

// filenameProblem accepts any path that names a file.
func filenameProblem(s string) string {
	const accepted = "Accepted: a path to the file to write, such as \"${path.module}/dist/docs-bundle.tar.gz\"."
	switch {
	case strings.TrimSpace(s) == "":
		return "The filename is empty. " + accepted
	case strings.HasSuffix(s, "/") || strings.HasSuffix(s, string(filepath.Separator)):
		return fmt.Sprintf("%q ends with a path separator, so it names a directory. %s", s, accepted)
	case filepath.Base(s) == "." || filepath.Base(s) == "..":
		return fmt.Sprintf("%q names a directory. %s", s, accepted)
	}
	return existingDirectoryProblem(s)
}

// existingDirectoryProblem refuses a filename where a directory stands: the
// archive could never be renamed over it.
func existingDirectoryProblem(s string) string {
	if info, err := os.Stat(s); err == nil && info.IsDir() {
		return directoryAtFilename(s)
	}
	return ""
}

// directoryAtFilename words a filename where a directory stands.
func directoryAtFilename(s string) string {
	return fmt.Sprintf("%q is an existing directory. Accepted: a path to the file to write inside it, such as %q.", s,
		filepath.Join(s, "docs-bundle.tar.gz"))
}

var octalPermission = regexp.MustCompile(`^0?[0-7]{3}$`)

// filePermissionProblem accepts a permission in octal, as local_file does:
// read, write and execute bits only. A leading digit other than 0 is a
// setuid, setgid or sticky bit, which a downloaded archive has no use for.
func filePermissionProblem(s string) string {
	const accepted = "Accepted: three octal digits, or four with a leading 0, such as \"0644\" or \"0600\"."
	switch {
	case octalPermission.MatchString(s):
		return ""
	case len(s) == 4 && strings.Trim(s, "01234567") == "":
		return fmt.Sprintf("%q sets the setuid, setgid or sticky bits (its first digit %q), which a file the provider writes does not take. %s", s, s[:1], accepted)
	}
	return fmt.Sprintf("%q is not an octal file permission. %s", s, accepted)
}

func parseFilePermission(s string) (os.FileMode, error) {
	mode, err := strconv.ParseUint(s, 8, 32)
	return os.FileMode(mode), err
}
