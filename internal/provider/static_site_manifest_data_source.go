package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/manifestcache"
)

// manifestNotRead is what the data source did not do when an archive holds
// more files than max_files.
const manifestNotRead = "no manifest was read"

var _ datasource.DataSourceWithConfigure = (*staticSiteManifestDataSource)(nil)

// NewStaticSiteManifestDataSource is the docsadmin_static_site_manifest data
// source.
func NewStaticSiteManifestDataSource() datasource.DataSource { return &staticSiteManifestDataSource{} }

// staticSiteManifestDataSource lists the files of a completed export's site
// by downloading and verifying its archive, writing nothing: the manifest
// docsadmin_static_site records, for a configuration that plans uploads of
// an export made elsewhere.
type staticSiteManifestDataSource struct {
	data *providerData
}

type staticSiteManifestDataModel struct {
	JobID          types.String `tfsdk:"job_id"`
	MaxFiles       types.Int64  `tfsdk:"max_files"`
	CacheDirectory types.String `tfsdk:"cache_directory"`
	ArchiveSHA256  types.String `tfsdk:"archive_sha256"`
	FileCount      types.Int64  `tfsdk:"file_count"`
	SizeBytes      types.Int64  `tfsdk:"size_bytes"`
	Files          types.Map    `tfsdk:"files"`
	Routes         types.Map    `tfsdk:"routes"`
}

func (d *staticSiteManifestDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_static_site_manifest"
}

func (d *staticSiteManifestDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: desc, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the files of a completed static export's site, as `docsadmin_static_site` would publish them. The first " +
			"read of an export downloads and verifies its archive once (a key with the write scope, which generates links); the manifest is then " +
			"kept in `cache_directory`, and every later read only checks that the job still exists and completed (a read-scoped key is " +
			"enough): no link, no download. The site itself is not written. A new export's files cannot be known while planning the " +
			"configuration that creates it, so a second configuration (or a later stage) reads the completed export by `job_id`, known at plan, " +
			"and plans `for_each` over `files`.",
		Attributes: map[string]schema.Attribute{
			"job_id": schema.StringAttribute{
				MarkdownDescription: "Identifier of a completed export job, such as `se_3f9a2c1b8e7d4a06`.",
				Required:            true,
				Validators:          []validator.String{exportJobIDValidator()},
			},
			"max_files": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Most files the site may hold, counted while the archive streams in: an archive with more is "+
					"refused. Every file is an entry of `files`, which the plans of the uploads read (about %d KiB of the provider's memory "+
					"per file at every plan). Default: `%d`.", manifestMemoryPerFileKiB, defaultManifestMaxFiles),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, maxSiteMaxFiles)},
			},
			"cache_directory": schema.StringAttribute{
				MarkdownDescription: "Where the manifest of each export read is kept, so that later plans read it without a link or a download: " +
					"an export's files never change. Each entry carries the SHA-256 of its content and names its API and job; one that does " +
					"not match is ignored and downloaded again. Whoever can write it can change what a plan uploads, as with Terraform's " +
					"own plugin cache: keep it private to the runner. Keep it between runs to plan with a read-scoped key; entries unused for 30 days are " +
					"removed. Default: `terraform-provider-docsadmin/manifests` in the user's cache directory (`$XDG_CACHE_HOME` or `~/.cache` " +
					"on Linux, `~/Library/Caches` on macOS, `%LocalAppData%` on Windows).",
				Optional:   true,
				Validators: []validator.String{notBlankValidator()},
			},
			"archive_sha256": str("Lower-case hex SHA-256 of the archive."),
			"file_count":     schema.Int64Attribute{MarkdownDescription: "Number of files in the site.", Computed: true},
			"size_bytes":     schema.Int64Attribute{MarkdownDescription: "Sum of the files' sizes, in bytes.", Computed: true},
			"files": schema.MapAttribute{
				MarkdownDescription: siteFilesDescription,
				ElementType:         siteFileType,
				Computed:            true,
			},
			"routes": schema.MapAttribute{
				MarkdownDescription: siteRoutesDescription,
				ElementType:         types.StringType,
				Computed:            true,
			},
		},
	}
}

func (d *staticSiteManifestDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

// cached is the manifest of jobID from the cache, when it holds one that
// can be trusted.
func (d *staticSiteManifestDataSource) cached(ctx context.Context, cache *manifestcache.Cache, jobID string, maxFiles int, diags *diag.Diagnostics) (*siteCollector, archive.Summary, bool) {
	collector := newSiteCollector(maxFiles, manifestNotRead)
	sha, ok, err := cache.Load(jobID, collector.add)
	if err != nil {
		diags.AddError("Cannot read the static site's manifest", fmt.Sprintf("The site of export job %s: %s", jobID, err))
		return nil, archive.Summary{}, false
	}
	if !ok {
		return nil, archive.Summary{}, false
	}
	tflog.Debug(ctx, "the site's manifest comes from the cache: no link, no download", map[string]any{"job_id": jobID})
	return collector, archive.Summary{SHA256: sha}, true
}

func (d *staticSiteManifestDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg staticSiteManifestDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	ctx, ok := begin(ctx, d.data, "the site's manifest cannot be read", &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, defaultSiteTimeout)
	defer cancel()

	jobID := cfg.JobID.ValueString()
	maxFiles := int64(defaultManifestMaxFiles)
	if !cfg.MaxFiles.IsNull() {
		maxFiles = cfg.MaxFiles.ValueInt64()
	}
	cacheDir := manifestcache.DefaultDir()
	if !cfg.CacheDirectory.IsNull() {
		cacheDir = cfg.CacheDirectory.ValueString()
	}
	// The job is read every time: one that is gone or failed is said so,
	// whatever the cache holds.
	if !d.data.completedExport(ctx, jobID, &resp.Diagnostics) {
		return
	}
	cache := manifestcache.New(cacheDir, client.APIAddress(d.data.baseURL))
	collector, sum, ok := d.cached(ctx, cache, jobID, int(maxFiles), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !ok {
		link := d.data.completedExportLink(ctx, jobID, &resp.Diagnostics)
		if link == nil {
			return
		}
		collector = newSiteCollector(int(maxFiles), manifestNotRead)
		var err error
		sum, err = d.data.limits.FetchFiles(ctx, nil, link.BundleURL, archive.UnpackOptions{File: collector.add, Dir: collector.dir})
		if err != nil {
			resp.Diagnostics.AddError("Cannot read the static site's manifest", d.data.siteDownloadProblem(jobID, link.BundleURL, "reading", defaultSiteTimeout, nil, err))
			return
		}
		if err := cache.Store(jobID, sum.SHA256, collector.manifest); err != nil {
			resp.Diagnostics.AddWarning("The site's manifest was not cached", fmt.Sprintf(
				"Writing the manifest of export job %s to %s failed, so the next plan downloads the archive again: %s", jobID, cacheDir, err))
		}
	}
	manifest, diags := collector.model(sum)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	tflog.Debug(ctx, "read the export's site manifest", map[string]any{"job_id": jobID, "sha256": sum.SHA256, "files": manifest.FileCount.ValueInt64(), "cached": ok})
	cfg.ArchiveSHA256 = manifest.ArchiveSHA256
	cfg.FileCount = manifest.FileCount
	cfg.SizeBytes = manifest.SizeBytes
	cfg.Files = manifest.Files
	cfg.Routes = manifest.Routes
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}
