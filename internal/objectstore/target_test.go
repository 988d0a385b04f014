package objectstore

import (
	"crypto/md5"
	"crypto/sha256"
	"maps"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// A bucket's name is refused at plan when no store could hold it, saying
// what to write instead.
func TestBucketProblem(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"docs-site":              "",
		"$web":                   "",
		strings.Repeat("a", 222): "",
		"":                       "the name is empty",
		strings.Repeat("a", 223): "longer than 222 bytes",
		"s3://docs":              "write the name alone",
		"docs/site":              "write the name alone",
		"docs site":              "write the name alone",
	} {
		got := BucketProblem(name)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("BucketProblem(%q) = %q, want %q", name, got, want)
		}
	}
}

// Each page gets its extensionless key, but a route that is a file's own
// name, and the root, get none.
func TestAliases(t *testing.T) {
	t.Parallel()
	m := site.NewManifest()
	for _, p := range []string{"index.html", "guides/index.html", "guides/start.html", "notes", "notes.html", "app.js"} {
		if err := m.Add(p, 1, sha256.Sum256([]byte(p)), md5.Sum([]byte(p))); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{"guides": "guides/index.html", "guides/start": "guides/start.html"}
	if got := Aliases(m); !maps.Equal(got, want) {
		t.Errorf("Aliases = %v, want %v", got, want)
	}
}

func TestMaxListedLeavesRoomBeyondTheSite(t *testing.T) {
	t.Parallel()
	if got := MaxListed(100_000); got != 300_000 {
		t.Errorf("MaxListed(100000) = %d, want 300000: the site, as many deletions, and 100,000 objects of the user's", got)
	}
}
