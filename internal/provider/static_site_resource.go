package provider

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitetree"
)

var (
	_ resource.ResourceWithConfigure      = (*staticSiteResource)(nil)
	_ resource.ResourceWithValidateConfig = (*staticSiteResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*staticSiteResource)(nil)
	_ resource.ResourceWithImportState    = (*staticSiteResource)(nil)
)

// NewStaticSiteResource is the docsadmin_static_site resource.
func NewStaticSiteResource() resource.Resource { return &staticSiteResource{} }

// staticSiteResource publishes an export's site at a directory for static
// hosts that serve files: each export is unpacked and verified into a
// release of its own, and the directory, a symbolic link, switches to it in
// one step (internal/publish). State holds no file: the manifest and the
// stat data a refresh compares are records in the store beside each
// release (internal/sitetree), and state their count, size and the
// manifest's SHA-256; a damaged or missing tree plans an in-place restore.
//
// This file holds the schema and the operations; static_site_plan.go what
// the plan decides and the refusals; static_site_manifest.go the manifest
// read from an archive and the download's problems, shared with the
// manifest data source. Below the provider: publish (locate, stage, switch,
// withdraw), sitetree (a release checked against its records), siteclaims
// (this run's sites).
type staticSiteResource struct {
	data *providerData
}

type staticSiteModel struct {
	ID               types.String   `tfsdk:"id"`
	JobID            types.String   `tfsdk:"job_id"`
	Directory        types.String   `tfsdk:"directory"`
	ExpectedSHA256   types.String   `tfsdk:"expected_sha256"`
	MaxFiles         types.Int64    `tfsdk:"max_files"`
	ArchiveSHA256    types.String   `tfsdk:"archive_sha256"`
	FileCount        types.Int64    `tfsdk:"file_count"`
	SizeBytes        types.Int64    `tfsdk:"size_bytes"`
	ManifestFile     types.String   `tfsdk:"manifest_file"`
	ManifestSHA256   types.String   `tfsdk:"manifest_sha256"`
	ReleaseDirectory types.String   `tfsdk:"release_directory"`
	TreeIntact       types.Bool     `tfsdk:"tree_intact"`
	Timeouts         timeouts.Value `tfsdk:"timeouts"`
}

// publicationFromState copies what state says of the published site into
// the plan, when nothing is published again.
func (m *staticSiteModel) publicationFromState(state staticSiteModel) {
	m.ArchiveSHA256, m.FileCount, m.SizeBytes = state.ArchiveSHA256, state.FileCount, state.SizeBytes
	m.ManifestFile, m.ManifestSHA256, m.ReleaseDirectory = state.ManifestFile, state.ManifestSHA256, state.ReleaseDirectory
}

func (r *staticSiteResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_static_site"
}

