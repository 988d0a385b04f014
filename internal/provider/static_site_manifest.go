package provider

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

const (
	// defaultSiteMaxFiles keeps an unchanged plan of a site within seconds
	// and the provider under 250 MiB on a 2-core runner: state holds no
	// file, and a refresh reads the stat record and the tree's metadata
	// (the performance guide has the figures).
	defaultSiteMaxFiles = 100_000
	// defaultManifestMaxFiles keeps the plans of uploads planned from the
	// manifest data source's files within seconds: every file is a value
	// of the plan.
	defaultManifestMaxFiles = 8_000
	maxSiteMaxFiles         = 1_000_000
	// manifestMemoryPerFileKiB is the provider's memory per file of the
	// data source's files at plan, as measured (performance guide).
	manifestMemoryPerFileKiB = 20
)

// defaultSiteTimeout bounds the link request and the download of a site's
// archive, unpacked or only digested.
const defaultSiteTimeout = 30 * time.Minute

// siteFileAttrTypes is the shape of one entry of files.
var siteFileAttrTypes = map[string]attr.Type{
	"size":          types.Int64Type,
	"sha256":        types.StringType,
	"md5":           types.StringType,
	"md5_base64":    types.StringType,
	"content_type":  types.StringType,
	"cache_control": types.StringType,
}

var siteFileType = types.ObjectType{AttrTypes: siteFileAttrTypes}

// The descriptions of the data source's files and routes, the shape of the
// resource's manifest_file (site.EncodeFiles).
var (
	siteFilesDescription = "Every regular file of the site, by its path relative to the site's root (such as `guides/getting-started.html`): " +
		"`size` in bytes, `sha256` and `md5` (lower-case hex: `content_md5` of `azurerm_storage_blob` takes it), `md5_base64` (as the " +
		"`Content-MD5` header carries it, and as `source_md5hash` of `google_storage_bucket_object` is documented), `content_type` and `cache_control` " +
		"from a table fixed in the provider, the same on every system. `content_type`: " + contentTypeTable() + ". `cache_control`: pages and their RSC payloads (`.html`, `.txt`, `.rsc`: " +
		"`robots.txt` too), `sitemap*.xml` and `.json` files at the root (the search index) `" + site.CacheShort + "`; files under `_next/static/` or " +
		"whose name holds a content hash (`app.3f9a2c1b.js`) `" + site.CacheImmutable + "`; everything else `" + site.CacheDefault + "`. " +
		"Use it with `for_each` to upload each file with its type, cache policy and checksum."
	siteRoutesDescription = "The extensionless URL of every page, without a leading slash, mapped to its file: `guides/getting-started` to " +
		"`guides/getting-started.html`, `guides` to `guides/index.html`, and the root, `\"\"`, to `index.html`. Pages link to `.html` URLs, but " +
		"canonical and sitemap URLs are extensionless: a host that does not resolve them needs a rewrite or a copy of each page under its route. " +
		"When `guides.html` and `guides/index.html` both exist, `guides` is `guides.html`."
)

// contentTypeTable describes internal/site's table of content types, from
// the table itself: extensions of one type together, types in order.
func contentTypeTable() string {
	byType := map[string][]string{}
	for ext, typ := range site.ContentTypes() {
		byType[typ] = append(byType[typ], "`"+ext+"`")
	}
	var parts []string
	for _, typ := range slices.Sorted(maps.Keys(byType)) {
		exts := byType[typ]
		slices.Sort(exts)
		parts = append(parts, strings.Join(exts, ", ")+" `"+typ+"`")
	}
	return strings.Join(parts, "; ") + "; anything else `" + site.DefaultContentType + "`"
}

// siteManifestModel is what the data source says of a site.
type siteManifestModel struct {
	ArchiveSHA256 types.String
	FileCount     types.Int64
	SizeBytes     types.Int64
	Files         types.Map
	Routes        types.Map
}

