package publish

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
)

// killed drops the lock of st as the kernel does for a process that was
// killed, leaving everything else as it was.
func killed(st *Staged) {
	_ = st.lock.Close()
	st.lock = nil
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// leftNewStoreFor makes what a run killed inside create leaves beside the
// site at dir: a store being made, with its marker.
func leftNewStoreFor(t *testing.T, parent, name, dir string) string {
	t.Helper()
	tmp := filepath.Join(parent, newStorePrefix+name)
	data, _ := json.Marshal(Marker{Directory: dir, Owner: "site-dead"})
	writeFile(t, filepath.Join(tmp, markerName), string(data))
	writeFile(t, filepath.Join(tmp, lockName), "")
	return tmp
}

// A first publication killed after Stage leaves a store that never
// published and whose lock is free: the next Stage, by another owner (a
// new run's new id), takes it over and removes what the killed run left,
// and nothing else.
func TestStageTakesOverAKilledFirstPublication(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	dead, err := s.Stage("site-dead")
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, dead.Tree, "half")
	if err := os.Symlink("releases/x", filepath.Join(s.Store, linkTmpInfix+"0123")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(s.Store, localfile.TempName(markerName)), "{")
	writeFile(t, filepath.Join(s.Store, localfile.TempName(lockName)), "")
	killed(dead)
	leftNewStoreFor(t, parent, "killed", s.Dir)
	other := leftNewStoreFor(t, parent, "other", filepath.Join(parent, "other"))
	mine := filepath.Join(parent, newStorePrefix+"mine")
	writeFile(t, filepath.Join(mine, "notes.txt"), "mine")

	st, err := s.Stage("site-new")
	if err != nil {
		t.Fatalf("Stage after a killed first publication = %v", err)
	}
	if st.TookOver != "site-dead" {
		t.Errorf("TookOver = %q, want site-dead", st.TookOver)
	}
	for _, n := range names(t, s.Store) {
		if n != markerName && n != lockName && n != releasesDir && n != stagingDir {
			t.Errorf("the killed run's %s is still in the store", n)
		}
	}
	if _, err := os.Lstat(filepath.Join(st.Tree, "index.html")); err == nil {
		t.Error("the killed run's staged tree is still there")
	}
	got := strings.Join(names(t, parent), " ")
	if want := ".docsadmin-new-mine .docsadmin-new-other .site.docsadmin"; got != want {
		t.Errorf("the parent holds %s, want %s: only the store being made for this site goes", got, want)
	}
	if _, err := os.Stat(filepath.Join(other, markerName)); err != nil {
		t.Errorf("the store being made for another site was touched: %v", err)
	}
	writeTree(t, st.Tree, "new")
	if _, err := st.Switch("se_2", nil); err != nil {
		t.Fatal(err)
	}
	if got := served(t, s); got != "new" {
		t.Errorf("serves %q", got)
	}
	if m := markerOf(t, s); m == nil || m.Owner != "site-new" {
		t.Errorf("the marker is %+v, want owner site-new", m)
	}
}

// A store whose first publication is under way (its lock held) is refused
// to another owner as publishing now, and to the same owner as busy; so is
// its withdrawal. Once the run ends, the store goes.
func TestStageRefusesAStoreBeingPublished(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	st, err := s.Stage("site-a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stage("site-b"); !errors.As(err, new(*ConflictError)) || !strings.Contains(err.Error(), "publishing its first site now") {
		t.Errorf("Stage by another owner during a first publication = %v", err)
	}
	if _, err := s.Stage("site-a"); !errors.As(err, new(*BusyError)) || !strings.Contains(err.Error(), "another run") {
		t.Errorf("Stage by the same owner during a publication = %v", err)
	}
	if w, err := s.Withdraw("site-a", StoreID{}); w.Removed || !errors.As(err, new(*BusyError)) {
		t.Errorf("Withdraw during a publication = %+v, %v", w, err)
	}
	if err := st.Abandon(); err != nil {
		t.Fatal(err)
	}
	if got := names(t, parent); len(got) != 0 {
		t.Errorf("Abandon left %v", got)
	}
}

