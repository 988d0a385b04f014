package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
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

// The descriptions of the manifest's attributes, shared by the resource and
// the data source.
const (
	siteFilesDescription = "Every regular file of the site, by its path relative to the site's root (such as `guides/getting-started.html`): " +
		"`size` in bytes, `sha256` and `md5` (lower-case hex: `content_md5` of `azurerm_storage_blob` takes it), `md5_base64` (as the " +
		"`Content-MD5` header carries it, and as `source_md5hash` of `google_storage_bucket_object` is documented), `content_type` and `cache_control` " +
		"from a table fixed in the provider, the same on every system. `content_type`: `.html` `text/html; charset=utf-8`, `.css`, `.js`/`.mjs`, " +
		"`.txt` with `charset=utf-8`, `.json` and `.map` `application/json`, `.rsc` `text/x-component`, `.ico` `image/x-icon`, images, fonts " +
		"(`font/woff2`...), `.pdf`, `.wasm`, `.webmanifest`; anything else `application/octet-stream`. `cache_control`: pages and their RSC payloads (`.html`, `.txt`, `.rsc`: " +
		"`robots.txt` too), `sitemap*.xml` and `.json` files at the root (the search index) `" + site.CacheShort + "`; files under `_next/static/` or " +
		"whose name holds a content hash (`app.3f9a2c1b.js`) `" + site.CacheImmutable + "`; everything else `" + site.CacheDefault + "`. " +
		"Use it with `for_each` to upload each file with its type, cache policy and checksum."
	siteRoutesDescription = "The extensionless URL of every page, without a leading slash, mapped to its file: `guides/getting-started` to " +
		"`guides/getting-started.html`, `guides` to `guides/index.html`, and the root, `\"\"`, to `index.html`. Pages link to `.html` URLs, but " +
		"canonical and sitemap URLs are extensionless: a host that does not resolve them needs a rewrite or a copy of each page under its route. " +
		"When `guides.html` and `guides/index.html` both exist, `guides` is `guides.html`."
)

// siteManifestModel is what the resource and the data source say of a site.
type siteManifestModel struct {
	ArchiveSHA256 types.String
	FileCount     types.Int64
	SizeBytes     types.Int64
	Files         types.Map
	Routes        types.Map
}

// siteCollector builds a manifest from the files a verifying pass tells,
// refusing a name no host serves alike and more files than maxFiles.
type siteCollector struct {
	manifest *site.Manifest
	maxFiles int
}

func newSiteCollector(maxFiles int) *siteCollector {
	return &siteCollector{manifest: site.NewManifest(), maxFiles: maxFiles}
}

func (c *siteCollector) add(f archive.File) error {
	if c.manifest.Len() >= c.maxFiles {
		return &maxFilesError{limit: c.maxFiles}
	}
	return c.manifest.Add(f.Name, f.Size, f.SHA256, f.MD5)
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
// export job jobID: the archive's refusal, the host's answer, or the local
// failure; never the link itself.
func siteDownloadProblem(jobID, link, what string, limit time.Duration, timeoutName string, err error) string {
	err = downloadProblem(link, err)
	detail := fmt.Sprintf("%s the archive of export job %s failed: %s", what, jobID, err)
	var unservable *archive.Error
	if errors.As(err, &unservable) && !errors.Is(err, archive.ErrRead) {
		detail = fmt.Sprintf("%s the archive of export job %s failed: it cannot be served as a static site: %s", what, jobID, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		if timeoutName != "" {
			detail += fmt.Sprintf(". It did not finish within %s = %s: raise it, for example %s = \"60m\"", timeoutName, duration.Written(limit), timeoutName)
		} else {
			detail += fmt.Sprintf(". It did not finish within %s", duration.Written(limit))
		}
	}
	return detail
}
