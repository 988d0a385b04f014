//go:build unix

package publish

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
)

// userTree makes a directory of a user's files and returns a function that
// fails the test unless every one of them is still there, unchanged.
func userTree(t *testing.T, dir string) func() {
	t.Helper()
	files := map[string]string{"a.txt": "a", "b/c.txt": "c", "d/e/f.html": "f"}
	for name, body := range files {
		writeFile(t, filepath.Join(dir, name), body)
	}
	return func() {
		t.Helper()
		for name, body := range files {
			if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != body {
				t.Errorf("the user's %s is %q (%v), want %q", name, got, err, body)
			}
		}
	}
}

// A store planted beside a new site, whose releases is a link to a user's
// directory, is refused naming the link, and nothing in that directory is
// removed; so is a store whose releases were moved away and linked back.
func TestReleasesLinkedOutAreNeverFollowed(t *testing.T) {
	t.Run("planted", func(t *testing.T) {
		parent := t.TempDir()
		s, _ := Locate(filepath.Join(parent, "site"))
		users := filepath.Join(parent, "users")
		intact := userTree(t, users)
		writeFile(t, filepath.Join(s.Store, markerName), `{"directory":"`+s.Dir+`","owner":"site-planted"}`)
		if err := os.Symlink(users, filepath.Join(s.Store, releasesDir)); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckStore(); !errors.As(err, new(*EntryError)) {
			t.Errorf("CheckStore = %v, want an EntryError", err)
		}
		_, err := s.Stage("site-new")
		if !errors.As(err, new(*EntryError)) || !strings.Contains(err.Error(), filepath.Join(s.Store, releasesDir)+` is a symbolic link to "`+users) {
			t.Fatalf("Stage = %v, want a refusal naming the link", err)
		}
		intact()
	})
	t.Run("moved and linked back", func(t *testing.T) {
		parent := t.TempDir()
		s, _ := Locate(filepath.Join(parent, "site"))
		publishTree(t, s, "site-a", "one")
		publishTree(t, s, "site-a", "two")
		disk := filepath.Join(t.TempDir(), "big")
		intact := userTree(t, disk)
		moved := filepath.Join(disk, "releases")
		if err := os.Rename(filepath.Join(s.Store, releasesDir), moved); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(moved, "notes.txt"), "mine")
		if err := os.Symlink(moved, filepath.Join(s.Store, releasesDir)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Stage("site-a"); !errors.As(err, new(*EntryError)) {
			t.Fatalf("Stage = %v, want a refusal naming the link", err)
		}
		intact()
		if got := strings.Join(names(t, moved), " "); !strings.Contains(got, "notes.txt") || len(names(t, moved)) != 3 {
			t.Errorf("the moved releases hold %s, want both releases and notes.txt", got)
		}
		// Withdrawing removes the provider's own entries, not through the
		// link, and leaves the link and the store.
		w, err := s.Withdraw("site-a", StoreID{})
		if err != nil || !w.Removed || len(w.Left) != 1 || !strings.Contains(w.Left[0], releasesDir) {
			t.Fatalf("Withdraw = %+v, %v; want the link to the releases left", w, err)
		}
		intact()
		if len(names(t, moved)) != 3 {
			t.Errorf("Withdraw removed through the link: %v", names(t, moved))
		}
		if _, err := os.Lstat(s.Dir); err == nil {
			t.Error("the site's link is still there")
		}
	})
}