func (r *staticSiteResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Publishes the site of a completed static export at a directory, verified, for static hosts that serve files: a " +
			"web server's root, a CDN origin, a tree to sync to an object store. `directory` is a symbolic link that the provider makes and " +
			"switches: each export is downloaded, verified and unpacked into a release directory of its own beside it, in " +
			"`.<name>.docsadmin/releases/`, and only once it is complete does the link switch to it, in one atomic rename. A server reading " +
			"`directory` sees the previous site or the new one, never neither nor a mix. A new `job_id` updates the site in place; the " +
			"previous release is kept until the next switch, for requests in flight, and older ones are removed.\n\n" +
			"The provider deletes only what it wrote: the link, and the entries it makes in the `.<name>.docsadmin` directory, whose " +
			"`site.json` records the publication; it never follows a symbolic link it finds there. A `directory` that holds anything " +
			"else (a directory, a file, a link it did not make) is refused and left untouched, as are the working directory, the home " +
			"directory, the directories above them and directories that hold a Terraform configuration or state, a store whose " +
			"entries are not the provider's or belong to another user, and a directory a site of another configuration or another " +
			"state publishes: at plan for a new site, before anything of the plan runs. Two sites whose directories are the same or " +
			"nested, however written, are refused. When a user's entry replaces the link later, plans warn and change nothing, and " +
			"destroy removes the provider's store and leaves the entry; a destroy removes only the store the site published from.\n\n" +
			"State holds no file, whatever the site's size: `manifest_file` is a JSON file beside the release that lists every file with its " +
			"digests, content type and cache policy, for a sync step, and `docsadmin_static_site_manifest` gives the same files as a map " +
			"for `for_each`. Refresh checks the release on disk without any request, against stat data recorded at publication, as git's " +
			"index does: a file whose size, times and inode are unchanged is not read, any other is hashed. When files are missing, " +
			"changed or added, the plan says which, and the apply publishes a fresh copy of the same archive (one download, no new " +
			"export). Import is not supported: the manifest comes from the download that writes the tree.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Identifies this site's publication at `directory`, as recorded in `.<name>.docsadmin/site.json`. It stays " +
					"the same across new exports and restores, which update the site in place. A replacement (`-replace`, " +
					"`replace_triggered_by`, a tainted resource) is a new publication with a new `id`: the old site is removed first, so " +
					"`directory` is missing until the new one is switched in; with `create_before_destroy` a replacement at the same " +
					"`directory` is refused, since the old site still publishes there.",
				Computed:      true,
				PlanModifiers: keepFromState(),
			},
			"job_id": schema.StringAttribute{
				MarkdownDescription: "Identifier of a completed export job, such as `se_3f9a2c1b8e7d4a06`, for example " +
					"`docsadmin_static_export.docs.job_id`. Changing it publishes the new export's site in place: one switch of `directory`.",
				Required:   true,
				Validators: []validator.String{exportJobIDValidator()},
			},
			"directory": schema.StringAttribute{
				MarkdownDescription: "The path the site is served from, such as `\"${path.module}/dist/site\"`; a relative path is relative to " +
					"the directory Terraform runs in. The provider makes it a symbolic link to the current release: point the web server " +
					"or the sync step at it. It must not exist yet, or be this provider's link. Changing it publishes at the new path and " +
					"removes the old link and its releases.",
				Required:      true,
				Validators:    []validator.String{stringCheck{summary: "Invalid directory", description: "must be a path of the site's own", check: siteDirectoryProblem}},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"expected_sha256": schema.StringAttribute{
				MarkdownDescription: "SHA-256 the archive must have, as 64 hexadecimal digits, typically `docsadmin_static_export.docs.archive_sha256`. " +
					"An archive with another digest is refused and nothing is switched. When set, `archive_sha256` is known at plan time. " +
					"Default: no comparison (the archive is still verified).",
				Optional:   true,
				Validators: []validator.String{stringCheck{summary: "Invalid SHA-256", description: "must be 64 hexadecimal digits", check: sha256Problem}},
			},
			"max_files": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Most files and directories the site may hold together, counted while the archive streams "+
					"in: an archive with more is refused before it is published. Directories count because every refresh walks each of them "+
					"as it checks each file. State holds no file, so the default keeps an unchanged plan within seconds of a small "+
					"site's (the performance guide has the figures); the bound on unpacked bytes, `max_unpacked_bytes`, applies too. "+
					"Changing it publishes nothing when the site fits; a value below `file_count` is refused at plan. At most `%d`. "+
					"Default: `%d`.", maxSiteMaxFiles, defaultSiteMaxFiles),
				Optional:   true,
				Computed:   true,
				Default:    int64default.StaticInt64(defaultSiteMaxFiles),
				Validators: []validator.Int64{int64validator.Between(1, maxSiteMaxFiles)},
			},
			"archive_sha256": schema.StringAttribute{
				MarkdownDescription: "Lower-case hex SHA-256 of the archive the site was unpacked from. A restore must download the same archive.",
				Computed:            true,
				PlanModifiers:       keepFromState(),
			},
			"file_count": useStateInt64Attribute("Number of files in the site (hard links in the archive count as the copies they are unpacked as)."),
			"size_bytes": useStateInt64Attribute("Sum of the files' sizes, in bytes."),
			"manifest_file": schema.StringAttribute{
				MarkdownDescription: "Absolute path of the release's manifest, a JSON object that maps each file's path to its `size`, " +
					"`sha256`, `md5`, `md5_base64`, `content_type` and `cache_control`: the shape of the `files` of " +
					"`docsadmin_static_site_manifest`, described there. Written before `directory` switches to the release, kept as long " +
					"as the release is, never changed: give it to the sync step with `release_directory`. It changes with every switch.",
				Computed:      true,
				PlanModifiers: keepFromState(),
			},
			"manifest_sha256": schema.StringAttribute{
				MarkdownDescription: "Lower-case hex SHA-256 of `manifest_file`'s content. The same archive gives the same manifest; refresh " +
					"checks the file against it, so a manifest changed on disk is restored like a changed file of the site.",
				Computed:      true,
				PlanModifiers: keepFromState(),
			},
			"release_directory": schema.StringAttribute{
				MarkdownDescription: "Absolute path of the release `directory` points to now. It changes with every switch: serve `directory`, " +
					"not this, unless a host cannot follow symbolic links.",
				Computed:      true,
				PlanModifiers: keepFromState(),
			},
			"tree_intact": schema.BoolAttribute{
				MarkdownDescription: "Whether the last refresh found the site on disk exactly as `manifest_file` lists it: `directory` is the " +
					"provider's link, its manifest is the one published, and its release holds every file with its size and SHA-256, and no " +
					"other file. False on a fresh runner or after a change on disk; a plan then publishes a fresh copy in place and plans `true`.",
				Computed: true,
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create:            true,
				Update:            true,
				CreateDescription: "Longest time for generating the link, downloading, unpacking and publishing the site, as a duration such as `45m`. Default: `" + duration.Written(defaultSiteTimeout) + "`.",
				UpdateDescription: "Longest time for publishing a new export's site or restoring the site (a fresh link and one download). Default: `" + duration.Written(defaultSiteTimeout) + "`.",
			}),
		},
	}
}

