//go:build unix

package sitetree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The report names the first files of each kind: missing, changed (a
// digest, a size, a FIFO in place of a file) and extra.
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
	want := map[string]Want{}
	for i := range 8 {
		name := fmt.Sprintf("page%d.html", i)
		write(name, "same")
		want[name] = Want{Size: 4, SHA256: sha256Hex([]byte("same"))}
	}
	want["gone.html"] = Want{Size: 1, SHA256: strings.Repeat("0", 64)}
	write("page0.html", "diff") // same size, another digest
	write("page1.html", "longer")
	write("assets/extra.js", "x")
	if err := os.Remove(filepath.Join(root, "page2.html")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "page2.html"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	drift, _, err := Compare(ctx, root, want, 0)
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
