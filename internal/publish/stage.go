package publish

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish/confined"
)

// Staged is a tree being written for a site, from Stage to Switch or
// Abandon. It holds the store's lock all along: the system releases it
// when the process ends, however it ends, so that a store that never
// published and whose lock is free is known to be what a killed run left.
type Staged struct {
	Site Site
	// Tree is the path of the directory the tree is written into, for
	// messages; write through TreeDir.
	Tree string
	// Owner is the owner that stages.
	Owner string
	// TookOver is the owner recorded in a store that a killed run left
	// before its first switch, which this Stage took over; "" otherwise.
	TookOver string
	// Configuration, when set before Switch, is recorded in the marker.
	Configuration string
	// Store identifies the store the tree is staged in, which a Switch
	// publishes from: what a site records, for Withdraw to remove that
	// store and no other.
	Store    StoreID
	lock     *confined.Lock
	o        *opened
	releases *os.Root
	staging  *os.Root
	tree     *os.Root
}

// TreeDir is the empty directory the tree is to be written into, as a
// confined handle: a name of the store's that someone replaces meanwhile
// cannot lead a write elsewhere.
func (st *Staged) TreeDir() *os.Root { return st.tree }

// release closes the Staged's handles and releases the lock: it is spent.
func (st *Staged) release() {
	if st.lock != nil {
		_ = st.lock.Close()
		st.lock = nil
	}
	for _, r := range []*os.Root{st.tree, st.staging, st.releases} {
		if r != nil {
			r.Close()
		}
	}
	st.tree, st.staging, st.releases = nil, nil, nil
	if st.o != nil {
		st.o.close()
		st.o = nil
	}
}

// everPublished reports whether a store ever served a site: its marker
// names a release, or the link at Dir points into it (a run killed between
// the switch and the marker's update).
func everPublished(m *Marker, found Inspection) bool {
	return m.Current != "" || found.Current != ""
}

// conflict is the refusal of another owner's store, naming the release
// its link serves when the marker does not.
func (s Site) conflict(m Marker, found Inspection) *ConflictError {
	if m.Current == "" {
		m.Current = found.Current
	}
	return &ConflictError{Site: s, Other: m}
}

// errStoreExists is a store that appeared while create made one.
var errStoreExists = errors.New("the store appeared meanwhile")

// Stage claims the site for owner and returns the tree to write, holding
// the store's lock until Switch or Abandon. What killed runs left under the
// provider's names is removed first. A store that another owner made but
// never published from, that holds only what the provider makes, and whose
// lock is free was left by a run killed before its first switch: Stage
// takes it over (TookOver names that owner). A Dir that holds anything the
// provider did not write, a store another owner publishes with or is
// publishing its first site with now, a store another run of the same
// owner holds, or one that holds under the provider's names what the
// provider does not make, is refused with a *ForeignError, a
// *ConflictError, a *BusyError or an *EntryError, and nothing is written.
func (s Site) Stage(owner string) (*Staged, error) {
	o, err := s.open(true)
	if err != nil {
		return nil, err
	}
	st := &Staged{Site: s, Owner: owner, Tree: filepath.Join(s.Store, stagingDir, stagedTree), o: o}
	if err := st.claim(); err != nil {
		st.release()
		return nil, err
	}
	return st, nil
}

func (st *Staged) claim() error {
	s, o := st.Site, st.o
	found, err := o.inspectOwn()
	if err != nil {
		return err
	}
	if m := found.Marker; m != nil && m.Owner != st.Owner && everPublished(m, found) {
		return s.conflict(*m, found)
	}
	removeNewStores(o.parent, s)
	if o.store == nil {
		lock, err := o.create(st.Owner)
		if err != nil && !errors.Is(err, errStoreExists) {
			return err
		}
		st.lock = lock
		if err := o.reopenStore(); err != nil {
			return err
		}
		if o.store == nil {
			return removedWhileStaged(s)
		}
	}
	if err := checkStore(o.store); err != nil {
		return err
	}
	if st.lock == nil {
		if st.lock, err = o.lock(st.Owner); err != nil {
			return err
		}
	}
	return st.prepare()
}

// lock takes the lock of the existing store for owner without waiting.
func (o *opened) lock(owner string) (*confined.Lock, error) {
	m, err := readMarker(o.store)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, removedWhileStaged(o.site)
	}
	l, err := lockFile(o.store)
	switch {
	case errors.Is(err, confined.ErrBusy) && m.Owner != owner:
		return nil, &ConflictError{Site: o.site, Other: *m}
	case errors.Is(err, confined.ErrBusy):
		return nil, &BusyError{Site: o.site}
	}
	return l, err
}