// ValidateConfig refuses timeouts under a second at plan time (validateTimeouts).
func (r *staticSiteResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(validateTimeouts[timeouts.Value](ctx, req.Config)...)
}

func (r *staticSiteResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// siteScalars are the attributes ModifyPlan and Read need, read one by
// one.
type siteScalars struct {
	ID, JobID, Directory, ExpectedSHA256 types.String
	MaxFiles, FileCount                  types.Int64
	ManifestSHA256                       types.String
	TreeIntact                           types.Bool
}

type attributeGetter interface {
	GetAttribute(ctx context.Context, p path.Path, target interface{}) diag.Diagnostics
}

func readSiteScalars(ctx context.Context, g attributeGetter) (siteScalars, diag.Diagnostics) {
	var s siteScalars
	var diags diag.Diagnostics
	diags.Append(g.GetAttribute(ctx, path.Root("id"), &s.ID)...)
	diags.Append(g.GetAttribute(ctx, path.Root("job_id"), &s.JobID)...)
	diags.Append(g.GetAttribute(ctx, path.Root("directory"), &s.Directory)...)
	diags.Append(g.GetAttribute(ctx, path.Root("expected_sha256"), &s.ExpectedSHA256)...)
	diags.Append(g.GetAttribute(ctx, path.Root("max_files"), &s.MaxFiles)...)
	diags.Append(g.GetAttribute(ctx, path.Root("file_count"), &s.FileCount)...)
	diags.Append(g.GetAttribute(ctx, path.Root("manifest_sha256"), &s.ManifestSHA256)...)
	diags.Append(g.GetAttribute(ctx, path.Root("tree_intact"), &s.TreeIntact)...)
	return s, diags
}

// ModifyPlan checks a new directory on disk, plans what a new export
// changes, and plans tree_intact = true: a create publishes the site, and a
// site that the refresh found damaged is published again in place. What
// bars a new site is refused here, before anything of the plan runs; for
// a site in state it is a warning, so that the plan Terraform makes before
// a destroy never fails on it.
func (r *staticSiteResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	plan, diags := readSiteScalars(ctx, req.Plan)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	set := func(name string, v attr.Value) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(name), v)...)
	}
	if req.State.Raw.IsNull() {
		// id stays unknown, also in the plan of a replacement: Terraform
		// plans a create again at apply, without the private state of the
		// object it replaces, and the two plans must agree. (Nor does it
		// show the warnings of a replacement's plan: what a replacement
		// does is documented instead.)
		set("tree_intact", types.BoolValue(true))
		if !plan.Directory.IsUnknown() {
			if problem := r.newSiteProblem(plan); problem != "" {
				resp.Diagnostics.AddAttributeError(path.Root("directory"), "Cannot publish the site at this directory", problem)
			}
		}
		set("archive_sha256", plannedDigest(plan.ExpectedSHA256))
		return
	}
	state, diags := readSiteScalars(ctx, req.State)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.rememberSite(state)
	newExport := republishes(plan.JobID, plan.ExpectedSHA256, state.JobID, state.ExpectedSHA256)
	if !newExport && fewerMaxFiles(plan, state) {
		resp.Diagnostics.AddAttributeError(path.Root("max_files"), "Invalid max_files", fmt.Sprintf(
			"max_files = %d is below the %d files of the site published at %s (export job %s). Accepted: at least %d, or a new "+
				"job_id whose site fits.", plan.MaxFiles.ValueInt64(), state.FileCount.ValueInt64(), plan.Directory.ValueString(),
			state.JobID.ValueString(), state.FileCount.ValueInt64()))
		return
	}
	if !newExport && state.TreeIntact.ValueBool() {
		// Intact at the last refresh, or the refresh was skipped: the
		// checks that walk no tree are made all the same, and warn.
		problem, found := r.publishedSiteProblem(state)
		if site, err := publish.Locate(state.Directory.ValueString()); err == nil && problem == "" {
			problem = movedStoreProblem(site, found, recordedSitePins(ctx, req.Private))
		}
		if problem != "" {
			resp.Diagnostics.AddAttributeWarning(path.Root("directory"), "The static site on disk is not as published", problem)
		}
		set("tree_intact", types.BoolValue(true))
		return
	}
	// A switch is planned: what is at the directory must still be the
	// provider's.
	if problem, _ := r.publishedSiteProblem(state); problem != "" {
		resp.Diagnostics.AddAttributeWarning(path.Root("directory"), "The static site cannot be published at its directory", problem)
		if !newExport {
			// Nothing to restore while the directory is not the provider's:
			// no change is planned.
			return
		}
	}
	set("tree_intact", types.BoolValue(true))
	set("release_directory", types.StringUnknown())
	set("manifest_file", types.StringUnknown())
	if newExport {
		// Another export (or other checks of it): its files are known
		// once it is downloaded.
		set("archive_sha256", plannedDigest(plan.ExpectedSHA256))
		set("file_count", types.Int64Unknown())
		set("size_bytes", types.Int64Unknown())
		set("manifest_sha256", types.StringUnknown())
	}
}

