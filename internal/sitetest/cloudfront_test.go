package sitetest

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// cloudFrontFunction is the viewer-request function of the S3 and CloudFront
// example, which maps the export's extensionless URLs onto its files.
// main.tf renders it with the folders that hold an index page.
var cloudFrontFunction = filepath.Join("examples", "pipelines", "static-host", "s3-cloudfront", "rewrite.js.tftpl")

// TestCloudFrontFunctionMapsEveryURL runs the example's CloudFront Function
// with Node.js on every URL of an export: each file by its own name, each
// page by its extensionless name, each sitemap URL. Every request must land on
// the file that answers it; a bucket behind CloudFront has nothing else.
func TestCloudFrontFunctionMapsEveryURL(t *testing.T) {
	node := testtools.LookPath(t, "node", "Node.js: "+testtools.MakeTools)
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	code, err := os.ReadFile(filepath.Join(root, cloudFrontFunction))
	if err != nil {
		t.Fatal(err)
	}
	site := unpackedExport(t)
	files := siteFiles(t, site)

	want := map[string]string{}      // URL path -> the file that must answer it
	directories := map[string]bool{} // as main.tf lists them from the routes
	for _, name := range files {
		want["/"+name] = name
		page, ok := strings.CutSuffix(name, ".html")
		if !ok {
			continue
		}
		if dir, ok := strings.CutSuffix(page, "index"); ok && (dir == "" || strings.HasSuffix(dir, "/")) {
			want["/"+dir] = name // guides/index.html answers /guides/ ...
			if dir != "" {
				want["/"+strings.TrimSuffix(dir, "/")] = name // ... and /guides
				directories[strings.TrimSuffix(dir, "/")] = true
			}
		} else {
			want["/"+page] = name
		}
	}
	const placeholder = "${jsonencode(directories)}"
	if strings.Count(string(code), placeholder) != 1 || strings.Count(string(code), "${") != 1 {
		t.Fatalf("%s must hold %s once, and no other template sequence", cloudFrontFunction, placeholder)
	}
	dirs, _ := json.Marshal(directories)
	code = []byte(strings.Replace(string(code), placeholder, string(dirs), 1))
	sitemap, err := os.ReadFile(filepath.Join(site, "sitemap.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var urls struct {
		Locs []string `xml:"url>loc"`
	}
	if err := xml.Unmarshal(sitemap, &urls); err != nil || len(urls.Locs) == 0 {
		t.Fatalf("sitemap.xml: %v, %d URLs", err, len(urls.Locs))
	}
	for _, loc := range urls.Locs {
		p := strings.TrimPrefix(loc, "https://docs.example.com")
		if _, ok := want[p]; !ok {
			t.Errorf("sitemap URL %s is no page of the export", loc)
		}
	}

	uris := make([]string, 0, len(want))
	for u := range want {
		uris = append(uris, u)
	}
	slices.Sort(uris)
	in, _ := json.Marshal(uris)
	driver := string(code) + `
var uris = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(uris.map(function (uri) {
  return handler({ request: { uri: uri, method: 'GET', querystring: {}, headers: {}, cookies: {} } }).uri;
})));
`
	cmd := exec.Command(node, "-e", driver)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(uris) {
		t.Fatalf("the function's answers %s: %v", out, err)
	}
	for i, uri := range uris {
		if got[i] != "/"+want[uri] {
			t.Errorf("%s is served from %s, want /%s", uri, got[i], want[uri])
		}
	}
}
