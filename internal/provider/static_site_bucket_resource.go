package provider

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

var (
	_ resource.ResourceWithConfigure      = (*bucketSiteResource)(nil)
	_ resource.ResourceWithValidateConfig = (*bucketSiteResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*bucketSiteResource)(nil)
	_ resource.ResourceWithImportState    = (*bucketSiteResource)(nil)
)

// NewStaticSiteBucketResource is the docsadmin_static_site_bucket resource.
func NewStaticSiteBucketResource() resource.Resource { return &bucketSiteResource{} }

// bucketSiteResource publishes an export's site into an object store
// (internal/objectstore): by content, in an order no reader sees half of,
// touching only what it wrote, which a record under the prefix lists and
// state pins by its SHA-256. State holds no file.
type bucketSiteResource struct {
	data *providerData
}

type bucketSiteModel struct {
	ID             types.String     `tfsdk:"id"`
	JobID          types.String     `tfsdk:"job_id"`
	ExpectedSHA256 types.String     `tfsdk:"expected_sha256"`
	S3             *bucketS3Model   `tfsdk:"s3"`
	GCS            *bucketGCSModel  `tfsdk:"gcs"`
	Azure          *bucketAzureMode `tfsdk:"azure"`
	Prefix         types.String     `tfsdk:"prefix"`
	Extensionless  types.Bool       `tfsdk:"extensionless_pages"`
	MaxFiles       types.Int64      `tfsdk:"max_files"`
	MaxDeletes     types.Int64      `tfsdk:"max_deletes"`
	Concurrency    types.Int64      `tfsdk:"concurrency"`
	ArchiveSHA256  types.String     `tfsdk:"archive_sha256"`
	FileCount      types.Int64      `tfsdk:"file_count"`
	SizeBytes      types.Int64      `tfsdk:"size_bytes"`
	RecordSHA256   types.String     `tfsdk:"record_sha256"`
	ObjectsIntact  types.Bool       `tfsdk:"objects_intact"`
	Timeouts       timeouts.Value   `tfsdk:"timeouts"`
}

type bucketS3Model struct {
	Bucket       types.String `tfsdk:"bucket"`
	Region       types.String `tfsdk:"region"`
	Endpoint     types.String `tfsdk:"endpoint"`
	UsePathStyle types.Bool   `tfsdk:"use_path_style"`
}

type bucketGCSModel struct {
	Bucket types.String `tfsdk:"bucket"`
}

type bucketAzureMode struct {
	Container types.String `tfsdk:"container"`
	Account   types.String `tfsdk:"account"`
}

// target is the store the model names; ok is false while any part of it
// is unknown.
func (m *bucketSiteModel) target() (objectstore.Target, bool) {
	t := objectstore.Target{Prefix: m.Prefix.ValueString()}
	known := !m.Prefix.IsUnknown()
	switch {
	case m.S3 != nil:
		t.Kind, t.Bucket, t.Region, t.Endpoint = objectstore.KindS3, m.S3.Bucket.ValueString(), m.S3.Region.ValueString(), m.S3.Endpoint.ValueString()
		t.PathStyle = m.S3.UsePathStyle.ValueBool()
		known = known && !m.S3.Bucket.IsUnknown() && !m.S3.Region.IsUnknown() && !m.S3.Endpoint.IsUnknown() && !m.S3.UsePathStyle.IsUnknown()
	case m.GCS != nil:
		t.Kind, t.Bucket = objectstore.KindGCS, m.GCS.Bucket.ValueString()
		known = known && !m.GCS.Bucket.IsUnknown()
	case m.Azure != nil:
		t.Kind, t.Bucket, t.Account = objectstore.KindAzure, m.Azure.Container.ValueString(), m.Azure.Account.ValueString()
		known = known && !m.Azure.Container.IsUnknown() && !m.Azure.Account.IsUnknown()
	default:
		return t, false
	}
	return t, known
}

// aliases are the extensionless keys of the site's pages, when the model
// asks for them (by default for the stores whose websites never add
// .html).
func (m *bucketSiteModel) aliases(manifest *site.Manifest) map[string]string {
	if m.Extensionless.IsNull() && m.S3 != nil || !m.Extensionless.IsNull() && !m.Extensionless.ValueBool() {
		return nil
	}
	return objectstore.Aliases(manifest)
}