// prepare, under the lock, checks the store again, takes over one that a
// killed first publication left, removes what killed runs left, and makes
// the staging area.
func (st *Staged) prepare() error {
	s, o := st.Site, st.o
	found, err := o.inspectOwn()
	if err != nil {
		return err
	}
	m := found.Marker
	if m == nil {
		return removedWhileStaged(s)
	}
	if err := checkStore(o.store); err != nil {
		return err
	}
	if m.Owner != st.Owner {
		if everPublished(m, found) || !leftByFirstRun(o.store) {
			return s.conflict(*m, found)
		}
		// Never published, only the provider's entries, and no run holds
		// the lock: its run was killed.
		if err := writeMarker(o.store, Marker{Directory: s.Dir, Owner: st.Owner}); err != nil {
			return err
		}
		st.TookOver = m.Owner
	}
	st.Store = found.Store
	removeLeftovers(o.store)
	if _, err := confined.Remove(o.store, stagingDir, confined.Dir); err != nil {
		return err
	}
	if st.releases, err = confined.MakeDir(o.store, releasesDir); err != nil {
		return err
	}
	if err := o.store.Mkdir(stagingDir, 0o755); err != nil {
		return err
	}
	if st.staging, err = confined.MakeDir(o.store, stagingDir); err != nil {
		return err
	}
	st.tree, err = confined.MakeDir(st.staging, stagedTree)
	return err
}

// create makes the store with its marker and its lock, held, in one step:
// the store is written under a temporary name beside it and renamed into
// place where nothing is, so that no one ever sees a store without its
// marker, nor one whose first publication is under way without its lock
// held. errStoreExists is a store that appeared meanwhile.
func (o *opened) create(owner string) (*confined.Lock, error) {
	tmpName := newStorePrefix + rand.Text()
	if err := o.parent.Mkdir(tmpName, 0o755); err != nil {
		return nil, err
	}
	tmp, err := confined.OpenDir(o.parent, tmpName, "")
	if err != nil || tmp == nil {
		return nil, fmt.Errorf("making the store for %s: %v", o.site.Dir, err)
	}
	defer tmp.Close()
	lock, err := func() (*confined.Lock, error) {
		if err := tmp.Chmod(".", 0o755); err != nil { // the umask may have narrowed it
			return nil, err
		}
		lock, err := confined.NewLock(tmp, lockName)
		if err != nil {
			return nil, err
		}
		if err := writeMarker(tmp, Marker{Directory: o.site.Dir, Owner: owner}); err != nil {
			lock.Close()
			return nil, err
		}
		return lock, nil
	}()
	if err == nil {
		err = localfile.RenameNoReplace(o.parent, tmpName, o.parent, o.site.storeBase())
		if err != nil {
			lock.Close()
		}
	}
	if err != nil {
		removeStoreEntries(tmp)
		_ = o.parent.Remove(tmpName)
		if errors.Is(err, fs.ErrExist) {
			return nil, errStoreExists
		}
		return nil, err
	}
	return lock, nil
}

// Abandon undoes a Stage that was never switched in, and releases the
// lock: the staging area goes, and the store too when nothing was ever
// published from it. A spent Staged is left as it is.
func (st *Staged) Abandon() error {
	if st.lock == nil {
		return nil
	}
	defer st.release()
	found, err := st.o.inspect()
	if err != nil || found.Marker == nil || found.Marker.Owner != st.Owner {
		return err
	}
	if !everPublished(found.Marker, found) {
		st.lock.BeforeRemoval()
		if left := st.o.removeStore(); len(left) > 0 {
			return fmt.Errorf("%s holds entries that the provider did not make, left as they are: %s", st.Site.Store, strings.Join(left, ", "))
		}
		return nil
	}
	_, err = confined.Remove(st.o.store, stagingDir, confined.Dir)
	return err
}

// inspectOwn inspects the store, refusing one that holds an entry the
// provider never makes.
func (o *opened) inspectOwn() (Inspection, error) {
	found, err := o.inspect()
	if err == nil && found.Foreign != "" {
		err = &ForeignError{Site: o.site, Found: found.Foreign}
	}
	return found, err
}

// removedWhileStaged is the error of a store that another process removed
// between two steps of a staging.
func removedWhileStaged(s Site) error {
	return fmt.Errorf("%s was removed while the site was being staged; apply again", s.Store)
}