// A FIFO or a link to a device at the store's lock is refused without
// blocking and without being opened: a writer waiting on the FIFO stays
// waiting.
func TestSpecialLockRefusedWithoutBlocking(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	publishTree(t, s, "site-a", "one")
	lock := filepath.Join(s.Store, lockName)
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(lock, 0o644); err != nil {
		t.Fatal(err)
	}
	writer := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(lock, os.O_WRONLY, 0)
		if err == nil {
			f.Close()
		}
		writer <- err
	}()
	done := make(chan error, 2)
	go func() {
		_, err := s.Stage("site-a")
		done <- err
		_, err = s.Withdraw("site-a", StoreID{})
		done <- err
	}()
	for _, op := range []string{"Stage", "Withdraw"} {
		select {
		case err := <-done:
			if !errors.As(err, new(*EntryError)) || !strings.Contains(err.Error(), "special file") {
				t.Errorf("%s with a FIFO at the lock = %v, want a refusal naming it", op, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s blocked on a FIFO at the lock", op)
		}
	}
	select {
	case err := <-writer:
		t.Errorf("the FIFO was opened: its writer stopped waiting (%v)", err)
	default:
		if r, err := os.OpenFile(lock, os.O_RDONLY|unix.O_NONBLOCK, 0); err == nil { // release the writer
			defer r.Close()
		}
		if err := <-writer; err != nil {
			t.Error(err)
		}
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(os.DevNull, lock); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stage("site-a"); !errors.As(err, new(*EntryError)) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Stage with a link to a device at the lock = %v, want a refusal naming it", err)
	}
}

// Only the provider's own names and kinds are ever removed from a store:
// a user's file in it, and in releases/, stays, with the store.
func TestWithdrawAndPruneRemoveOnlyOwnEntries(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	publishTree(t, s, "site-a", "one")
	writeFile(t, filepath.Join(s.Store, "notes.txt"), "mine")
	writeFile(t, filepath.Join(s.Store, releasesDir, "keep.txt"), "mine")
	publishTree(t, s, "site-a", "two")
	publishTree(t, s, "site-a", "three")
	if got, err := os.ReadFile(filepath.Join(s.Store, releasesDir, "keep.txt")); err != nil || string(got) != "mine" {
		t.Errorf("pruning removed a user's file in releases/: %q, %v", got, err)
	}
	w, err := s.Withdraw("site-a", StoreID{})
	if err != nil || !w.Removed || strings.Join(w.Left, " ") != "notes.txt" {
		t.Fatalf("Withdraw = %+v, %v; want notes.txt left", w, err)
	}
	if got := strings.Join(names(t, s.Store), " "); got != "notes.txt" {
		t.Errorf("the store holds %s, want the user's notes.txt alone", got)
	}
}

// A store that never published is taken over only when it holds nothing
// but what a killed first run leaves.
func TestTakeOverOnlyWhatAKilledRunLeaves(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	dead, err := s.Stage("site-dead")
	if err != nil {
		t.Fatal(err)
	}
	killed(dead)
	writeFile(t, filepath.Join(s.Store, "notes.txt"), "mine")
	if _, err := s.Stage("site-new"); !errors.As(err, new(*ConflictError)) {
		t.Errorf("Stage of a store that holds a user's file = %v, want a ConflictError", err)
	}
	if err := os.Remove(filepath.Join(s.Store, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stage("site-new")
	if err != nil || st.TookOver != "site-dead" {
		t.Fatalf("Stage = %+v, %v; want the store taken over", st, err)
	}
	if err := st.Abandon(); err != nil {
		t.Fatal(err)
	}
}

// A store being made that has no readable record is removed only when its
// lock shows its run is gone, never for its age; one without a lock yet,
// whatever its age, stays.
func TestNewStoreRemovedOnlyWhenItsRunIsGone(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	old := time.Now().Add(-48 * time.Hour)
	noLock := filepath.Join(parent, newStorePrefix+"nolock")
	writeFile(t, filepath.Join(noLock, localfile.TempName(markerName)), "{")
	freeLock := filepath.Join(parent, newStorePrefix+"free")
	writeFile(t, filepath.Join(freeLock, lockName), "")
	writeFile(t, filepath.Join(freeLock, markerName), "{ damaged")
	for _, p := range []string{noLock, freeLock} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	held, err := os.OpenRoot(filepath.Join(parent))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	heldDir := filepath.Join(parent, newStorePrefix+"held")
	writeFile(t, filepath.Join(heldDir, markerName), `{"directory":"`+s.Dir+`","owner":"site-busy"}`)
	heldRoot, err := os.OpenRoot(heldDir)
	if err != nil {
		t.Fatal(err)
	}
	defer heldRoot.Close()
	lock, err := lockFile(heldRoot)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()

	publishTree(t, s, "site-a", "one")
	got := strings.Join(names(t, parent), " ")
	if want := ".docsadmin-new-held .docsadmin-new-nolock .site.docsadmin site"; got != want {
		t.Errorf("the parent holds %s, want %s", got, want)
	}
}

// A store replaced by a link is never read through: Inspect names it, and
// a withdrawal removes nothing where it points.
func TestStoreReplacedByALinkIsNeverFollowed(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	publishTree(t, s, "site-a", "one")
	elsewhere := filepath.Join(t.TempDir(), "store")
	if err := os.Rename(s.Store, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, s.Store); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Inspect(); !errors.As(err, new(*EntryError)) {
		t.Errorf("Inspect = %v, want an EntryError naming the link", err)
	}
	if _, err := s.Withdraw("site-a", StoreID{}); !errors.As(err, new(*EntryError)) {
		t.Errorf("Withdraw = %v, want an EntryError naming the link", err)
	}
	if got := len(names(t, elsewhere)); got < 3 {
		t.Errorf("the linked store holds %d entries after Withdraw, want all of them", got)
	}
}

// A store that another user owns, as a neighbour who can write the parent
// would plant one, is refused, naming its owner: the site would otherwise
// live in directories that user controls.
func TestStoreOfAnotherUserIsRefused(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	publishTree(t, s, "site-a", "one")
	store, err := os.OpenRoot(s.Store)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := checkOwner(store, os.Geteuid()); err != nil {
		t.Errorf("the runner's own store: %v", err)
	}
	err = checkOwner(store, os.Geteuid()+1)
	if !errors.As(err, new(*EntryError)) || !strings.Contains(err.Error(), "another user") {
		t.Errorf("a store of another user = %v, want a refusal naming its owner", err)
	}
	if os.Geteuid() == 0 { // only root can give the store away: then through Stage too
		if err := os.Chown(s.Store, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Stage("site-a"); !errors.As(err, new(*EntryError)) {
			t.Errorf("Stage of a store of uid 65534 = %v, want a refusal", err)
		}
		// Refresh and destroy alike: nothing of it is read or removed.
		if found, err := s.Inspect(); !errors.As(err, new(*EntryError)) || found.Marker != nil {
			t.Errorf("Inspect of a store of uid 65534 = %+v, %v, want a refusal that reads nothing of it", found, err)
		}
		if w, err := s.Withdraw("site-a", StoreID{}); w.Removed || !errors.As(err, new(*EntryError)) {
			t.Errorf("Withdraw of a store of uid 65534 = %+v, %v, want a refusal", w, err)
		}
		if served(t, s) != "one" {
			t.Error("the site is not served as it was")
		}
	}
}

// A destroy removes only the store the site recorded: a copy of it put in
// its place (a neighbour's, or a backup's) is left, as is the store moved
// aside, and the link; moved back, the store is withdrawn.
func TestWithdrawRemovesOnlyTheStoreRecorded(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	staged, err := s.Stage("site-a")
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, staged.Tree, "one")
	if _, err := staged.Switch("se_1", nil); err != nil {
		t.Fatal(err)
	}
	recorded := staged.Store
	if found, err := s.Inspect(); err != nil || recorded.IsZero() || found.Store != recorded {
		t.Fatalf("the store staged in is %v, Inspect finds %v (%v): want one identity", recorded, found.Store, err)
	}
	aside := s.Store + ".aside"
	if err := os.Rename(s.Store, aside); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(s.Store, os.DirFS(aside)); err != nil {
		t.Fatal(err)
	}
	w, err := s.Withdraw("site-a", recorded)
	var other *OtherStoreError
	if w.Removed || !errors.As(err, &other) || other.Want != recorded || !strings.Contains(err.Error(), "moved, copied or replaced") {
		t.Fatalf("Withdraw of a copy of the store = %+v, %v; want an *OtherStoreError", w, err)
	}
	for _, p := range []string{filepath.Join(s.Store, markerName), filepath.Join(aside, markerName), s.Dir} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("Withdraw of a copy removed %s: %v", p, err)
		}
	}
	if err := os.RemoveAll(s.Store); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(aside, s.Store); err != nil {
		t.Fatal(err)
	}
	if w, err := s.Withdraw("site-a", recorded); !w.Removed || err != nil {
		t.Fatalf("Withdraw of the store recorded = %+v, %v", w, err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("the withdrawal left %v", entries)
	}
}
