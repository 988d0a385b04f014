package publish

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
)

// The confinement: everything the package does on disk goes through two
// handles (os.Root), the directory that holds the served path and the
// store, and acts on one name at a time in them. A name is used only after
// Lstat finds there what the provider makes under it (entryKinds), and a
// directory or file opened is checked to be the one Lstat found, so that
// no link, in the store or put at the served path, is ever followed, and
// nothing is removed or replaced but entries of the provider's own names
// and kinds.

// What the provider makes in a store, by name: anything else under these
// names was not made by the provider and is refused, never followed or
// removed.
const (
	markerName   = "site.json"
	lockName     = "lock"
	releasesDir  = "releases"
	stagingDir   = "staging"
	recordsDir   = "manifests"
	linkTmpInfix = ".link-"
	linkGoneName = ".link-withdrawn"
	stagedTree   = "tree"
)

type entryKind int

const (
	kindDir entryKind = iota
	kindFile
	kindLink
)

func (k entryKind) String() string {
	switch k {
	case kindDir:
		return "a directory"
	case kindFile:
		return "a regular file"
	}
	return "a symbolic link"
}

// storeEntryKind is the kind the provider makes under name in a store, and
// whether the name is one of its own.
func storeEntryKind(name string) (entryKind, bool) {
	switch {
	case name == markerName, name == lockName:
		return kindFile, true
	case name == releasesDir, name == stagingDir, name == recordsDir:
		return kindDir, true
	case strings.HasPrefix(name, linkTmpInfix):
		return kindLink, true
	}
	if made, ok := localfile.TempOf(name); ok && (made == markerName || made == lockName) {
		return kindFile, true
	}
	return 0, false
}

