package archive_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
)

// TestTree drives the Tree on its own, as an unpacker would: thousands of
// paths (the table grows several times), then every one defined again.
func TestTree(t *testing.T) {
	tr := archive.Limits{}.NewTree()
	add := func(e archive.Entry) error { return tr.Add(&e) }
	if err := add(archive.Entry{Name: "index.html", Type: archive.TypeFile}); err != nil {
		t.Fatal(err)
	}
	const n = 5000
	for i := range n {
		if err := add(archive.Entry{Name: fmt.Sprintf("d%d/p%d.html", i%37, i), Type: archive.TypeFile}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		err := add(archive.Entry{Name: fmt.Sprintf("./d%d//p%d.html", i%37, i), Type: archive.TypeFile})
		if !errors.Is(err, archive.ErrAmbiguous) {
			t.Fatalf("path %d defined again: %v", i, err)
		}
	}
	for i := range 37 {
		if err := add(archive.Entry{Name: fmt.Sprintf("d%d/", i), Type: archive.TypeDir}); err != nil {
			t.Fatalf("a directory named after its files: %v", err)
		}
	}
	if err := add(archive.Entry{Name: "l", Type: archive.TypeSymlink, Linkname: "d1"}); err != nil {
		t.Fatal(err)
	}
	if err := add(archive.Entry{Name: "l/p1.html", Type: archive.TypeHardlink, Linkname: "d1/p1.html"}); !errors.Is(err, archive.ErrAmbiguous) {
		t.Fatalf("an entry through a link: %v", err)
	}
	if err := add(archive.Entry{Name: "copy.html", Type: archive.TypeHardlink, Linkname: "d1/p1.html"}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := add(archive.Entry{Name: "up", Type: archive.TypeSymlink, Linkname: "l/../.."}); !errors.Is(err, archive.ErrUnsafeLink) {
		t.Fatalf("a link out through a link: %v", err)
	}
}

// TestTreeBoundsWalking: deep names cost work per component; the Tree
// refuses once the components walked pass the bound.
func TestTreeBoundsWalking(t *testing.T) {
	defer archive.SetMaxWalkSteps(10_000)()
	tr := archive.Limits{}.NewTree()
	deep := strings.Repeat("a/", 999) // 999 components, then the file's
	var err error
	i := 0
	for ; err == nil && i < 100; i++ {
		err = tr.Add(&archive.Entry{Name: fmt.Sprintf("%sf%d", deep, i), Type: archive.TypeFile})
	}
	if !errors.Is(err, archive.ErrLimit) || !strings.Contains(err.Error(), "path components") || i != 11 { // ten entries walk 10,000 components
		t.Fatalf("entry %d: %v", i, err)
	}
}
