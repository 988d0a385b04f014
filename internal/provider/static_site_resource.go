package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
)

var (
	_ resource.ResourceWithConfigure      = (*staticSiteResource)(nil)
	_ resource.ResourceWithValidateConfig = (*staticSiteResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*staticSiteResource)(nil)
)

// NewStaticSiteResource is the docsadmin_static_site resource.
func NewStaticSiteResource() resource.Resource { return &staticSiteResource{} }

// staticSiteResource unpacks an export's archive into a directory, for
// static hosts that serve files rather than an archive, and records the
// manifest of its files. Unlike docsadmin_static_export_file, Read never
// forgets it: the manifest stays in state, known at plan on a runner whose
// disk is empty, and a damaged or missing tree plans an in-place restore.
type staticSiteResource struct {
	data *providerData
}

type staticSiteModel struct {
	ID             types.String   `tfsdk:"id"`
	JobID          types.String   `tfsdk:"job_id"`
	Directory      types.String   `tfsdk:"directory"`
	ExpectedSHA256 types.String   `tfsdk:"expected_sha256"`
	ArchiveSHA256  types.String   `tfsdk:"archive_sha256"`
	FileCount      types.Int64    `tfsdk:"file_count"`
	SizeBytes      types.Int64    `tfsdk:"size_bytes"`
	Files          types.Map      `tfsdk:"files"`
	Routes         types.Map      `tfsdk:"routes"`
	TreeIntact     types.Bool     `tfsdk:"tree_intact"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
}

func (m *staticSiteModel) setManifest(s siteManifestModel) {
	m.ID = s.ArchiveSHA256
	m.ArchiveSHA256 = s.ArchiveSHA256
	m.FileCount = s.FileCount
	m.SizeBytes = s.SizeBytes
	m.Files = s.Files
	m.Routes = s.Routes
}

func (r *staticSiteResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_static_site"
}

func (r *staticSiteResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	keepString := func() []planmodifier.String {
		return []planmodifier.String{expectedDigestPlan{}, stringplanmodifier.UseStateForUnknown()}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Unpacks the archive of a completed static export into a directory, verified, for static hosts that serve files: " +
			"an object store bucket, a CDN origin, a web server's root. Apply generates a fresh link itself, streams the archive into a new " +
			"directory next to `directory` while checking it as `docsadmin_static_export` does, and only then swaps it into place whole. " +
			"`files` lists every file with its digests, content type and cache policy, and `routes` the extensionless URL of every page, both " +
			"recorded in state so that they are known at plan time, also on a fresh runner. Refresh checks the tree on disk without any request; " +
			"when a file is missing, changed or added, `tree_intact` turns false and the next apply restores the tree in place with one download " +
			"and no new export, while `files` and `routes` stay as they were. Destroy removes the directory. Import is not supported: the " +
			"manifest comes from the download that writes the tree, so importing would download just as creating does.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The archive's SHA-256, as `archive_sha256`.",
				Computed:            true,
				PlanModifiers:       keepString(),
			},
			"job_id": completedJobIDAttribute("Changing it unpacks the new export's site."),
			"directory": schema.StringAttribute{
				MarkdownDescription: "The directory the site is unpacked into, such as `\"${path.module}/dist/site\"`; a relative path is relative to " +
					"the directory Terraform runs in. It is replaced whole, and removed on destroy: give the site a directory of its own. An " +
					"existing directory that holds files but no `index.html` is refused, so that a mistyped path never replaces other files. " +
					"Changing it unpacks into the new directory and removes the old one.",
				Required:      true,
				Validators:    []validator.String{stringCheck{summary: "Invalid directory", description: "must name a directory of its own", check: siteDirectoryProblem}},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"expected_sha256": expectedSHA256Attribute("SHA-256 the archive must have, as 64 hexadecimal digits, typically `docsadmin_static_export.docs.archive_sha256`. " +
				"An archive with another digest is refused and nothing is written. When set, `id` and `archive_sha256` are known at plan time. " +
				"Default: no comparison (the archive is still verified)."),
			"archive_sha256": schema.StringAttribute{
				MarkdownDescription: "Lower-case hex SHA-256 of the archive the tree was unpacked from. A restore must download the same archive.",
				Computed:            true,
				PlanModifiers:       keepString(),
			},
			"file_count": keptInt64Attribute("Number of files in the site (hard links in the archive count as the copies they are unpacked as)."),
			"size_bytes": keptInt64Attribute("Sum of the files' sizes, in bytes."),
			// A map of objects, which for_each takes as it is. The framework
			// visits each of its values on every read, plan and apply: in
			// time that grows linearly only with its TRACE logs off
			// (LimitFrameworkLogs).
			"files": schema.MapAttribute{
				MarkdownDescription: siteFilesDescription,
				ElementType:         siteFileType,
				Computed:            true,
				PlanModifiers:       []planmodifier.Map{mapplanmodifier.UseStateForUnknown()},
			},
			"routes": schema.MapAttribute{
				MarkdownDescription: siteRoutesDescription,
				ElementType:         types.StringType,
				Computed:            true,
				PlanModifiers:       []planmodifier.Map{mapplanmodifier.UseStateForUnknown()},
			},
			"tree_intact": schema.BoolAttribute{
				MarkdownDescription: "Whether the last refresh found the tree on disk exactly as `files` lists it: every file present with its size and " +
					"SHA-256, and no other file. False on a fresh runner or after a change on disk; a plan then restores the tree in place and plans " +
					"`true`.",
				Computed: true,
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create:            true,
				Update:            true,
				CreateDescription: "Longest time for generating the link, downloading and unpacking the site, as a duration such as `45m`. Default: `30m`.",
				UpdateDescription: "Longest time for restoring the tree (a fresh link and one download). Default: `30m`.",
			}),
		},
	}
}