// releaseName is the name of a release: the time of its switch and a
// random suffix. Only entries of this name in releases/ are ever removed.
var releaseName = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$`)

func kindOf(info fs.FileInfo) (entryKind, bool) {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return kindLink, true
	case info.IsDir():
		return kindDir, true
	case info.Mode().IsRegular():
		return kindFile, true
	}
	return 0, false
}

// EntryError is an entry of a store, or the store itself, that is not what
// the provider makes under its name: the provider neither follows nor
// removes it.
type EntryError struct {
	Path  string // absolute
	Found string // what is there
	Want  string // what the provider makes there
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("%s is %s, where the provider keeps %s; it never follows, replaces or removes what it did not make, "+
		"and changed nothing. Move it away (the provider makes it again)", e.Path, e.Found, e.Want)
}

// describeEntry says what an entry is, naming a link's target.
func describeEntry(dir *os.Root, name string, info fs.FileInfo) string {
	if info.Mode()&fs.ModeSymlink != 0 {
		if target, err := dir.Readlink(name); err == nil {
			return fmt.Sprintf("a symbolic link to %q", target)
		}
		return "a symbolic link"
	}
	if info.IsDir() {
		return "a directory"
	}
	if info.Mode().IsRegular() {
		return fmt.Sprintf("a file of %d bytes", info.Size())
	}
	return "a special file (" + info.Mode().Type().String() + ")"
}

// openDirIn opens the directory name in dir as a handle of its own: nil
// when nothing is there, an *EntryError when something else is (a link is
// never followed), and an error when another directory was swapped in
// while it was opened.
func openDirIn(dir *os.Root, name, want string) (*os.Root, error) {
	info, err := dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, &EntryError{Path: filepath.Join(dir.Name(), name), Found: describeEntry(dir, name, info), Want: want}
	}
	sub, err := localfile.OpenDirIn(dir, name)
	if err != nil {
		return nil, err
	}
	if opened, err := sub.Stat("."); err != nil || !os.SameFile(info, opened) {
		sub.Close()
		return nil, fmt.Errorf("%s was replaced while it was opened; apply again", filepath.Join(dir.Name(), name))
	}
	return sub, nil
}

// openRegularIn opens the regular file name in dir for reading (flags add
// to O_RDONLY): never a link, a FIFO or a device (an *EntryError naming
// what is there), and only the file Lstat found (localfile.OpenRegularIn).
func openRegularIn(dir *os.Root, name string, flags int) (*os.File, error) {
	f, found, err := localfile.OpenRegularIn(dir, name, nil, flags)
	if notRegular := (*localfile.NotRegularError)(nil); errors.As(err, &notRegular) {
		return nil, &EntryError{Path: filepath.Join(dir.Name(), name), Found: describeEntry(dir, name, found), Want: "a regular file"}
	}
	if errors.Is(err, localfile.ErrReplaced) {
		return nil, fmt.Errorf("%s was replaced while it was opened; apply again", filepath.Join(dir.Name(), name))
	}
	return f, err
}

// checkStore refuses a store that holds, under one of the provider's
// names, anything the provider does not make there. Entries of other names
// are left alone, and never removed.
func checkStore(store *os.Root) error {
	if err := checkOwner(store, os.Geteuid()); err != nil {
		return err
	}
	entries, err := readDirIn(store)
	if err != nil {
		return err
	}
	for _, e := range entries {
		want, own := storeEntryKind(e.Name())
		if !own {
			continue
		}
		info, err := store.Lstat(e.Name())
		if err != nil {
			return err
		}
		if got, ok := kindOf(info); !ok || got != want {
			return &EntryError{Path: filepath.Join(store.Name(), e.Name()), Found: describeEntry(store, e.Name(), info), Want: want.String() + " of its own (" + e.Name() + ")"}
		}
	}
	return nil
}

// leftByFirstRun reports whether a store holds only what a run killed
// before its first switch leaves: entries of the provider's names and
// kinds, and no other.
func leftByFirstRun(store *os.Root) bool {
	entries, err := readDirIn(store)
	if err != nil {
		return false
	}
	for _, e := range entries {
		want, own := storeEntryKind(e.Name())
		if !own {
			return false
		}
		info, err := store.Lstat(e.Name())
		if err != nil {
			return false
		}
		if got, ok := kindOf(info); !ok || got != want {
			return false
		}
	}
	return true
}

// readDirIn lists the entries of dir's own directory.
func readDirIn(dir *os.Root) ([]fs.DirEntry, error) {
	d, err := dir.Open(".")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// readMarker reads the store's record; nil when it has none.
func readMarker(store *os.Root) (*Marker, error) {
	f, err := openRegularIn(store, markerName, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := readLimited(f, markerMax, markerName)
	var m Marker
	if err == nil {
		if err = json.Unmarshal(data, &m); err == nil && m.Owner == "" {
			err = errors.New("it names no owner")
		}
	}
	if err != nil {
		return nil, &EntryError{Path: filepath.Clean(store.Name()), Found: fmt.Sprintf("a directory whose %s cannot be read (%v)", markerName, err), Want: storeWant}
	}
	return &m, nil
}

// storeWant is what the provider keeps in a store.
const storeWant = "a site's releases, with their record (" + markerName + ")"

// writeMarker records m in the store durably.
func writeMarker(store *os.Root, m Marker) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return localfile.WriteBytes(store, markerName, 0o644, append(data, '\n'))
}

// removeOwn removes the entry name of dir when it is of the kind the
// provider makes there, and reports what it left otherwise.
func removeOwn(dir *os.Root, name string, want entryKind) (left string, err error) {
	info, err := dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if got, ok := kindOf(info); !ok || got != want {
		return name + " (" + describeEntry(dir, name, info) + ")", nil
	}
	if want == kindDir {
		return "", dir.RemoveAll(name) // links inside are removed, never followed
	}
	return "", dir.Remove(name)
}

// removeLeftovers removes the temporary links and records a killed run
// left in the store. The caller holds the store's lock.
func removeLeftovers(store *os.Root) {
	entries, err := readDirIn(store)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if name == markerName || name == lockName {
			continue
		}
		if want, own := storeEntryKind(name); own && want != kindDir {
			_, _ = removeOwn(store, name, want)
		}
	}
}

// readLimited reads what is left of f, at most limit bytes.
func readLimited(f io.Reader, limit int64, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	return data, err
}

// lockFile opens the store's lock file, making it if needed, and locks it
// without waiting (lockHandle): errBusy when another run holds it.
// Anything but a regular file at its name is refused without being opened.
func lockFile(store *os.Root) (*storeLock, error) {
	f, err := openRegularIn(store, lockName, os.O_RDWR)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = store.OpenFile(lockName, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) { // made by another run meanwhile
			f, err = openRegularIn(store, lockName, os.O_RDWR)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := lockHandle(f); err != nil {
		f.Close()
		return nil, err
	}
	return &storeLock{f: f}, nil
}

// newLock makes the lock file of a store being made, locked before it
// takes its name: no one ever sees that lock free while its run lives.
func newLock(store *os.Root) (*storeLock, error) {
	tmp := localfile.TempName(lockName)
	f, err := store.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockHandle(f); err != nil {
		f.Close()
		_ = store.Remove(tmp)
		return nil, err
	}
	if err := store.Rename(tmp, lockName); err != nil {
		f.Close()
		_ = store.Remove(tmp)
		return nil, err
	}
	return &storeLock{f: f}, nil
}

// checkOwner refuses a store that another user owns: one a neighbour who
// can write the parent planted would otherwise hold the site in directories
// that neighbour controls. Where the system names no owner, any store is
// the runner's.
func checkOwner(store *os.Root, euid int) error {
	info, err := store.Stat(".")
	if err != nil {
		return err
	}
	if uid, ok := ownerOf(info); ok && uid != euid {
		return &EntryError{Path: store.Name(), Found: fmt.Sprintf("a directory of another user (uid %d, not %d, who runs Terraform)", uid, euid),
			Want: "the site's releases, in a directory of the user who runs Terraform"}
	}
	return nil
}