// A store that published is never taken over by another owner, also when
// its run was killed between the switch and the marker's update.
func TestStageNeverTakesOverAPublishedStore(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	publishTree(t, s, "site-a", "one")
	if _, err := s.Stage("site-b"); !errors.As(err, new(*ConflictError)) || !strings.Contains(err.Error(), "since") {
		t.Errorf("Stage by another owner = %v", err)
	}
	// Killed after the switch, before the marker recorded it.
	if err := writeMarkerAt(s, Marker{Directory: s.Dir, Owner: "site-a"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Stage("site-b")
	if !errors.As(err, new(*ConflictError)) || strings.Contains(err.Error(), "first site") {
		t.Errorf("Stage by another owner of a store whose link serves a release = %v", err)
	}
	if got := served(t, s); got != "one" {
		t.Errorf("serves %q", got)
	}
	if m := markerOf(t, s); m == nil || m.Owner != "site-a" {
		t.Errorf("the marker is %+v, want owner site-a", m)
	}
}

// Withdraw removes the stores being made for its site that killed runs
// left beside it, and leaves those of other sites.
func TestWithdrawRemovesLeftovers(t *testing.T) {
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	publishTree(t, s, "site-a", "one")
	leftNewStoreFor(t, parent, "killed", s.Dir)
	leftNewStoreFor(t, parent, "other", filepath.Join(parent, "other"))
	if w, err := s.Withdraw("site-a", StoreID{}); !w.Removed || len(w.Left) > 0 || err != nil {
		t.Fatalf("Withdraw = %+v, %v", w, err)
	}
	if got := strings.Join(names(t, parent), " "); got != ".docsadmin-new-other" {
		t.Errorf("after Withdraw the parent holds %s", got)
	}
}

// A process killed (SIGKILL) while it stages a first publication: the
// kernel releases its lock, and the next Stage takes the store over.
func TestStageAfterAProcessKilledMidPublication(t *testing.T) {
	if dir := os.Getenv("PUBLISH_TEST_STAGE_AND_WAIT"); dir != "" {
		s, _ := Locate(dir)
		st, err := s.Stage("site-killed")
		if err != nil {
			os.Stdout.WriteString("error: " + err.Error() + "\n")
			os.Exit(1)
		}
		writeTree(t, st.Tree, "half")
		os.Stdout.WriteString("staged\n")
		time.Sleep(time.Minute)
		os.Exit(1)
	}
	parent := t.TempDir()
	s, _ := Locate(filepath.Join(parent, "site"))
	cmd := exec.Command(os.Args[0], "-test.run=^TestStageAfterAProcessKilledMidPublication$")
	cmd.Env = append(os.Environ(), "PUBLISH_TEST_STAGE_AND_WAIT="+s.Dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "staged\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the child said %q", line)
	}
	if _, err := s.Stage("site-new"); !errors.As(err, new(*ConflictError)) {
		t.Errorf("Stage while the child stages = %v, want a ConflictError", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	st, err := s.Stage("site-new")
	if err != nil {
		t.Fatalf("Stage after the child was killed = %v", err)
	}
	if st.TookOver != "site-killed" {
		t.Errorf("TookOver = %q", st.TookOver)
	}
	writeTree(t, st.Tree, "new")
	if _, err := st.Switch("se_1", nil); err != nil {
		t.Fatal(err)
	}
	if got := served(t, s); got != "new" {
		t.Errorf("serves %q", got)
	}
}

// A directory that is not a site but holds one, at the first or second
// level, is described naming that site; deeper ones are not looked for.
func TestDescribeNamesANestedSite(t *testing.T) {
	for _, c := range []struct {
		name, below string
		found       bool
	}{
		{"first level", "site", true},
		{"second level", "dist/site", true},
		{"third level", "a/dist/site", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "README.md"), "mine")
			s, _ := Locate(filepath.Join(root, c.below))
			publishTree(t, s, "site-a", "one")
			got := Describe(root)
			named := strings.Contains(got, s.Dir+", the site of a docsadmin_static_site (site-a, export job se_1)")
			if named != c.found {
				t.Errorf("Describe = %q", got)
			}
		})
	}
}

// markerOf reads the site's marker.
func markerOf(t *testing.T, s Site) *Marker {
	t.Helper()
	found, err := s.Inspect()
	if err != nil {
		t.Fatal(err)
	}
	return found.Marker
}

// writeMarkerAt records m in the site's store.
func writeMarkerAt(s Site, m Marker) error {
	store, err := os.OpenRoot(s.Store)
	if err != nil {
		return err
	}
	defer store.Close()
	return writeMarker(store, m)
}