// siteCollector builds a manifest from the files a verifying pass tells,
// refusing a name no host serves alike and more files than maxFiles. For a
// tree on disk (withDirs), directories count against maxFiles too: a
// refresh walks each of them as it checks each file.
type siteCollector struct {
	manifest *site.Manifest
	maxFiles int
	refused  string // what a reader that meets maxFiles did not do
	withDirs bool
}

// newSiteCollector collects the files of a manifest the plan holds, or of
// objects a store holds, whose cost is their files.
func newSiteCollector(maxFiles int, refused string) *siteCollector {
	return &siteCollector{manifest: site.NewManifest(), maxFiles: maxFiles, refused: refused}
}

// newSiteTreeCollector collects the files of a tree unpacked on disk,
// whose cost is its files and directories.
func newSiteTreeCollector(maxFiles int, refused string) *siteCollector {
	c := newSiteCollector(maxFiles, refused)
	c.withDirs = true
	return c
}

func (c *siteCollector) add(f archive.File) error {
	if c.manifest.Len() >= c.maxFiles {
		return c.overflow()
	}
	if err := c.manifest.Add(f.Name, f.Size, f.SHA256, f.MD5); err != nil {
		return err
	}
	return c.checkDirs()
}

// dir checks a directory the archive names, by the rules of the files'
// names: one a host could not serve alike (.git/, a backslash, a name that
// folds as a file's) is refused before it is made.
func (c *siteCollector) dir(name string) error {
	if err := c.manifest.AddDir(name); err != nil {
		return err
	}
	return c.checkDirs()
}

// checkDirs refuses a tree whose files and directories are more than
// maxFiles, where directories count.
func (c *siteCollector) checkDirs() error {
	if c.withDirs && c.manifest.Len()+c.manifest.Dirs() > c.maxFiles {
		return c.overflow()
	}
	return nil
}

func (c *siteCollector) overflow() error {
	e := &maxFilesError{limit: c.maxFiles, files: c.manifest.Len(), dirs: -1, consequence: c.refused}
	if c.withDirs {
		e.dirs = c.manifest.Dirs()
	}
	return e
}

// model turns the manifest and the archive's digest into attribute values.
func (c *siteCollector) model(sum archive.Summary) (siteManifestModel, diag.Diagnostics) {
	var diags diag.Diagnostics
	files := make(map[string]attr.Value, c.manifest.Len())
	for p, f := range c.manifest.Files() {
		obj, d := types.ObjectValue(siteFileAttrTypes, map[string]attr.Value{
			"size":          types.Int64Value(f.Size),
			"sha256":        types.StringValue(f.SHA256),
			"md5":           types.StringValue(f.MD5),
			"md5_base64":    types.StringValue(f.MD5Base64),
			"content_type":  types.StringValue(f.ContentType),
			"cache_control": types.StringValue(f.CacheControl),
		})
		diags.Append(d...)
		files[p] = obj
	}
	filesValue, d := types.MapValue(siteFileType, files)
	diags.Append(d...)
	routes := map[string]attr.Value{}
	for route, p := range c.manifest.Routes() {
		routes[route] = types.StringValue(p)
	}
	routesValue, d := types.MapValue(types.StringType, routes)
	diags.Append(d...)
	return siteManifestModel{
		ArchiveSHA256: types.StringValue(sum.SHA256),
		FileCount:     types.Int64Value(int64(c.manifest.Len())),
		SizeBytes:     types.Int64Value(c.manifest.Size()),
		Files:         filesValue,
		Routes:        routesValue,
	}, diags
}

// siteDownloadProblem words a failed download of a site's archive for
// export job jobID (see archiveFailure).
func (d *providerData) siteDownloadProblem(jobID, link, what string, limit time.Duration, timeout fmt.Stringer, err error) string {
	failure := archiveFailure{doing: what + " the archive of export job " + jobID, use: "a static host", timeout: timeout, limit: limit}
	return failure.explain(d, link, err)
}
