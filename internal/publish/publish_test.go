package publish

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTree(t *testing.T, dir, index string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(index), 0o644); err != nil {
		t.Fatal(err)
	}
}

func publishTree(t *testing.T, s Site, owner, index string) string {
	t.Helper()
	staged, err := s.Stage(owner)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, staged.Tree, index)
	name, err := staged.Switch("se_1", nil)
	if err != nil {
		t.Fatal(err)
	}
	return name
}

func served(t *testing.T, s Site) string {
	t.Helper()
	body, err := os.ReadFile(filepath.Join(s.Dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// Each switch serves the new tree, keeps the previous release, removes
// older ones, and withdrawing removes the link and the store only.
func TestSwitchKeepsThePreviousReleaseOnly(t *testing.T) {
	parent := t.TempDir()
	s, err := Locate(filepath.Join(parent, "site"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "mine.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, index := range []string{"one", "two", "three"} {
		names = append(names, publishTree(t, s, "site-a", index))
		if got := served(t, s); got != index {
			t.Fatalf("serves %q, want %q", got, index)
		}
	}
	releases, err := s.Releases()
	if err != nil {
		t.Fatal(err)
	}
	if len(releases) != 2 || !strings.Contains(strings.Join(releases, " "), names[1]) || !strings.Contains(strings.Join(releases, " "), names[2]) {
		t.Errorf("releases %v, want the last two of %v", releases, names)
	}
	// Another owner may neither publish nor withdraw.
	if _, err := s.Stage("site-b"); !errors.As(err, new(*ConflictError)) {
		t.Errorf("Stage by another owner = %v, want a ConflictError", err)
	}
	if w, err := s.Withdraw("site-b", StoreID{}); w.Removed || err != nil {
		t.Errorf("Withdraw by another owner = %+v, %v", w, err)
	}
	if w, err := s.Withdraw("site-a", StoreID{}); !w.Removed || len(w.Left) > 0 || err != nil {
		t.Fatalf("Withdraw = %+v, %v", w, err)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 || entries[0].Name() != "mine.txt" {
		t.Errorf("after Withdraw the parent holds %v", entries)
	}
}

// What the provider did not write is refused and left as it is.
func TestStageRefusesWhatItDidNotWrite(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	writeTree(t, s.Dir, "mine")
	if _, err := s.Stage("site-a"); !errors.As(err, new(*ForeignError)) || !strings.Contains(err.Error(), "did not make, with 1 entry (index.html)") {
		t.Errorf("Stage over a user's directory = %v", err)
	}
	if got := served(t, s); got != "mine" {
		t.Errorf("the user's directory now serves %q", got)
	}
	if _, err := os.Lstat(s.Store); err == nil {
		t.Error("a refused Stage made a store")
	}
	// A link the provider did not make.
	other := t.TempDir()
	link, _ := Locate(filepath.Join(parent, "link"))
	if err := os.Symlink(other, link.Dir); err != nil {
		t.Fatal(err)
	}
	if _, err := link.Stage("site-a"); !errors.As(err, new(*ForeignError)) {
		t.Errorf("Stage over a foreign link = %v", err)
	}
}

// A killed run's staging area goes at the next Stage; Abandon removes a
// store that never published.
func TestStageCleansWhatAKilledRunLeft(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	staged, err := s.Stage("site-a")
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, staged.Tree, "half")
	killed(staged)
	again, err := s.Stage("site-a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(staged.Tree, "index.html")); err == nil {
		t.Error("the staged tree of an earlier run is still there")
	}
	if err := again.Abandon(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("Abandon left %v", entries)
	}
}

// Served names of any length work: the store's name is shortened.
func TestLongNames(t *testing.T) {
	parent := t.TempDir()
	s, err := Locate(filepath.Join(parent, strings.Repeat("d", 250)))
	if err != nil {
		t.Fatal(err)
	}
	if len(filepath.Base(s.Store)) > nameMax {
		t.Fatalf("store name of %d bytes", len(filepath.Base(s.Store)))
	}
	publishTree(t, s, "site-a", "long")
	if got := served(t, s); got != "long" {
		t.Errorf("serves %q", got)
	}
}

func TestPathProblem(t *testing.T) {
	wd, _ := os.Getwd()
	home := t.TempDir()
	t.Setenv("HOME", home)
	tf := t.TempDir()
	if err := os.WriteFile(filepath.Join(tf, "main.tf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	publishTree(t, s, "site-a", "x")
	// A path that looks harmless as written and leads into the store.
	intoStore := filepath.Join(parent, "elsewhere")
	if err := os.Symlink(filepath.Join(s.Store, releasesDir), intoStore); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{"/", "root"},
		{wd, "runs in"},
		{filepath.Dir(wd), "runs in"},
		{home, "home directory"},
		{tf, "Terraform configuration"},
		{filepath.Join(s.Dir, "sub"), "inside " + s.Dir + ", a site that a docsadmin_static_site publishes"},
		{filepath.Join(s.Store, "releases", "x"), "inside " + s.Store + ", where the provider keeps"},
		{filepath.Join(intoStore, "x", "site"), "leads into " + s.Store + ", where the provider keeps"},
		{filepath.Join(parent, "other"), ""},
	} {
		got := PathProblem(c.dir)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("PathProblem(%q) = %q, want %q", c.dir, got, c.want)
		}
	}
}

// A link of the provider's whose store was removed by hand is replaced by
// the next publication.
func TestDanglingLinkIsReplaced(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	publishTree(t, s, "site-a", "one")
	if err := os.RemoveAll(s.Store); err != nil {
		t.Fatal(err)
	}
	found, err := s.Inspect()
	if err != nil || found.Foreign != "" || found.Current != "" {
		t.Fatalf("Inspect = %+v, %v", found, err)
	}
	publishTree(t, s, "site-b", "two")
	if got := served(t, s); got != "two" {
		t.Errorf("serves %q", got)
	}
}

// Two owners staging at once: one claims the site, the other is refused as
// a conflict, and a reader never sees a store without its marker.
func TestConcurrentStageClaimsOnce(t *testing.T) {
	for range 50 {
		parent := t.TempDir()
		s, _ := Locate(filepath.Join(parent, "site"))
		done := make(chan struct{})
		inspectErr := make(chan error, 1)
		go func() {
			defer close(inspectErr)
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := s.Inspect(); err != nil {
					inspectErr <- err
					return
				}
			}
		}()
		errs := make(chan error, 2)
		handles := make(chan *Staged, 2)
		for _, owner := range []string{"site-a", "site-b"} {
			go func() { st, err := s.Stage(owner); handles <- st; errs <- err }()
		}
		first, second := <-errs, <-errs
		// The claim's lock is held until the handle ends: keep it.
		var claimed []*Staged
		for range 2 {
			if st := <-handles; st != nil {
				claimed = append(claimed, st)
			}
		}
		close(done)
		if err := <-inspectErr; err != nil {
			t.Fatalf("Inspect during the claims: %v", err)
		}
		failed := first
		if first == nil {
			failed = second
		}
		if (first == nil) == (second == nil) || !errors.As(failed, new(*ConflictError)) {
			t.Fatalf("Stage by two owners = %v, %v; want one claim and one ConflictError", first, second)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Fatalf("the parent holds %d entries, want the store alone", len(entries))
		}
		for _, st := range claimed {
			if err := st.Abandon(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Each switched release has its records; a record goes with its release,
// and a record that is not a regular file is not read.
func TestSwitchWritesRecordsThatGoWithTheirRelease(t *testing.T) {
	s, err := Locate(filepath.Join(t.TempDir(), "site"))
	if err != nil {
		t.Fatal(err)
	}
	publishWith := func(index string) string {
		t.Helper()
		staged, err := s.Stage("site-a")
		if err != nil {
			t.Fatal(err)
		}
		writeTree(t, staged.Tree, index)
		name, err := staged.Switch("se_1", map[string][]byte{".json": []byte(`{"index.html":"` + index + `"}`), ".stat.json": []byte(index)})
		if err != nil {
			t.Fatal(err)
		}
		return name
	}
	first := publishWith("one")
	got, err := s.ReadRecord(first, ".json", 1<<10)
	if err != nil || string(got) != `{"index.html":"one"}` {
		t.Fatalf("ReadRecord = %q, %v", got, err)
	}
	if _, err := s.ReadRecord(first, ".json", 5); err == nil {
		t.Error("ReadRecord read a record larger than its limit")
	}
	if _, err := s.ReadRecord(first, "/../site.json", 1<<10); err == nil {
		t.Error("ReadRecord read a path that is no record")
	}
	second := publishWith("two")
	third := publishWith("three")
	for _, tc := range []struct {
		release string
		kept    bool
	}{{first, false}, {second, true}, {third, true}} {
		for _, suffix := range []string{".json", ".stat.json"} {
			_, err := os.Lstat(s.Record(tc.release, suffix))
			if tc.kept != (err == nil) {
				t.Errorf("record %s of release %s: kept %v, Lstat says %v", suffix, tc.release, tc.kept, err)
			}
		}
	}
	// A link in a record's place is not followed.
	outside := filepath.Join(t.TempDir(), "outside.json")
	if err := os.WriteFile(outside, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(s.Record(second, ".json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, s.Record(second, ".json")); err != nil {
		t.Fatal(err)
	}
	if data, err := s.ReadRecord(second, ".json", 1<<10); err == nil {
		t.Errorf("ReadRecord followed a link: %q", data)
	}
	if w, err := s.Withdraw("site-a", StoreID{}); !w.Removed || err != nil {
		t.Fatalf("Withdraw = %+v, %v", w, err)
	}
	if _, err := os.Lstat(s.Record(third, ".json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a record outlived Withdraw: %v", err)
	}
}