// publicationFromState copies what state says of the published site into
// the plan, when nothing is published again.
func (m *bucketSiteModel) publicationFromState(state bucketSiteModel) {
	m.ArchiveSHA256, m.FileCount, m.SizeBytes, m.RecordSHA256 = state.ArchiveSHA256, state.FileCount, state.SizeBytes, state.RecordSHA256
}

func (r *bucketSiteResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_static_site_bucket"
}

func (r *bucketSiteResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.Object{objectplanmodifier.RequiresReplace()}
	stores := []path.Expression{path.MatchRoot("s3"), path.MatchRoot("gcs"), path.MatchRoot("azure")}
	bucketName := func(what string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: what, Required: true,
			Validators: []validator.String{stringCheck{summary: "Invalid bucket", description: "must be a bucket's name", check: prefixed(objectstore.BucketProblem)}}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Publishes the site of a completed static export into an object store: an S3 bucket (or an S3-compatible " +
			"store: MinIO, R2, versitygw), a Google Cloud Storage bucket or an Azure Blob container, under a prefix, for a static " +
			"host or CDN that serves from it. The archive is downloaded once and verified, and the store is listed once; only new " +
			"or changed files are uploaded, each with its content type and cache policy, and what the new export lacks is deleted " +
			"last. Uploads run in an order no reader sees half of: the files pages load first, then new pages, then changed pages, " +
			"then the root's `index.html`; then pages that went, then the files they loaded. A publication stopped partway leaves " +
			"every page working, and the next apply completes it.\n\n" +
			"The provider overwrites and deletes only objects it wrote: `.docsadmin/site.json` under the prefix records them, and " +
			"`record_sha256` pins that record. An object it did not write at a key the site needs (another tool's, a user's) refuses " +
			"the publication before anything is written; objects outside the site's keys, and sites under sibling prefixes, are " +
			"never touched. An object of the provider's that someone else replaced since is left, and no longer the provider's.\n\n" +
			"Credentials come from each store's standard chain, never from the configuration: for S3 the AWS SDK's (`AWS_ACCESS_KEY_ID`, " +
			"`AWS_PROFILE`, the shared files, web identity, instance roles); for GCS Application Default Credentials " +
			"(`GOOGLE_APPLICATION_CREDENTIALS`, workload identity; `STORAGE_EMULATOR_HOST` for an emulator); for Azure " +
			"`AZURE_STORAGE_ACCOUNT` with `AZURE_STORAGE_KEY` or `AZURE_STORAGE_SAS_TOKEN`, `AZURE_STORAGE_CONNECTION_STRING`, or an " +
			"Azure identity (environment, workload identity, managed identity, the Azure CLI).\n\n" +
			"Refresh lists the prefix and reads the record, and no other object: an object of the site removed or replaced by hand " +
			"is drift, which the next apply restores from the same archive. State holds no file, whatever the site's size.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "Identifies this publication; the record under the prefix names it as its owner.",
				Computed:            true, PlanModifiers: keepFromState(),
			},
			"job_id": schema.StringAttribute{
				MarkdownDescription: "Identifier of a completed export job, such as `docsadmin_static_export.docs.job_id`. Changing it " +
					"publishes the new export's site in place: only the files that differ are written.",
				Required:   true,
				Validators: []validator.String{exportJobIDValidator()},
			},
			"expected_sha256": schema.StringAttribute{
				MarkdownDescription: "SHA-256 the archive must have, typically `docsadmin_static_export.docs.archive_sha256`. An archive " +
					"with another digest is refused before anything is written. Default: no comparison (the archive is still verified).",
				Optional:   true,
				Validators: []validator.String{stringCheck{summary: "Invalid SHA-256", description: "must be 64 hexadecimal digits", check: sha256Problem}},
			},
			"s3": schema.SingleNestedAttribute{
				MarkdownDescription: "An S3 bucket, or a bucket of an S3-compatible store. Exactly one of `s3`, `gcs` and `azure` is set; " +
					"changing the store replaces the resource.",
				Optional: true, PlanModifiers: replace,
				Validators: []validator.Object{objectvalidator.ExactlyOneOf(stores...)},
				Attributes: map[string]schema.Attribute{
					"bucket": bucketName("The bucket's name."),
					"region": schema.StringAttribute{Optional: true, MarkdownDescription: "The bucket's region, such as `eu-west-1`. " +
						"Default: the AWS SDK's (`AWS_REGION`, the shared configuration)."},
					"endpoint": schema.StringAttribute{Optional: true, MarkdownDescription: "The URL of an S3-compatible store, such as " +
						"`https://<account>.r2.cloudflarestorage.com`. Default: AWS.",
						Validators: []validator.String{stringCheck{summary: "Invalid endpoint", description: "must be an http or https URL with a host and nothing else", check: endpointProblem}}},
					"use_path_style": schema.BoolAttribute{Optional: true, MarkdownDescription: "Address the bucket in the path " +
						"(`https://host/bucket/key`) rather than the host name, as MinIO and versitygw need. Default: `false`."},
				},
			},
			"gcs": schema.SingleNestedAttribute{
				MarkdownDescription: "A Google Cloud Storage bucket.",
				Optional:            true, PlanModifiers: replace,
				Attributes: map[string]schema.Attribute{"bucket": bucketName("The bucket's name.")},
			},
			"azure": schema.SingleNestedAttribute{
				MarkdownDescription: "An Azure Blob Storage container; for a static website, `$web`.",
				Optional:            true, PlanModifiers: replace,
				Attributes: map[string]schema.Attribute{
					"container": bucketName("The container's name."),
					"account": schema.StringAttribute{Optional: true, MarkdownDescription: "The storage account. Default: " +
						"`AZURE_STORAGE_ACCOUNT`, or the account of `AZURE_STORAGE_CONNECTION_STRING`."},
				},
			},
			"prefix": schema.StringAttribute{
				MarkdownDescription: "The folder of the bucket the site is published under, such as `docs` (its pages are then " +
					"`docs/index.html`, ...). Sites under sibling prefixes (`docs-v2`) are never touched. Changing it replaces the " +
					"resource. Default: the bucket's root.",
				Optional: true, Computed: true, Default: stringdefault.StaticString(""),
				Validators:    []validator.String{stringCheck{summary: "Invalid prefix", description: "must be a folder of keys", check: prefixed(objectstore.PrefixProblem)}},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"extensionless_pages": schema.BoolAttribute{
				MarkdownDescription: "Also store each page under its extensionless URL, with the page's content type: " +
					"`guides/getting-started` for `guides/getting-started.html`, `guides` for `guides/index.html`. Cloud Storage and Azure " +
					"static websites never add `.html` to a URL, so the export's canonical and sitemap URLs need these copies; behind " +
					"CloudFront a viewer-request function maps the URLs instead. Changing it writes or deletes the copies, from the same " +
					"archive. Default: `true` for `gcs` and `azure`, `false` for `s3`.",
				Optional: true,
			},
			"max_files": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Most files the site may hold, counted while the archive streams in. At most `%d`. "+
					"Default: `%d`.", maxSiteMaxFiles, defaultSiteMaxFiles),
				Optional: true, Computed: true, Default: int64default.StaticInt64(defaultSiteMaxFiles),
				Validators: []validator.Int64{int64validator.Between(1, maxSiteMaxFiles)},
			},
			"max_deletes": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Most objects one publication deletes (files the new export lacks), as `hugo deploy`'s "+
					"`maxDeletes`: a publication that would delete more is refused before anything is written. Destroy is not bounded: "+
					"its plan says the whole site goes. Default: `%d`.", objectstore.DefaultMaxDeletes),
				Optional: true, Computed: true, Default: int64default.StaticInt64(objectstore.DefaultMaxDeletes),
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"concurrency": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Requests to the store at once. Default: `%d`, at most `%d`.", objectstore.DefaultConcurrency, objectstore.MaxConcurrency),
				Optional:            true, Computed: true, Default: int64default.StaticInt64(objectstore.DefaultConcurrency),
				Validators: []validator.Int64{int64validator.Between(1, objectstore.MaxConcurrency)},
			},
			"archive_sha256": schema.StringAttribute{
				MarkdownDescription: "Lower-case hex SHA-256 of the archive published.", Computed: true, PlanModifiers: keepFromState(),
			},
			"file_count": useStateInt64Attribute("Number of files of the site."),
			"size_bytes": useStateInt64Attribute("Sum of the files' sizes, in bytes."),
			"record_sha256": schema.StringAttribute{
				MarkdownDescription: "SHA-256 of the record `.docsadmin/site.json` under the prefix, which lists every object the " +
					"provider wrote. A record that differs is not relied on: no object is then the provider's to overwrite or delete.",
				Computed: true, PlanModifiers: keepFromState(),
			},
			"objects_intact": schema.BoolAttribute{
				MarkdownDescription: "Whether the last refresh found every object of the site as the provider wrote it, and its record " +
					"as state pins it. False after a change by hand or a publication stopped partway; a plan then publishes again in place " +
					"and plans `true`.",
				Computed: true,
			},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create: true, Update: true, Delete: true,
				CreateDescription: "Longest time for the link, the download and the publication. Default: `" + duration.Written(defaultSiteTimeout) + "`.",
				UpdateDescription: "Longest time for publishing a new export or restoring the site. Default: `" + duration.Written(defaultSiteTimeout) + "`.",
				DeleteDescription: "Longest time for deleting the site's objects. Default: `" + duration.Written(defaultSiteTimeout) + "`.",
			}),
		},
	}
}