func (r *staticSiteResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan staticSiteModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, limit, ok := beginOperation(ctx, r.data, "the site cannot be published", plan.Timeouts.Create, defaultSiteTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if plan.ID.IsUnknown() || plan.ID.IsNull() {
		plan.ID = types.StringValue(newSiteOwner())
	}
	pins, ok := r.publish(ctx, &plan, plan.ExpectedSHA256.ValueString(), timeoutCreate, limit, "Cannot publish the static site", &resp.Diagnostics)
	if !ok {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	resp.Diagnostics.Append(recordSitePins(ctx, resp.Private, pins)...)
}

// publish asks a fresh link for the plan's job, unpacks its archive into a
// new release of the plan's directory and switches the directory to it,
// recording the manifest and the release in the plan, and returns what the
// resource pins of its store (private state). An archive whose SHA-256 is
// not expected (when set) is refused.
func (r *staticSiteResource) publish(ctx context.Context, plan *staticSiteModel, expected string, timeout timeoutName, limit time.Duration, summary string, diags *diag.Diagnostics) (sitePins, bool) {
	jobID, owner := plan.JobID.ValueString(), plan.ID.ValueString()
	site, err := publish.Locate(plan.Directory.ValueString())
	if err != nil {
		diags.AddAttributeError(path.Root("directory"), summary, err.Error())
		return sitePins{}, false
	}
	if problem := r.data.sites.Claim(site, owner, jobID); problem != "" {
		diags.AddAttributeError(path.Root("directory"), summary, problem)
		return sitePins{}, false
	}
	if problem := publish.PathProblem(site.Dir); problem != "" {
		diags.AddAttributeError(path.Root("directory"), summary, problem+". "+siteDirectoryAccepted)
		return sitePins{}, false
	}
	// Claimed before the download, so that a directory that cannot be
	// published costs no download.
	staged, err := site.Stage(owner)
	if err != nil {
		diags.AddAttributeError(path.Root("directory"), summary, publishProblem(site, jobID, err))
		return sitePins{}, false
	}
	staged.Configuration = r.data.configuration
	if staged.TookOver != "" {
		tflog.Info(ctx, "took over a store that a killed run left before it published anything", map[string]any{
			"directory": site.Dir, "store": site.Store, "left_by": staged.TookOver,
		})
	}
	published := false
	defer func() {
		if !published {
			_ = staged.Abandon()
		}
	}()
	// Always a fresh link: one kept in state may have expired long ago.
	link := r.data.completedExportLink(ctx, jobID, diags)
	if link == nil {
		return sitePins{}, false
	}
	collector := newSiteTreeCollector(int(plan.MaxFiles.ValueInt64()), "nothing was published")
	opts := archive.UnpackOptions{File: collector.add, Dir: collector.dir}
	if expected != "" {
		opts.Accept = func(sum archive.Summary) error { return archive.CheckSHA256(sum, expected) }
	}
	// nil: archive.DownloadClient, which honours HTTPS_PROXY, NO_PROXY and
	// SSL_CERT_FILE, sends no Referer and refuses https to http redirects.
	sum, err := r.data.limits.FetchUnpack(ctx, nil, link.BundleURL, staged.TreeDir(), opts)
	if err != nil {
		diags.AddError(summary, r.data.siteDownloadProblem(jobID, link.BundleURL, "unpacking into "+site.Dir+" from", limit, timeout, err))
		return sitePins{}, false
	}
	// What the names' checks held is not needed any more: a site of
	// 100,000 files publishes in less memory without it.
	manifest := collector.manifest
	manifest.Complete()
	records, err := sitetree.NewRecords(ctx, staged.Tree, manifest)
	if err != nil {
		diags.AddError(summary, fmt.Sprintf("Recording the files of export job %s unpacked into %s failed; nothing was published: %s", jobID, site.Dir, err))
		return sitePins{}, false
	}
	fileCount, sizeBytes := manifest.Len(), manifest.Size()
	release, err := staged.Switch(jobID, records.ForSwitch())
	if err != nil && release == "" {
		diags.AddAttributeError(path.Root("directory"), summary, publishProblem(site, jobID, err))
		return sitePins{}, false
	}
	if err != nil {
		// Published: what failed after the switch is bookkeeping, which the
		// next switch does again.
		diags.AddWarning("The static site was published, but its store was not tidied", fmt.Sprintf(
			"%s serves the new site; recording it in %s or removing an old release there failed, and the next publication tries again: %s",
			site.Dir, site.Store, err))
	}
	published = true
	plan.ArchiveSHA256 = types.StringValue(sum.SHA256)
	plan.FileCount = types.Int64Value(int64(fileCount))
	plan.SizeBytes = types.Int64Value(sizeBytes)
	plan.ManifestFile = types.StringValue(site.Record(release, sitetree.ManifestRecord))
	plan.ManifestSHA256 = types.StringValue(records.ManifestSHA256)
	plan.ReleaseDirectory = types.StringValue(site.Release(release))
	plan.TreeIntact = types.BoolValue(true)
	tflog.Info(ctx, "published the export's site", map[string]any{
		"job_id": jobID, "directory": site.Dir, "release": release, "sha256": sum.SHA256, "files": fileCount,
	})
	return sitePins{Store: staged.Store, StatSHA256: records.StatSHA256()}, true
}

// Read checks the site on disk against its release's records, without any
// request, and records the verdict in tree_intact; a difference is shown as
// a warning that names the files. Only what state and private state pin is
// trusted: the manifest by its digest, the stat record by its digest, the
// store by its owner and identity. It never removes the resource: a runner
// without the site plans a restore.
func (r *staticSiteResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	state, diags := readSiteScalars(ctx, req.State)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	site, err := publish.Locate(state.Directory.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot check the static site on disk", err.Error())
		return
	}
	r.rememberSite(state)
	// What is found on disk is warned of, never an error: the plan that
	// Terraform makes before a destroy refreshes first.
	notIntact := func() {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("tree_intact"), types.BoolValue(false))...)
	}
	pins := recordedSitePins(ctx, req.Private)
	found, err := site.Inspect()
	if err != nil {
		resp.Diagnostics.AddAttributeWarning(path.Root("directory"), "Cannot check the static site on disk", err.Error())
		notIntact()
		return
	}
	if m := found.Marker; m != nil && m.Owner != state.ID.ValueString() {
		notIntact()
		resp.Diagnostics.AddAttributeWarning(path.Root("directory"), "Another static site publishes at this directory",
			(&publish.ConflictError{Site: site, Other: *m}).Error()+". This resource (export job "+state.JobID.ValueString()+
				") no longer owns it and will not publish there. Give each docsadmin_static_site a directory of its own, or remove this "+
				"one from the configuration: destroying it leaves the other's site in place.")
		return
	}
	var drift sitetree.Drift
	moved := movedStoreProblem(site, found, pins)
	switch {
	case found.Foreign != "":
		drift.Whole = foreignProblem(site, found.Foreign)
		drift.Foreign = true
	case moved != "":
		drift.Whole = moved
	case found.Current == "":
		drift.Whole = fmt.Sprintf("%s does not exist on this machine (a fresh runner, or it was removed)", site.Dir)
	default:
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("release_directory"), types.StringValue(site.Release(found.Current)))...)
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("manifest_file"), types.StringValue(site.Record(found.Current, sitetree.ManifestRecord)))...)
		var read int
		var stat bool
		drift, read, stat, err = sitetree.Check(ctx, site, found.Current, state.ManifestSHA256.ValueString(), pins.StatSHA256, state.FileCount.ValueInt64())
		tflog.Debug(ctx, "checked the static site's release", map[string]any{"release": found.Current, "read": read, "stat_data": stat})
		if err != nil {
			resp.Diagnostics.AddAttributeWarning(path.Root("directory"), "Cannot check the static site on disk",
				fmt.Sprintf("Reading %s to compare it with the site of export job %s failed: %s", site.Dir, state.JobID.ValueString(), err))
			notIntact()
			return
		}
	}
	if !drift.None() {
		resp.Diagnostics.AddWarning("The static site on disk differs from its manifest", drift.String(site.Dir, state.JobID.ValueString()))
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("tree_intact"), types.BoolValue(drift.None()))...)
}

