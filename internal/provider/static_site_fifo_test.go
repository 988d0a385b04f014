//go:build unix

// FIFOs are made with syscall.Mkfifo, which Windows has not.

package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// A FIFO in place of a file is reported as changed without being opened,
// and destroy ends.
func TestStaticSite_specialFilesAreNeverOpened(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := filepath.Join(t.TempDir(), "site")
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{Config: siteConfig(mock, dir, "")},
			{
				PreConfig: func() {
					index := filepath.Join(dir, "index.html")
					removeOrFail(t, index)
					if err := syscall.Mkfifo(index, 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config:             siteConfig(mock, dir, ""),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// A FIFO in place of a file is named as no longer a regular file.
func TestSiteDriftNamesTheFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]siteWant{}
	for i := range 8 {
		name := fmt.Sprintf("page%d.html", i)
		write(name, "same")
		want[name] = siteWant{size: 4, sha256: acctest.SHA256Hex([]byte("same"))}
	}
	want["gone.html"] = siteWant{size: 1, sha256: strings.Repeat("0", 64)}
	write("page0.html", "diff") // same size, another digest
	write("page1.html", "longer")
	write("assets/extra.js", "x")
	removeOrFail(t, filepath.Join(root, "page2.html"))
	if err := syscall.Mkfifo(filepath.Join(root, "page2.html"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	drift, _, err := compareSiteTree(ctx, root, want, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := drift.String("/srv/site", "se_1")
	for _, s := range []string{`1 missing: "gone.html"`, `3 changed:`, `"page0.html"`, `"page1.html"`, `"page2.html (no longer a regular file)"`,
		`1 extra (not in the export): "assets/extra.js"`, "publishes a fresh copy"} {
		if !strings.Contains(got, s) {
			t.Errorf("the drift report does not say %s:\n%s", s, got)
		}
	}
}