// prefixed words a problem of a value as the attribute validators do.
func prefixed(problem func(string) string) func(string) string {
	return func(s string) string {
		if p := problem(s); p != "" {
			return fmt.Sprintf("%q: %s", s, p)
		}
		return ""
	}
}

func (r *bucketSiteResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(validateTimeouts[timeouts.Value](ctx, req.Config)...)
}

func (r *bucketSiteResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan checks a new site's store at plan (that it answers and that
// no other site publishes under the prefix), and plans a publication for a
// new export or a site that refresh found changed.
func (r *bucketSiteResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan bucketSiteModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if req.State.Raw.IsNull() {
		plan.ObjectsIntact = types.BoolValue(true)
		plan.ArchiveSHA256 = plannedDigest(plan.ExpectedSHA256)
		if t, known := plan.target(); known && !plan.MaxFiles.IsUnknown() && r.data != nil && r.data.client != nil {
			if err := objectstore.CheckNew(ctx, t, int(plan.MaxFiles.ValueInt64())); err != nil {
				resp.Diagnostics.AddError("Cannot publish the site into this store", r.storeProblem(err))
				return
			}
		}
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		return
	}
	var state bucketSiteModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	newExport := republishes(plan.JobID, plan.ExpectedSHA256, state.JobID, state.ExpectedSHA256)
	if !newExport && state.ObjectsIntact.ValueBool() && plan.Extensionless.Equal(state.Extensionless) {
		return
	}
	plan.ObjectsIntact = types.BoolValue(true)
	plan.RecordSHA256 = types.StringUnknown()
	if newExport {
		plan.ArchiveSHA256 = plannedDigest(plan.ExpectedSHA256)
		plan.FileCount, plan.SizeBytes = types.Int64Unknown(), types.Int64Unknown()
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

func (r *bucketSiteResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan bucketSiteModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, limit, ok := beginOperation(ctx, r.data, "the site cannot be published", plan.Timeouts.Create, defaultSiteTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	plan.ID = types.StringValue("bucket-site-" + rand.Text())
	// A create that stops partway leaves no state: its record, never
	// complete, is taken over by the next create at this prefix.
	if r.publish(ctx, &plan, "", plan.ExpectedSHA256.ValueString(), timeoutCreate, limit, "Cannot publish the static site", &resp.Diagnostics) {
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

// publish downloads the export's archive, verifies and unpacks it into a
// temporary directory, and publishes it into the store. A publication that
// fails after writing its record records that record in plan, with
// objects_intact false, so that the next apply trusts it and completes
// the publication.
func (r *bucketSiteResource) publish(ctx context.Context, plan *bucketSiteModel, pinned, expected string, timeout timeoutName,
	limit time.Duration, summary string, diags *diag.Diagnostics) bool {
	jobID := plan.JobID.ValueString()
	t, _ := plan.target()
	store, err := objectstore.OpenStore(ctx, t)
	if err != nil {
		diags.AddError(summary, r.storeProblem(err))
		return false
	}
	defer store.Close()
	link := r.data.completedExportLink(ctx, jobID, diags)
	if link == nil {
		return false
	}
	dir, err := os.MkdirTemp("", "docsadmin-bucket-site-")
	if err != nil {
		diags.AddError(summary, "Making a temporary directory to unpack the site into failed: "+err.Error())
		return false
	}
	defer os.RemoveAll(dir)
	root, err := os.OpenRoot(dir)
	if err != nil {
		diags.AddError(summary, "Opening the temporary directory to unpack the site into failed: "+err.Error())
		return false
	}
	defer root.Close()
	maxFiles := int(plan.MaxFiles.ValueInt64())
	collector := newSiteCollector(maxFiles, "nothing was written")
	opts := archive.UnpackOptions{File: collector.add, Dir: collector.dir}
	if expected != "" {
		opts.Accept = func(sum archive.Summary) error { return archive.CheckSHA256(sum, expected) }
	}
	sum, err := r.data.limits.FetchUnpack(ctx, nil, link.BundleURL, root, opts)
	if err != nil {
		diags.AddError(summary, r.data.siteDownloadProblem(jobID, link.BundleURL, "unpacking into a temporary directory from", limit, timeout, err))
		return false
	}
	manifest := collector.manifest
	manifest.Complete()
	plan.ArchiveSHA256 = types.StringValue(sum.SHA256)
	plan.FileCount = types.Int64Value(int64(manifest.Len()))
	plan.SizeBytes = types.Int64Value(manifest.Size())
	result, err := store.Publish(ctx, objectstore.Publication{
		Root: root, Files: manifest.Files(), Aliases: plan.aliases(manifest), SiteID: plan.ID.ValueString(), JobID: jobID, ArchiveSHA256: sum.SHA256, Pinned: pinned,
		MaxDeletes: int(plan.MaxDeletes.ValueInt64()), Concurrency: int(plan.Concurrency.ValueInt64()), MaxListed: objectstore.MaxListed(maxFiles),
	})
	if result.RecordSHA256 != "" {
		plan.RecordSHA256 = types.StringValue(result.RecordSHA256)
	}
	if len(result.Left) > 0 {
		diags.AddWarning("Objects that changed since the provider wrote them were left", fmt.Sprintf("%s: the new site lacks %d "+
			"objects the provider wrote, which another write has replaced since; they are no longer the provider's, and were left: %s",
			t, len(result.Left), r.data.sanitizer.Text(strings.Join(result.Left[:min(len(result.Left), 10)], ", "), 4<<10)))
	}
	if err != nil {
		plan.ObjectsIntact = types.BoolValue(false)
		detail := r.storeProblem(err)
		var failed *objectstore.PublishError
		if errors.As(err, &failed) {
			detail += ". The pages the store served before still work; the next apply completes the publication"
		}
		diags.AddError(summary, fmt.Sprintf("Publishing the site of export job %s: %s", jobID, detail))
		return false
	}
	plan.ObjectsIntact = types.BoolValue(true)
	tflog.Info(ctx, "published the export's site into the store", map[string]any{
		"job_id": jobID, "store": t.String(), "uploaded": result.Uploaded, "deleted": result.Deleted, "unchanged": result.Unchanged,
	})
	return true
}

// storeProblem is a store's error as a message shows it: its text through
// the sanitizer, which hides any signature an SDK quoted (a SAS token's
// sig=, X-Amz-Signature=) and bounds its length.
func (r *bucketSiteResource) storeProblem(err error) string {
	return r.data.sanitizer.Text(err.Error(), 4<<10)
}

func (r *bucketSiteResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state bucketSiteModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	ctx, ok := begin(ctx, r.data, "the site's objects cannot be checked", &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, objectstore.CheckTimeout)
	defer cancel()
	t, _ := state.target()
	notIntact := func(summary, detail string) {
		resp.Diagnostics.AddWarning(summary, detail)
		state.ObjectsIntact = types.BoolValue(false)
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	}
	store, err := objectstore.OpenStore(ctx, t)
	if err != nil {
		notIntact("Cannot check the static site's objects", r.storeProblem(err))
		return
	}
	defer store.Close()
	drift, err := store.Check(ctx, state.ID.ValueString(), state.RecordSHA256.ValueString(), objectstore.MaxListed(int(state.MaxFiles.ValueInt64())))
	if err != nil {
		// Never removed from state for this: only the store can say the
		// site is gone, and a failed request says nothing.
		notIntact("Cannot check the static site's objects", r.storeProblem(err))
		return
	}
	if !drift.None() {
		notIntact("The static site's objects differ from what the provider published", fmt.Sprintf("%s (export job %s): %s. "+
			"The next apply publishes the same archive again and writes only what differs.", t, state.JobID.ValueString(),
			r.data.sanitizer.Text(drift.String(), 4<<10)))
		return
	}
	state.ObjectsIntact = types.BoolValue(true)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *bucketSiteResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state bucketSiteModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	plan.ID = state.ID
	newExport := republishes(plan.JobID, plan.ExpectedSHA256, state.JobID, state.ExpectedSHA256)
	if !newExport && state.ObjectsIntact.ValueBool() && plan.Extensionless.Equal(state.Extensionless) {
		plan.publicationFromState(state)
		plan.ObjectsIntact = types.BoolValue(true)
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	ctx, limit, ok := beginOperation(ctx, r.data, "the site cannot be published", plan.Timeouts.Update, defaultSiteTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	plan.publicationFromState(state)
	summary, expected := "Cannot publish the static site", plan.ExpectedSHA256.ValueString()
	if !newExport {
		summary, expected = "Cannot restore the static site", state.ArchiveSHA256.ValueString()
	}
	published := r.publish(ctx, &plan, state.RecordSHA256.ValueString(), expected, timeoutUpdate, limit, summary, &resp.Diagnostics)
	if published || !plan.RecordSHA256.Equal(state.RecordSHA256) {
		// A publication that failed after writing its record is saved too:
		// state then pins that record, and objects_intact false plans the
		// publication's completion. One refused before it wrote anything
		// keeps the state as it was.
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	}
}

func (r *bucketSiteResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state bucketSiteModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, limit, ok := beginOperation(ctx, r.data, "the site's objects cannot be deleted", state.Timeouts.Delete, defaultSiteTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	t, _ := state.target()
	store, err := objectstore.OpenStore(ctx, t)
	if err != nil {
		resp.Diagnostics.AddError("Cannot remove the static site", r.storeProblem(err))
		return
	}
	defer store.Close()
	w, err := store.Withdraw(ctx, state.ID.ValueString(), state.RecordSHA256.ValueString(), int(state.Concurrency.ValueInt64()),
		objectstore.MaxListed(int(state.MaxFiles.ValueInt64())))
	if err != nil {
		resp.Diagnostics.AddError("Cannot remove the static site", fmt.Sprintf("Deleting the objects of export job %s: %s. %d were "+
			"deleted; the next destroy deletes the rest", state.JobID.ValueString(), r.storeProblem(err), w.Deleted))
		return
	}
	if w.Record != "" {
		resp.Diagnostics.AddWarning("The static site's objects were left in place", fmt.Sprintf("%s: %s. Destroying this resource "+
			"(export job %s) deleted nothing there.", t, r.data.sanitizer.Text(w.Record, 4<<10), state.JobID.ValueString()))
	}
	if len(w.Left) > 0 {
		resp.Diagnostics.AddWarning("Objects that changed since the provider wrote them were left", fmt.Sprintf("%s: %d objects the "+
			"provider wrote were replaced by another write since, and were left: %s", t, len(w.Left),
			r.data.sanitizer.Text(strings.Join(w.Left[:min(len(w.Left), 10)], ", "), 4<<10)))
	}
	tflog.Info(ctx, "deleted the site's objects", map[string]any{"store": t.String(), "deleted": w.Deleted})
}

// ImportState refuses an import in words of this resource: what it owns is
// the record a publication writes, pinned by the state of that
// publication, so an import would have to publish as a create does.
func (r *bucketSiteResource) ImportState(_ context.Context, _ resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	// The refusal names no part of the id: it may come before the provider
	// is configured, without the sanitizer every outside text goes through.
	resp.Diagnostics.AddError("docsadmin_static_site_bucket cannot be imported",
		"The objects this resource owns are listed in the record its own publication writes, and state pins that record, "+
			"so an import would have to publish as a create does. Add the resource to the configuration with the export's "+
			"job_id and the store, and run terraform apply: a prefix that holds another publication's objects is refused "+
			"before anything is written, naming them.")
}
