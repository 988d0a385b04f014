package publish

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish/confined"
)

// Marker is the store's record of its publication.
type Marker struct {
	// Directory is the served path, absolute.
	Directory string `json:"directory"`
	// Owner identifies the resource that publishes there.
	Owner string `json:"owner"`
	// JobID is the export whose tree is current.
	JobID string `json:"job_id,omitempty"`
	// Current is the release dir points to; Previous the one before,
	// kept until the next switch.
	Current  string `json:"current,omitempty"`
	Previous string `json:"previous,omitempty"`
	// Published is when Current was switched in.
	Published time.Time `json:"published"`
	// Configuration names the configuration whose run published
	// Current (its working directory and workspace), "" when unknown.
	Configuration string `json:"configuration,omitempty"`
}

const markerMax = 64 << 10

// storeWant is what the provider keeps in a store.
const storeWant = "a site's releases, with their record (" + markerName + ")"

// EntryError is an entry of a store, or the store itself, that is not what
// the provider makes under its name: the provider neither follows nor
// removes it.
type EntryError = confined.EntryError

// StoreID identifies a store by more than its name: its device and inode,
// which a copy, a directory renamed into its place or one made anew at its
// name does not have. Record it when a site is published, and hand it to
// Withdraw, which removes only that store.
type StoreID struct {
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
}

// IsZero reports an identity that is not known.
func (id StoreID) IsZero() bool { return id == StoreID{} }

func (id StoreID) String() string { return fmt.Sprintf("device %d, inode %d", id.Dev, id.Ino) }

// storeID is the identity of the store a handle holds (zero where the
// system gives none).
func storeID(store *os.Root) (StoreID, error) {
	info, err := store.Stat(".")
	if err != nil {
		return StoreID{}, err
	}
	dev, ino, _ := confined.Identity(info)
	return StoreID{Dev: dev, Ino: ino}, nil
}

// opened is a site's confined handles: the directory that holds Dir and
// the store (parent), opened by its path once, and the store when it
// exists. Every step after open goes through them.
type opened struct {
	site   Site
	parent *os.Root
	store  *os.Root
}

// open opens the site's handles; with makeParent, the directories above
// Dir are made when missing. Without, a missing parent is an opened with
// no handles.
func (s Site) open(makeParent bool) (*opened, error) {
	dir := filepath.Dir(s.Dir)
	o := &opened{site: s}
	parent, err := localfile.OpenDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if !makeParent {
			return o, nil
		}
		parent, err = localfile.OpenRootDir(dir)
	}
	if err != nil {
		return nil, err
	}
	o.parent = parent
	if err := o.reopenStore(); err != nil {
		parent.Close()
		return nil, err
	}
	return o, nil
}

func (o *opened) close() {
	if o.store != nil {
		o.store.Close()
	}
	if o.parent != nil {
		o.parent.Close()
	}
}

// reopenStore opens the store (again, when it was made or replaced
// meanwhile); nil when there is none.
func (o *opened) reopenStore() error {
	if o.store != nil {
		o.store.Close()
		o.store = nil
	}
	var err error
	o.store, err = confined.OpenDir(o.parent, o.site.storeBase(), "the site's releases, in a directory of its own")
	return err
}

// storeEntryKind is the kind the provider makes under name in a store, and
// whether the name is one of its own.
func storeEntryKind(name string) (confined.Kind, bool) {
	switch {
	case name == markerName, name == lockName:
		return confined.File, true
	case name == releasesDir, name == stagingDir, name == recordsDir:
		return confined.Dir, true
	case strings.HasPrefix(name, linkTmpInfix):
		return confined.Link, true
	}
	if made, ok := localfile.TempOf(name); ok && (made == markerName || made == lockName) {
		return confined.File, true
	}
	return 0, false
}

// CheckStore refuses, with an *EntryError, a store that holds under one of
// the provider's names what the provider does not make there (a link where
// its releases should be, a FIFO at its lock): Stage would refuse it too.
// A missing store is no problem.
func (s Site) CheckStore() error {
	o, err := s.open(false)
	if err != nil || o.store == nil {
		return err
	}
	defer o.close()
	return checkStore(o.store)
}

// checkStore refuses a store of another user, or one that holds, under one
// of the provider's names, anything the provider does not make there.
// Entries of other names are left alone, and never removed.
func checkStore(store *os.Root) error {
	if err := checkOwner(store, os.Geteuid()); err != nil {
		return err
	}
	entries, err := confined.ReadDir(store)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if want, own := storeEntryKind(e.Name()); own {
			if err := confined.Check(store, e.Name(), want); err != nil {
				return err
			}
		}
	}
	return nil
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
	if uid, ok := confined.Owner(info); ok && uid != euid {
		return &EntryError{Path: store.Name(), Found: fmt.Sprintf("a directory of another user (uid %d, not %d, who runs Terraform)", uid, euid),
			Want: "the site's releases, in a directory of the user who runs Terraform"}
	}
	return nil
}

// readMarker reads the store's record; nil when it has none.
func readMarker(store *os.Root) (*Marker, error) {
	f, err := confined.OpenRegular(store, markerName, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := confined.ReadLimited(f, markerMax, markerName)
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

// writeMarker records m in the store durably.
func writeMarker(store *os.Root, m Marker) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return localfile.WriteBytes(store, markerName, 0o644, append(data, '\n'))
}

// lockFile locks the store's lock file without waiting: confined.ErrBusy
// when another run holds it.
func lockFile(store *os.Root) (*confined.Lock, error) { return confined.LockFile(store, lockName) }

// removeStore removes the store's own entries, then the store when nothing
// else is in it, and names what stayed.
func (o *opened) removeStore() (left []string) {
	left = removeStoreEntries(o.store)
	if len(left) == 0 {
		if err := o.parent.Remove(o.site.storeBase()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			left = append(left, "("+err.Error()+")")
		}
	}
	return left
}

// removeStoreEntries removes the entries of the provider's names and kinds
// from a store, and reports the others, which stay.
func removeStoreEntries(store *os.Root) (left []string) {
	entries, err := confined.ReadDir(store)
	if err != nil {
		return []string{"(" + err.Error() + ")"}
	}
	for _, e := range entries {
		want, own := storeEntryKind(e.Name())
		if !own {
			left = append(left, e.Name())
			continue
		}
		if l, err := confined.Remove(store, e.Name(), want); l != "" || err != nil {
			if err != nil {
				l = e.Name() + " (" + err.Error() + ")"
			}
			left = append(left, l)
		}
	}
	return left
}
