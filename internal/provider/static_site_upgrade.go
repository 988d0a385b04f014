package provider

import (
	"context"
	"path/filepath"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// UpgradeState carries a docsadmin_static_site state of every earlier
// schema version to the current one (1); the framework does not chain
// upgraders.
func (r *staticSiteResource) UpgradeState(ctx context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: {PriorSchema: staticSiteSchemaV0(ctx), StateUpgrader: upgradeStaticSiteStateV0},
	}
}

// staticSiteModelV0 is the state of schema version 0, which held every
// file in files and every page's route in routes.
type staticSiteModelV0 struct {
	ID               types.String   `tfsdk:"id"`
	JobID            types.String   `tfsdk:"job_id"`
	Directory        types.String   `tfsdk:"directory"`
	ExpectedSHA256   types.String   `tfsdk:"expected_sha256"`
	MaxFiles         types.Int64    `tfsdk:"max_files"`
	ArchiveSHA256    types.String   `tfsdk:"archive_sha256"`
	FileCount        types.Int64    `tfsdk:"file_count"`
	SizeBytes        types.Int64    `tfsdk:"size_bytes"`
	Files            types.Map      `tfsdk:"files"`
	Routes           types.Map      `tfsdk:"routes"`
	ReleaseDirectory types.String   `tfsdk:"release_directory"`
	TreeIntact       types.Bool     `tfsdk:"tree_intact"`
	Timeouts         timeouts.Value `tfsdk:"timeouts"`
}

type siteFileV0 struct {
	Size         types.Int64  `tfsdk:"size"`
	SHA256       types.String `tfsdk:"sha256"`
	MD5          types.String `tfsdk:"md5"`
	MD5Base64    types.String `tfsdk:"md5_base64"`
	ContentType  types.String `tfsdk:"content_type"`
	CacheControl types.String `tfsdk:"cache_control"`
}

// staticSiteSchemaV0 is schema version 0 as far as reading a state needs
// it: the attributes and their types, frozen here as they were.
func staticSiteSchemaV0(ctx context.Context) *schema.Schema {
	str := func(optional bool) schema.StringAttribute {
		return schema.StringAttribute{Optional: optional, Computed: !optional}
	}
	return &schema.Schema{
		Attributes: map[string]schema.Attribute{
			"id":                str(false),
			"job_id":            schema.StringAttribute{Required: true},
			"directory":         schema.StringAttribute{Required: true},
			"expected_sha256":   str(true),
			"max_files":         schema.Int64Attribute{Optional: true, Computed: true},
			"archive_sha256":    str(false),
			"file_count":        schema.Int64Attribute{Computed: true},
			"size_bytes":        schema.Int64Attribute{Computed: true},
			"files":             schema.MapAttribute{ElementType: siteFileType, Computed: true},
			"routes":            schema.MapAttribute{ElementType: types.StringType, Computed: true},
			"release_directory": str(false),
			"tree_intact":       schema.BoolAttribute{Computed: true},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Update: true}),
		},
	}
}

// upgradeStaticSiteStateV0 drops files and routes from state. The manifest
// they held becomes the record of the release it describes, written in
// the store when the site is there and has none (a store of version 0
// has no records), so that the next refresh checks the tree against it
// and no download follows the upgrade. The tree is read in full at each
// refresh until the next publication records its stat data.
func upgradeStaticSiteStateV0(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	var old staticSiteModelV0
	resp.Diagnostics.Append(req.State.Get(ctx, &old)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var entries map[string]siteFileV0
	resp.Diagnostics.Append(old.Files.ElementsAs(ctx, &entries, false)...)
	if resp.Diagnostics.HasError() {
		return
	}
	files := make(map[string]site.File, len(entries))
	for p, f := range entries {
		files[p] = site.File{
			Path: p, Size: f.Size.ValueInt64(), SHA256: f.SHA256.ValueString(), MD5: f.MD5.ValueString(),
			MD5Base64: f.MD5Base64.ValueString(), ContentType: f.ContentType.ValueString(), CacheControl: f.CacheControl.ValueString(),
		}
	}
	manifest, err := site.EncodeFiles(files)
	if err != nil {
		resp.Diagnostics.AddError("Cannot upgrade the static site's state", err.Error())
		return
	}
	upgraded := staticSiteModel{
		ID: old.ID, JobID: old.JobID, Directory: old.Directory, ExpectedSHA256: old.ExpectedSHA256, MaxFiles: old.MaxFiles,
		ArchiveSHA256: old.ArchiveSHA256, FileCount: old.FileCount, SizeBytes: old.SizeBytes,
		ManifestFile: types.StringNull(), ManifestSHA256: types.StringValue(sha256Hex(manifest)),
		ReleaseDirectory: old.ReleaseDirectory, TreeIntact: old.TreeIntact, Timeouts: old.Timeouts,
	}
	if s, err := publish.Locate(old.Directory.ValueString()); err == nil && !old.ReleaseDirectory.IsNull() {
		release := filepath.Base(old.ReleaseDirectory.ValueString())
		if s.Release(release) == old.ReleaseDirectory.ValueString() {
			upgraded.ManifestFile = types.StringValue(s.Record(release, manifestRecord))
			if err := s.AddRecord(old.ID.ValueString(), release, manifestRecord, manifest); err != nil {
				tflog.Warn(ctx, "the manifest of the site published before the upgrade was not recorded beside its release; the next "+
					"refresh finds no record and the apply publishes the site again", map[string]any{"directory": s.Dir, "error": err.Error()})
			}
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, upgraded)...)
}