// ValidateConfig refuses zero and negative timeouts at plan time.
func (r *staticSiteResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(validateTimeouts[timeouts.Value](ctx, req.Config)...)
}

func (r *staticSiteResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan plans tree_intact = true: a create makes the tree, and a tree
// that the refresh found damaged is restored in place, every other
// computed value kept from state.
func (r *staticSiteResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("tree_intact"), types.BoolValue(true))...)
}

func (r *staticSiteResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan staticSiteModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, limit, ok := beginOperation(ctx, r.data, "the site cannot be unpacked", plan.Timeouts.Create, defaultSiteTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()

	dir := plan.Directory.ValueString()
	if problem := siteDirectoryInUse(dir); problem != "" {
		resp.Diagnostics.AddAttributeError(path.Root("directory"), "Cannot unpack the site into this directory", problem)
		return
	}
	manifest, ok := r.unpack(ctx, plan.JobID.ValueString(), dir, plan.ExpectedSHA256.ValueString(), "timeouts.create", limit, "Cannot unpack the static site", &resp.Diagnostics)
	if !ok {
		return
	}
	plan.setManifest(manifest)
	plan.TreeIntact = types.BoolValue(true)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// unpack asks a fresh link for the job and unpacks its archive into dir,
// refusing one whose SHA-256 is not expected (when set).
func (r *staticSiteResource) unpack(ctx context.Context, jobID, dir, expected, timeoutName string, limit time.Duration, summary string, diags *diag.Diagnostics) (siteManifestModel, bool) {
	// Always a fresh link: one kept in state may have expired long ago.
	link := r.data.completedExportLink(ctx, jobID, diags)
	if link == nil {
		return siteManifestModel{}, false
	}
	collector := newSiteCollector()
	opts := archive.UnpackOptions{File: collector.add}
	if expected != "" {
		opts.Accept = func(sum archive.Summary) error { return archive.CheckSHA256(sum, expected) }
	}
	// nil: archive.DownloadClient, which honours HTTPS_PROXY, NO_PROXY and
	// SSL_CERT_FILE, sends no Referer and refuses https to http redirects.
	sum, err := r.data.limits.FetchUnpack(ctx, nil, link.BundleURL, dir, opts)
	if err != nil {
		diags.AddError(summary, siteDownloadProblem(jobID, link.BundleURL, "Unpacking into "+dir+" from", limit, timeoutName, err))
		return siteManifestModel{}, false
	}
	manifest, d := collector.model(sum)
	diags.Append(d...)
	if d.HasError() {
		return siteManifestModel{}, false
	}
	tflog.Info(ctx, "unpacked the export's site", map[string]any{
		"job_id": jobID, "directory": dir, "sha256": sum.SHA256, "files": manifest.FileCount.ValueInt64(), "size_bytes": manifest.SizeBytes.ValueInt64(),
	})
	return manifest, true
}

// Read checks the tree on disk against the manifest in state, without any
// request, and records the verdict in tree_intact. It never removes the
// resource: the manifest stays known for plans on a runner without the tree.
func (r *staticSiteResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state staticSiteModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	want, err := siteWantFrom(state)
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the static site's manifest", err.Error())
		return
	}
	dir := state.Directory.ValueString()
	problem, err := siteTreeProblem(ctx, dir, want)
	if err != nil {
		resp.Diagnostics.AddError("Cannot check the static site on disk",
			fmt.Sprintf("Reading %s to compare it with the site of export job %s failed: %s", dir, state.JobID.ValueString(), err))
		return
	}
	if problem != "" {
		tflog.Info(ctx, "the site on disk is not intact ("+problem+"); the next apply restores it", map[string]any{
			"job_id": state.JobID.ValueString(), "directory": dir,
		})
	}
	state.TreeIntact = types.BoolValue(problem == "")
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

// Update restores a tree that refresh found damaged: a fresh link, one
// download of the same archive (its SHA-256 must be the one in state), the
// same atomic swap. A change of timeouts alone only records them.
func (r *staticSiteResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state staticSiteModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.setManifest(siteManifestModel{
		ArchiveSHA256: state.ArchiveSHA256, FileCount: state.FileCount, SizeBytes: state.SizeBytes, Files: state.Files, Routes: state.Routes,
	})
	if state.TreeIntact.ValueBool() {
		plan.TreeIntact = types.BoolValue(true)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	ctx, limit, ok := beginOperation(ctx, r.data, "the site cannot be restored", plan.Timeouts.Update, defaultSiteTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	manifest, ok := r.unpack(ctx, state.JobID.ValueString(), state.Directory.ValueString(), state.ArchiveSHA256.ValueString(),
		"timeouts.update", limit, "Cannot restore the static site", &resp.Diagnostics)
	if !ok {
		return
	}
	if !manifest.Files.Equal(state.Files) {
		// The same archive gives the same files: only a change of the
		// provider's tables could tell them otherwise.
		tflog.Warn(ctx, "the restored site's manifest differs from the one in state", map[string]any{"job_id": state.JobID.ValueString()})
	}
	plan.setManifest(manifest)
	plan.TreeIntact = types.BoolValue(true)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

func (r *staticSiteResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state staticSiteModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	dir := state.Directory.ValueString()
	info, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err == nil && !info.IsDir() {
		resp.Diagnostics.AddError("Cannot remove the static site",
			fmt.Sprintf("%s is no longer a directory, so it is not the site unpacked there; it is left as it is. Remove it yourself if it is not needed.", dir))
		return
	}
	if err == nil && siteReplacedBy(dir, state) {
		// Another site took the directory over, such as the replacement
		// of this one under create_before_destroy: it stays.
		resp.Diagnostics.AddWarning("The static site's directory was left in place",
			fmt.Sprintf("%s holds another site now (its index.html is not the one export job %s unpacked), so destroying this resource leaves it.",
				dir, state.JobID.ValueString()))
		return
	}
	if err == nil {
		err = os.RemoveAll(dir)
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot remove the static site", fmt.Sprintf("Removing %s failed: %s", dir, err))
	}
}

// siteReplacedBy reports whether dir holds an index.html other than the one
// in state: another site's, not this one damaged (a missing or unreadable
// index.html does not count).
func siteReplacedBy(dir string, state staticSiteModel) bool {
	want, err := siteWantFrom(state)
	index, ok := want["index.html"]
	if err != nil || !ok {
		return false
	}
	digest, err := diskSHA256(filepath.Join(dir, "index.html"))
	return err == nil && digest != index.sha256
}

// siteWant is what the manifest in state says of one file.
type siteWant struct {
	size   int64
	sha256 string
}

// siteWantFrom reads the sizes and digests of the files in state.
func siteWantFrom(m staticSiteModel) (map[string]siteWant, error) {
	want := map[string]siteWant{}
	if m.Files.IsNull() || m.Files.IsUnknown() {
		return want, nil
	}
	for p, v := range m.Files.Elements() {
		obj, ok := v.(types.Object)
		if !ok {
			return nil, fmt.Errorf("files[%q] is not an object", p)
		}
		attrs := obj.Attributes()
		size, okSize := attrs["size"].(types.Int64)
		digest, okDigest := attrs["sha256"].(types.String)
		if !okSize || !okDigest {
			return nil, fmt.Errorf("files[%q] has no size or sha256", p)
		}
		want[p] = siteWant{size: size.ValueInt64(), sha256: digest.ValueString()}
	}
	return want, nil
}

// errTreeDiffers stops a walk at the first difference.
var errTreeDiffers = errors.New("the tree differs")

// siteTreeProblem says how the tree in dir differs from want ("missing",
// "guides/x.html changed on disk", ...), or "" when it holds exactly the
// files of want with their sizes and SHA-256. Directories are not compared:
// a host serves files. Sizes are compared first, so that a common change
// costs no hashing.
func siteTreeProblem(ctx context.Context, dir string, want map[string]siteWant) (string, error) {
	info, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "the directory is missing", nil
	}
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "it is not a directory", nil
	}
	var problem string
	var toHash []string
	found := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		w, ok := want[rel]
		if !ok {
			problem = fmt.Sprintf("%s is not a file of the site", rel)
			return errTreeDiffers
		}
		if !d.Type().IsRegular() {
			problem = fmt.Sprintf("%s is no longer a regular file", rel)
			return errTreeDiffers
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Size() != w.size {
			problem = fmt.Sprintf("%s changed on disk (another size)", rel)
			return errTreeDiffers
		}
		found++
		toHash = append(toHash, rel)
		return nil
	})
	if errors.Is(err, errTreeDiffers) {
		return problem, nil
	}
	if err != nil {
		return "", err
	}
	if found != len(want) {
		return fmt.Sprintf("%d of its %d files are missing", len(want)-found, len(want)), nil
	}
	for _, rel := range toHash {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		digest, err := diskSHA256(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return "", err
		}
		if digest != want[rel].sha256 {
			return fmt.Sprintf("%s changed on disk (another SHA-256)", rel), nil
		}
	}
	return "", nil
}

func diskSHA256(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// siteDirectoryProblem refuses a directory that is surely not a site's own.
func siteDirectoryProblem(s string) string {
	const accepted = "Accepted: a directory of the site's own, such as \"${path.module}/dist/site\"; it is replaced whole and removed on destroy."
	if strings.TrimSpace(s) == "" {
		return "The directory is empty. " + accepted
	}
	clean := filepath.Clean(s)
	if clean == "." || clean == ".." || strings.HasSuffix(clean, string(filepath.Separator)+"..") || clean == filepath.VolumeName(clean)+string(filepath.Separator) {
		return fmt.Sprintf("%q is the current, the parent or the root directory. %s", s, accepted)
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && clean == filepath.Clean(home) {
		return fmt.Sprintf("%q is the home directory. %s", s, accepted)
	}
	return ""
}

// siteDirectoryInUse refuses to replace an existing directory that holds
// files but no index.html: not a site, so likely a mistyped path.
func siteDirectoryInUse(dir string) string {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
		return ""
	}
	if err != nil {
		info, serr := os.Lstat(dir)
		if serr == nil && !info.IsDir() {
			return fmt.Sprintf("%s exists and is not a directory. Accepted: a new or empty directory, or one that holds a site (an index.html at its root).", dir)
		}
		return fmt.Sprintf("%s cannot be read: %s", dir, err)
	}
	if info, err := os.Lstat(filepath.Join(dir, "index.html")); err == nil && info.Mode().IsRegular() {
		return ""
	}
	return fmt.Sprintf("%s holds %d entries but no index.html, so it is not a site; unpacking would replace it whole. "+
		"Accepted: a new or empty directory, or one that holds a site (an index.html at its root).", dir, len(entries))
}