// Update publishes a new export's site, or a fresh copy of a site that
// refresh found damaged: a fresh link, one download, one switch. A change
// of timeouts alone only records them.
func (r *staticSiteResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state staticSiteModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID = state.ID
	newExport := republishes(plan.JobID, plan.ExpectedSHA256, state.JobID, state.ExpectedSHA256)
	if !newExport && state.TreeIntact.ValueBool() {
		plan.publicationFromState(state)
		plan.TreeIntact = types.BoolValue(true)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	ctx, limit, ok := beginOperation(ctx, r.data, "the site cannot be published", plan.Timeouts.Update, defaultSiteTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	summary, expected := "Cannot publish the static site", plan.ExpectedSHA256.ValueString()
	if !newExport {
		// A restore publishes the same archive again.
		summary, expected = "Cannot restore the static site", state.ArchiveSHA256.ValueString()
	}
	pins, ok := r.publish(ctx, &plan, expected, timeoutUpdate, limit, summary, &resp.Diagnostics)
	if !ok {
		return
	}
	resp.Diagnostics.Append(recordSitePins(ctx, resp.Private, pins)...)
	if !newExport && !plan.ManifestSHA256.Equal(state.ManifestSHA256) {
		// The same archive gives the same manifest: only a change of the
		// provider's tables could tell it otherwise.
		tflog.Warn(ctx, "the restored site's manifest differs from the one in state", map[string]any{"job_id": state.JobID.ValueString()})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete removes the link and the store this site published from (by the
// identity recorded in private state), and nothing else: a directory
// another site took over, that holds what the provider did not write, or
// whose store is another user's or not the one recorded, stays, and a
// warning says what was left.
func (r *staticSiteResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state staticSiteModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	site, err := publish.Locate(state.Directory.ValueString())
	if err != nil {
		resp.Diagnostics.AddError("Cannot remove the static site", err.Error())
		return
	}
	pins := recordedSitePins(ctx, req.Private)
	// Where the store it published from is not at its name, it is left
	// wherever it went: the provider removes that store only.
	movedStore := ""
	if !pins.Store.IsZero() {
		movedStore = " The store this site published from (" + pins.Store.String() + ") is not there under its name; wherever it " +
			"was moved, it is left as it is."
	}
	found, err := site.Inspect()
	if entry := (*publish.EntryError)(nil); errors.As(err, &entry) {
		// Someone put their own entry where the store was: nothing there
		// is the provider's to remove.
		resp.Diagnostics.AddWarning("The static site's directory was left in place",
			entry.Error()+". Destroying this resource (export job "+state.JobID.ValueString()+") removes nothing there."+movedStore)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot remove the static site", err.Error())
		return
	}
	withdrawn, err := site.Withdraw(state.ID.ValueString(), pins.Store)
	if other := (*publish.OtherStoreError)(nil); errors.As(err, &other) {
		resp.Diagnostics.AddWarning("The static site's directory was left in place",
			other.Error()+". Destroying this resource (export job "+state.JobID.ValueString()+") removes nothing there: that store "+
				"and "+site.Dir+" stay as they are. Remove them by hand if they are no longer needed."+movedStore)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot remove the static site", fmt.Sprintf("Removing %s and %s failed: %s", site.Dir, site.Store, err))
		return
	}
	switch {
	case !withdrawn.Removed && found.Marker != nil:
		resp.Diagnostics.AddWarning("The static site's directory was left in place",
			(&publish.ConflictError{Site: site, Other: *found.Marker}).Error()+"; destroying this resource (export job "+
				state.JobID.ValueString()+") leaves that site as it is.")
	case found.Foreign != "":
		removed := "There was no store of this site beside it to remove."
		if withdrawn.Removed {
			removed = "The provider removed its own store, " + site.Store + "."
		}
		resp.Diagnostics.AddWarning("The static site's directory was left in place",
			fmt.Sprintf("%s holds %s, which the provider did not write; it is left as it is. %s", site.Dir, found.Foreign, removed))
	}
	if len(withdrawn.Left) > 0 {
		resp.Diagnostics.AddWarning("The static site's store was left in place",
			fmt.Sprintf("%s holds entries that the provider did not make, which it left as they are, and the directory with them: %s. "+
				"Everything of the provider's own in it was removed.", site.Store, strings.Join(withdrawn.Left, ", ")))
	}
}

func newSiteOwner() string {
	return "site-" + rand.Text()
}

// ImportState refuses an import in words of this resource, rather than the
// framework's generic refusal: the manifest is recorded by the download
// that writes the tree, so an import would have to do what a create does.
func (r *staticSiteResource) ImportState(_ context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.AddError("docsadmin_static_site cannot be imported",
		fmt.Sprintf("Import of %q was asked for, but a site's manifest and its record of ownership (site.json beside directory) are written by the download "+
			"that writes the tree, so an import would have to download and unpack the export as a create does. "+
			"Add the resource to the configuration, with the export's job_id and the directory, and run terraform apply instead.", req.ID))
}
