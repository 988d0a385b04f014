// Package publish serves a tree of files at a path that switches from one
// complete tree to the next in a single step, and keeps a record of what it
// wrote, so that it never deletes or replaces anything else.
//
// The served path, dir, is a symbolic link into a store beside it,
// ".<name>.docsadmin", which holds the releases (one complete tree each), a
// staging area for the tree being written, the records of each release, a
// lock, and a marker, site.json, that names the path the store serves and
// the owner that publishes there. A first publication makes the link where
// nothing is (symlinkat fails on anything there); a later switch makes the
// new link in the store and exchanges it with the old one in one step,
// then checks that what it took out is the provider's own link, and puts it
// back otherwise. Every lookup of dir resolves to the old tree or to the
// new one, never to neither or to a mix. The previous release is kept until
// the next switch, for servers that resolved the old link a moment before;
// older ones are removed then.
//
// A run holds a lock on the store's lock file from Stage to Switch or
// Abandon. A store that never published, holds only what the provider
// makes, and whose lock is free was left by a run killed before its first
// switch, and the next Stage takes it over; a store whose lock is held is
// being published by another run.
//
// Everything on disk goes through confined handles (store.go): no link
// found in the store or at dir is ever followed, and nothing but entries
// of the provider's own names and kinds is removed.
package publish

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
)

const (
	storeSuffix = ".docsadmin"
	nameMax     = 255 // NAME_MAX on Linux and macOS
	markerMax   = 64 << 10
	// newStorePrefix names a store being made beside the served path.
	newStorePrefix = ".docsadmin-new-"
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

// Site is one served path and the store beside it.
type Site struct {
	// Dir is the served path: absolute and clean.
	Dir string
	// Store is the provider's directory beside Dir.
	Store string
	// Resolved is Dir with the symbolic links of its existing parents
	// resolved: two sites collide when their resolved paths do.
	Resolved string
}

// Locate names the store of the served path dir, relative to the working
// directory when not absolute. It reads only the directories above dir, to
// resolve their links.
func Locate(dir string) (Site, error) {
	if strings.TrimSpace(dir) == "" {
		return Site{}, errors.New("the directory is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Site{}, err
	}
	parent, base := filepath.Split(abs)
	if base == "" {
		return Site{}, fmt.Errorf("%s is the root directory", abs)
	}
	return Site{Dir: abs, Store: filepath.Join(parent, storeName(base)), Resolved: filepath.Join(resolveExisting(filepath.Dir(abs)), base)}, nil
}

// resolveExisting resolves the links of the longest existing part of p.
func resolveExisting(p string) string {
	var rest []string
	for q := p; ; q = filepath.Dir(q) {
		if resolved, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(append([]string{resolved}, rest...)...)
		}
		if filepath.Dir(q) == q {
			return p
		}
		rest = append([]string{filepath.Base(q)}, rest...)
	}
}

// storeName is ".<base>.docsadmin", shortened with a digest of base where
// that would be longer than a name may be, so that any served name works.
func storeName(base string) string {
	name := "." + base + storeSuffix
	if len(name) <= nameMax {
		return name
	}
	sum := sha256.Sum256([]byte(base))
	keep := base[:180]
	for !utf8.ValidString(keep) {
		keep = keep[:len(keep)-1]
	}
	return "." + keep + "-" + hex.EncodeToString(sum[:6]) + storeSuffix
}

func (s Site) base() string      { return filepath.Base(s.Dir) }
func (s Site) storeBase() string { return filepath.Base(s.Store) }

// Release is the path of the release name inside the store.
func (s Site) Release(name string) string {
	return filepath.Join(s.Store, releasesDir, name)
}

// Record is the path of a release's record of the given suffix (such as
// ".json"), which Switch wrote beside the release.
func (s Site) Record(release, suffix string) string {
	return filepath.Join(s.Store, recordsDir, release+suffix)
}

// ReadRecord reads a release's record: a regular file of at most limit
// bytes, reached without following any link.
func (s Site) ReadRecord(release, suffix string, limit int64) ([]byte, error) {
	o, err := s.open(false)
	if err != nil {
		return nil, err
	}
	defer o.close()
	if o.store == nil {
		return nil, fmt.Errorf("%s does not exist", s.Store)
	}
	records, err := openDirIn(o.store, recordsDir, "the records of the site's releases")
	if err != nil {
		return nil, err
	}
	if records == nil {
		return nil, fmt.Errorf("%s: %w", s.Record(release, suffix), fs.ErrNotExist)
	}
	defer records.Close()
	f, err := openRegularIn(records, release+suffix, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, limit, s.Record(release, suffix))
}

// linkTarget is what the link at Dir holds for the release name: relative,
// so that the parent directory can be moved or mounted elsewhere whole.
func (s Site) linkTarget(name string) string {
	return filepath.Join(s.storeBase(), releasesDir, name)
}

// releaseOf is the release a link target of the provider's names, or "".
func (s Site) releaseOf(target string) string {
	name, ok := strings.CutPrefix(target, filepath.Join(s.storeBase(), releasesDir)+string(filepath.Separator))
	if !ok || name == "" || strings.ContainsAny(name, `/\`) {
		return ""
	}
	return name
}

// opened is a site's confined handles: the directory that holds Dir and
// the store (parent), and the store when it exists.
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
	if o.store, err = openDirIn(parent, s.storeBase(), "the site's releases, in a directory of its own"); err != nil {
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

// reopenStore opens the store again (it was made or replaced meanwhile).
func (o *opened) reopenStore() error {
	if o.store != nil {
		o.store.Close()
		o.store = nil
	}
	var err error
	o.store, err = openDirIn(o.parent, o.site.storeBase(), "the site's releases, in a directory of its own")
	return err
}

// Found is what Inspect found at a site's path.
type Found struct {
	// Marker is the store's record, nil when there is no store.
	Marker *Marker
	// Current is the release the link at Dir points to, "" when Dir does
	// not exist or is not the store's link.
	Current string
	// Own says Dir is a link the provider makes (into a release of the
	// store, which may be gone): a switch replaces it.
	Own bool
	// Foreign describes what Dir holds when the provider did not write it
	// ("a directory with 3 entries: a.txt, b, c"), "" otherwise.
	Foreign string
	// Store identifies the store found at its name, zero when there is
	// none (or the system gives no identity).
	Store StoreID
}

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

// storeID is the identity of the store a handle holds.
func storeID(store *os.Root) (StoreID, error) {
	info, err := store.Stat(".")
	if err != nil {
		return StoreID{}, err
	}
	id, _ := identityOf(info)
	return id, nil
}

// Inspect reads the store's marker and what is at Dir, without following
// any link and without opening special files. A store of another user is
// an *EntryError, as for Stage: it is never read, so that nothing it says
// is trusted.
func (s Site) Inspect() (Found, error) {
	o, err := s.open(false)
	if err != nil {
		return Found{}, err
	}
	defer o.close()
	return o.inspect()
}

func (o *opened) inspect() (Found, error) {
	var f Found
	if o.parent == nil {
		return f, nil
	}
	if o.store != nil {
		if err := checkOwner(o.store, os.Geteuid()); err != nil {
			return f, err
		}
		id, err := storeID(o.store)
		if err != nil {
			return f, err
		}
		f.Store = id
		m, err := readMarker(o.store)
		if err != nil {
			return f, err
		}
		if m == nil {
			return f, &EntryError{Path: o.site.Store, Found: "a directory without " + markerName, Want: storeWant}
		}
		f.Marker = m
	}
	base := o.site.base()
	info, err := o.parent.Lstat(base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, nil
	case err != nil:
		return f, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := o.parent.Readlink(base)
		if err != nil {
			return f, err
		}
		if name := o.site.releaseOf(target); name != "" {
			// The provider's link; into a store that is gone (removed by
			// hand) it serves nothing and is replaced by the next switch.
			f.Own = true
			if f.Marker != nil {
				f.Current = name
			}
			return f, nil
		}
		f.Foreign = fmt.Sprintf("a symbolic link to %q that the provider did not make", target)
		return f, nil
	}
	f.Foreign = describeForeign(o.parent, base, info)
	return f, nil
}

// Describe says what is at p, which the provider did not write: a file, a
// special file, or a directory and a few of its entries, naming Terraform's
// own files and a site published inside it first. Nothing is followed.
func Describe(p string) string {
	parent, err := localfile.OpenDir(filepath.Dir(p))
	if err != nil {
		return "an entry that cannot be read (" + err.Error() + ")"
	}
	defer parent.Close()
	info, err := parent.Lstat(filepath.Base(p))
	if err != nil {
		return "an entry that cannot be read (" + err.Error() + ")"
	}
	return describeForeign(parent, filepath.Base(p), info)
}

func describeForeign(parent *os.Root, name string, info fs.FileInfo) string {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return describeEntry(parent, name, info) + " that the provider did not make"
	case !info.IsDir():
		return describeEntry(parent, name, info)
	}
	dir, err := openDirIn(parent, name, "")
	if err != nil || dir == nil {
		return "a directory that cannot be read"
	}
	defer dir.Close()
	entries, err := readDirIn(dir)
	if err != nil {
		return "a directory that cannot be read (" + err.Error() + ")"
	}
	if len(entries) == 0 {
		return "an empty directory that the provider did not make"
	}
	if tf := TerraformFiles(entries); len(tf) > 0 {
		return fmt.Sprintf("a directory of a Terraform configuration or state (%s)", strings.Join(tf, ", "))
	}
	if site := nestedSite(dir, entries); site != "" {
		return "a directory that the provider did not make, which holds " + site
	}
	names := make([]string, 0, 3)
	for _, e := range entries[:min(3, len(entries))] {
		names = append(names, e.Name())
	}
	more := ""
	if len(entries) > len(names) {
		more = ", ..."
	}
	return fmt.Sprintf("a directory that the provider did not make, with %d %s (%s%s)", len(entries), plural(len(entries), "entry", "entries"), strings.Join(names, ", "), more)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Bounds of nestedSite's look below a directory.
const (
	nestedDirsMax    = 64
	nestedEntriesMax = 256
)

// nestedSite names a site published inside dir, or "": it looks for a
// store among dir's entries, then among the first entries of the first of
// its subdirectories, and no deeper.
func nestedSite(dir *os.Root, entries []fs.DirEntry) string {
	if site := siteAmong(dir, entries); site != "" {
		return site
	}
	dirs := 0
	for _, e := range entries {
		if !e.IsDir() { // links are not followed
			continue
		}
		if dirs++; dirs > nestedDirsMax {
			break
		}
		sub, err := openDirIn(dir, e.Name(), "")
		if err != nil || sub == nil {
			continue
		}
		d, err := sub.Open(".")
		if err == nil {
			subEntries, _ := d.ReadDir(nestedEntriesMax)
			d.Close()
			if site := siteAmong(sub, subEntries); site != "" {
				sub.Close()
				return site
			}
		}
		sub.Close()
	}
	return ""
}

// siteAmong names the site of a store among the entries of dir, or "".
func siteAmong(dir *os.Root, entries []fs.DirEntry) string {
	for _, e := range entries {
		if !e.IsDir() || !strings.HasSuffix(e.Name(), storeSuffix) {
			continue
		}
		store, err := openDirIn(dir, e.Name(), "")
		if err != nil || store == nil {
			continue
		}
		m, err := readMarker(store)
		store.Close()
		if err != nil || m == nil {
			continue
		}
		served := m.Directory
		if served == "" || filepath.Dir(served) != filepath.Clean(dir.Name()) {
			served = filepath.Join(dir.Name(), strings.TrimSuffix(strings.TrimPrefix(e.Name(), "."), storeSuffix))
		}
		job := ""
		if m.JobID != "" {
			job = ", export job " + m.JobID
		}
		return fmt.Sprintf("%s, the site of a docsadmin_static_site (%s%s)", served, m.Owner, job)
	}
	return ""
}

// TerraformFiles names the entries that belong to a Terraform
// configuration, its working directory or its state.
func TerraformFiles(entries []fs.DirEntry) []string {
	var out []string
	for _, e := range entries {
		n := e.Name()
		switch {
		case n == ".terraform", n == ".terraform.lock.hcl", strings.HasPrefix(n, "terraform.tfstate"),
			strings.HasSuffix(n, ".tf"), strings.HasSuffix(n, ".tf.json"), strings.HasSuffix(n, ".tofu"), strings.HasSuffix(n, ".tftest.hcl"):
			out = append(out, n)
		}
		if len(out) == 3 {
			break
		}
	}
	return out
}

// ConflictError is a store that another owner publishes with.
type ConflictError struct {
	Site  Site
	Other Marker
}

func (e *ConflictError) Error() string {
	job := ""
	if e.Other.JobID != "" {
		job = " the site of export job " + e.Other.JobID
	}
	since := "publishing its first site now"
	if e.Other.Current != "" {
		since = "publishing" + job
		if job == "" {
			since += " a site"
		}
		if !e.Other.Published.IsZero() {
			since += " since " + e.Other.Published.UTC().Format(time.RFC3339)
		}
	}
	of := ""
	if e.Other.Configuration != "" {
		of = ", of the configuration at " + e.Other.Configuration
	}
	return fmt.Sprintf("%s is published by another docsadmin_static_site (%s, %s%s); two sites cannot share a directory",
		e.Site.Dir, e.Other.Owner, since, of)
}

// BusyError is a store that another run of the same owner is publishing
// with at this moment.
type BusyError struct {
	Site Site
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is being published by another run of the provider right now (it holds the lock %s); two runs cannot "+
		"publish one site at once. Wait for that run to end, then apply again", e.Site.Dir, filepath.Join(e.Site.Store, lockName))
}

// ForeignError is a served path that holds what the provider did not write.
type ForeignError struct {
	Site  Site
	Found string
	// Appeared says it appeared while the site was being switched in,
	// after the path had been checked.
	Appeared bool
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s holds %s; the provider replaces only what it wrote itself", e.Site.Dir, e.What())
}

// What says what was found, and when it appeared if it did meanwhile.
func (e *ForeignError) What() string {
	if e.Appeared {
		return e.Found + " (it appeared while the new release was being switched in, and was left as it is)"
	}
	return e.Found
}

// storeLock is the lock on a store's lock file (see lockFile), held until
// Close.
type storeLock struct{ f *os.File }

// Close releases the lock.
func (l *storeLock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// errBusy is a lock that another open file holds.
var errBusy = errors.New("the lock is held by another run")

// errStoreExists is a store that appeared while create made one.
var errStoreExists = errors.New("the store appeared meanwhile")

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
	lock     *storeLock
	o        *opened
	releases *os.Root
	staging  *os.Root
	tree     *os.Root
}

// TreeDir is the empty directory the tree is to be written into, as a
// confined handle: a name of the store's that someone replaces meanwhile
// cannot lead a write elsewhere.
func (st *Staged) TreeDir() *os.Root { return st.tree }

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

// published reports whether a store ever served a site: its marker names a
// release, or the link at Dir points into it (a run killed between the
// switch and the marker's update).
func published(m *Marker, found Found) bool {
	return m.Current != "" || found.Current != ""
}

// conflict is the refusal of another owner's store, naming the release
// its link serves when the marker does not.
func (s Site) conflict(m Marker, found Found) *ConflictError {
	if m.Current == "" {
		m.Current = found.Current
	}
	return &ConflictError{Site: s, Other: m}
}

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
	found, err := o.inspect()
	if err != nil {
		return err
	}
	if found.Foreign != "" {
		return &ForeignError{Site: s, Found: found.Foreign}
	}
	if m := found.Marker; m != nil && m.Owner != st.Owner && published(m, found) {
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
			return fmt.Errorf("%s was removed while the site was being staged; apply again", s.Store)
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
func (o *opened) lock(owner string) (*storeLock, error) {
	m, err := readMarker(o.store)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%s was removed while the site was being staged; apply again", o.site.Store)
	}
	l, err := lockFile(o.store)
	switch {
	case errors.Is(err, errBusy) && m.Owner != owner:
		return nil, &ConflictError{Site: o.site, Other: *m}
	case errors.Is(err, errBusy):
		return nil, &BusyError{Site: o.site}
	}
	return l, err
}

// prepare, under the lock, checks the store again, takes over one that a
// killed first publication left, removes what killed runs left, and makes
// the staging area.
func (st *Staged) prepare() error {
	s, o := st.Site, st.o
	found, err := o.inspect()
	if err != nil {
		return err
	}
	if found.Foreign != "" {
		return &ForeignError{Site: s, Found: found.Foreign}
	}
	m := found.Marker
	if m == nil {
		return fmt.Errorf("%s was removed while the site was being staged; apply again", s.Store)
	}
	if err := checkStore(o.store); err != nil {
		return err
	}
	if m.Owner != st.Owner {
		if published(m, found) || !leftByFirstRun(o.store) {
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
	if _, err := removeOwn(o.store, stagingDir, kindDir); err != nil {
		return err
	}
	if st.releases, err = ownDir(o.store, releasesDir); err != nil {
		return err
	}
	if err := o.store.Mkdir(stagingDir, 0o755); err != nil {
		return err
	}
	if st.staging, err = ownDir(o.store, stagingDir); err != nil {
		return err
	}
	st.tree, err = ownDir(st.staging, stagedTree)
	return err
}

// ownDir opens the provider's directory name in dir, making it first when
// missing; anything else there is refused.
func ownDir(dir *os.Root, name string) (*os.Root, error) {
	if err := dir.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	sub, err := openDirIn(dir, name, "a directory of its own ("+name+")")
	if err == nil && sub == nil {
		err = fmt.Errorf("%s was removed while it was opened; apply again", filepath.Join(dir.Name(), name))
	}
	return sub, err
}

// create makes the store with its marker and its lock, held, in one step:
// the store is written under a temporary name beside it and renamed into
// place where nothing is, so that no one ever sees a store without its
// marker, nor one whose first publication is under way without its lock
// held. errStoreExists is a store that appeared meanwhile.
func (o *opened) create(owner string) (*storeLock, error) {
	tmpName := newStorePrefix + randomName()
	if err := o.parent.Mkdir(tmpName, 0o755); err != nil {
		return nil, err
	}
	tmp, err := openDirIn(o.parent, tmpName, "")
	if err != nil || tmp == nil {
		return nil, fmt.Errorf("making the store for %s: %v", o.site.Dir, err)
	}
	defer tmp.Close()
	lock, err := func() (*storeLock, error) {
		if err := tmp.Chmod(".", 0o755); err != nil { // the umask may have narrowed it
			return nil, err
		}
		lock, err := newLock(tmp)
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

// removeNewStores removes the stores being made beside Dir that killed
// runs left: directories of the provider's temporary name that hold only
// a lock, which no run holds, and a marker for Dir or none yet. Never one
// whose lock is missing (its run may be about to make it) or held.
func removeNewStores(parent *os.Root, s Site) {
	entries, err := readDirIn(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), newStorePrefix) {
			continue
		}
		tmp, err := openDirIn(parent, e.Name(), "")
		if err != nil || tmp == nil {
			continue
		}
		if leftNewStore(tmp, s) {
			if lock, err := lockFile(tmp); err == nil {
				lock.beforeRemoval()
				removeStoreEntries(tmp)
				lock.Close()
				_ = parent.Remove(e.Name())
			}
		}
		tmp.Close()
	}
}

// leftNewStore reports whether tmp is a store being made that its run
// left, lock aside: a lock file, and at most a marker for Dir and its
// temporary copies.
func leftNewStore(tmp *os.Root, s Site) bool {
	entries, err := readDirIn(tmp)
	if err != nil {
		return false
	}
	hasLock := false
	for _, e := range entries {
		n := e.Name()
		want, own := storeEntryKind(n)
		if !own || want != kindFile {
			return false
		}
		if info, err := tmp.Lstat(n); err != nil || !info.Mode().IsRegular() {
			return false
		}
		hasLock = hasLock || n == lockName
	}
	if !hasLock {
		return false
	}
	m, err := readMarker(tmp)
	return err != nil || m == nil || m.Directory == s.Dir
}

// removeStoreEntries removes the entries of the provider's names and kinds
// from a store, and reports the others, which stay.
func removeStoreEntries(store *os.Root) (left []string) {
	entries, err := readDirIn(store)
	if err != nil {
		return []string{"(" + err.Error() + ")"}
	}
	for _, e := range entries {
		want, own := storeEntryKind(e.Name())
		if !own {
			left = append(left, e.Name())
			continue
		}
		if l, err := removeOwn(store, e.Name(), want); l != "" || err != nil {
			if err != nil {
				l = e.Name() + " (" + err.Error() + ")"
			}
			left = append(left, l)
		}
	}
	return left
}

// beforeLinkSwitch, when set by a test, runs after the new tree is synced
// and before the link at Dir is made or exchanged.
var beforeLinkSwitch atomic.Pointer[func(s Site)]

// SetBeforeLinkSwitch sets a function that runs after the new tree is
// synced to disk and before the link at Dir is switched, for the tests of
// callers that race the switch; it returns the function that unsets it.
func SetBeforeLinkSwitch(f func(s Site)) (restore func()) {
	beforeLinkSwitch.Store(&f)
	return func() { beforeLinkSwitch.Store(nil) }
}

// Switch moves the complete tree (from Stage) into the releases, writes
// its records beside it (name suffix to content, such as ".json"), and
// points Dir at it in one step. The release that was current stays as the
// previous one; every older release is removed. It returns the new
// release's name, and then releases the lock: the Staged is spent. When it
// returns no name nothing was switched, and Abandon undoes the Stage.
func (st *Staged) Switch(jobID string, records map[string][]byte) (name string, err error) {
	if st.lock == nil {
		return "", errors.New("the staged tree was already switched in or abandoned")
	}
	defer func() {
		if name != "" {
			st.release()
		}
	}()
	s, o := st.Site, st.o
	found, err := o.inspect()
	if err != nil {
		return "", err
	}
	if found.Foreign != "" {
		return "", &ForeignError{Site: s, Found: found.Foreign}
	}
	if found.Marker == nil {
		return "", fmt.Errorf("%s disappeared while the site was written", s.Store)
	}
	if found.Marker.Owner != st.Owner {
		return "", s.conflict(*found.Marker, found)
	}
	release := time.Now().UTC().Format("20060102T150405Z") + "-" + randomName()[:8]
	if err := st.moveIn(release, records); err != nil {
		st.discard(release)
		return "", err
	}
	if hook := beforeLinkSwitch.Load(); hook != nil {
		(*hook)(s)
	}
	if err := o.switchLink(found, release); err != nil {
		st.discard(release)
		return "", err
	}
	localfile.SyncRoot(o.parent)
	m := *found.Marker
	if found.Current != "" && found.Current != release {
		m.Previous = found.Current
	}
	m.Directory, m.Current, m.JobID, m.Published = s.Dir, release, jobID, time.Now().UTC()
	if st.Configuration != "" {
		m.Configuration = st.Configuration
	}
	if err := writeMarker(o.store, m); err != nil {
		return release, err
	}
	_, _ = removeOwn(o.store, stagingDir, kindDir)
	return release, st.prune(m.Current, m.Previous)
}

// moveIn makes the staged tree durable and moves it into the releases as
// release, with its records.
func (st *Staged) moveIn(release string, records map[string][]byte) error {
	// Durable before it is published (localfile's policy).
	if err := localfile.SyncTree(st.tree); err != nil {
		return fmt.Errorf("syncing the new tree to disk: %w", err)
	}
	if err := localfile.Rename(st.staging, stagedTree, st.releases, release); err != nil {
		return err
	}
	if len(records) == 0 {
		return nil
	}
	dir, err := ownDir(st.o.store, recordsDir)
	if err != nil {
		return err
	}
	defer dir.Close()
	for suffix, data := range records {
		if err := localfile.WriteBytes(dir, release+suffix, 0o644, data); err != nil {
			return err
		}
	}
	return nil
}

// discard removes a release that was never switched in, and its records.
func (st *Staged) discard(release string) {
	_, _ = removeOwn(st.releases, release, kindDir)
	st.pruneRecords(func(name string) bool { return name != release })
}

// switchLink points Dir at release. Where nothing was, the link is made
// there directly, which fails on anything that appeared meanwhile. Where
// the provider's link was, the new one is exchanged with it in one step
// and what came out is checked to be the provider's link: anything else is
// put back. Without an exchange (some systems and file systems), Dir is
// checked again just before a rename over it.
func (o *opened) switchLink(found Found, release string) error {
	s := o.site
	target := s.linkTarget(release)
	appeared := func() error {
		f, err := o.inspect()
		if err != nil {
			return err
		}
		what := f.Foreign
		if what == "" {
			what = "an entry that the provider did not check"
		}
		return &ForeignError{Site: s, Found: what, Appeared: true}
	}
	if !found.Own {
		err := o.parent.Symlink(target, s.base())
		if errors.Is(err, fs.ErrExist) {
			return appeared()
		}
		if err != nil {
			return fmt.Errorf("creating the symbolic link that serves the site: %w", err)
		}
		return nil
	}
	tmp := linkTmpInfix + randomName()
	if err := o.store.Symlink(target, tmp); err != nil {
		return fmt.Errorf("creating the symbolic link that serves the site: %w", err)
	}
	err := localfile.Exchange(o.store, tmp, o.parent, s.base())
	switch {
	case err == nil:
		if o.ownLinkAt(o.store, tmp) {
			_ = o.store.Remove(tmp)
			return nil
		}
		// Not the provider's: put it back, and take the new link out.
		if err := localfile.Exchange(o.store, tmp, o.parent, s.base()); err != nil {
			return fmt.Errorf("%s appeared at %s during the switch and could not be put back from %s: %w; move it back by hand",
				"an entry the provider did not make", s.Dir, filepath.Join(s.Store, tmp), err)
		}
		_ = o.store.Remove(tmp)
		return appeared()
	case errors.Is(err, errors.ErrUnsupported):
		if now, err := o.inspect(); err != nil || !now.Own {
			_ = o.store.Remove(tmp)
			if err != nil {
				return err
			}
			return appeared()
		}
		if err := localfile.Rename(o.store, tmp, o.parent, s.base()); err != nil {
			_ = o.store.Remove(tmp)
			return fmt.Errorf("switching %s to the new tree: %w", s.Dir, err)
		}
		return nil
	default:
		_ = o.store.Remove(tmp)
		return fmt.Errorf("switching %s to the new tree: %w", s.Dir, err)
	}
}

// ownLinkAt reports whether name in dir is a link the provider makes for
// this site.
func (o *opened) ownLinkAt(dir *os.Root, name string) bool {
	info, err := dir.Lstat(name)
	if err != nil || info.Mode()&fs.ModeSymlink == 0 {
		return false
	}
	target, err := dir.Readlink(name)
	return err == nil && o.site.releaseOf(target) != ""
}

// prune removes every release but keep, and the records of those it
// removes: only entries of the provider's release names.
func (st *Staged) prune(keep ...string) error {
	entries, err := readDirIn(st.releases)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if releaseName.MatchString(e.Name()) && !contains(keep, e.Name()) {
			if _, err := removeOwn(st.releases, e.Name(), kindDir); err != nil {
				errs = append(errs, err)
			}
		}
	}
	st.pruneRecords(func(name string) bool { return contains(keep, name) })
	return errors.Join(errs...)
}

// pruneRecords removes the records of the releases keep refuses.
func (st *Staged) pruneRecords(keep func(release string) bool) {
	dir, err := openDirIn(st.o.store, recordsDir, "")
	if err != nil || dir == nil {
		return
	}
	defer dir.Close()
	entries, err := readDirIn(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		release, _, _ := strings.Cut(e.Name(), ".")
		if releaseName.MatchString(release) && !keep(release) {
			_, _ = removeOwn(dir, e.Name(), kindFile)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v != "" && v == s {
			return true
		}
	}
	return false
}

// Withdrawal is what Withdraw did.
type Withdrawal struct {
	// Removed says the store was this owner's and its entries went.
	Removed bool
	// Left names what stayed in the store because the provider did not
	// make it; the store then stays too.
	Left []string
}

// Withdraw removes what owner published at Dir from the store want
// identifies (zero: the store at its name): the link, when it is the
// provider's (checked after it is moved away, and put back otherwise), and
// the entries of the store of the provider's names and kinds, under the
// store's lock; stores being made for Dir that killed runs left beside it
// go too, and the provider's link alone when its store was removed by hand.
// Nothing is removed of a store that belongs to another owner or another
// user, nor of one that is not the store want identifies (an
// *OtherStoreError: moved, copied or replaced since), and a Dir that is not
// the provider's link is left in place. A store another run holds is
// refused with a *BusyError.
func (s Site) Withdraw(owner string, want StoreID) (Withdrawal, error) {
	o, err := s.open(false)
	if err != nil || o.parent == nil {
		return Withdrawal{}, err
	}
	defer o.close()
	removeNewStores(o.parent, s)
	found, err := o.inspect()
	if err == nil && found.Own && o.store == nil {
		// The store was removed by hand: the link serves nothing, and
		// goes, moved aside beside it and checked first.
		return Withdrawal{}, o.removeLink(o.parent)
	}
	if mine, err := s.withdraws(owner, want, found, err); !mine {
		return Withdrawal{}, err
	}
	lock, err := lockFile(o.store)
	if errors.Is(err, errBusy) {
		return Withdrawal{}, &BusyError{Site: s}
	}
	if err != nil {
		return Withdrawal{}, err
	}
	defer lock.Close()
	found, err = o.inspect()
	if mine, err := s.withdraws(owner, want, found, err); !mine {
		return Withdrawal{}, err
	}
	if found.Current != "" {
		if err := o.removeLink(o.store); err != nil {
			return Withdrawal{}, err
		}
	}
	lock.beforeRemoval()
	return o.removeStore(), nil
}

// withdraws says whether Withdraw removes the store found: owner's, and
// the one want identifies when it is known. When it does not, the error
// says why, if there is one to say.
func (s Site) withdraws(owner string, want StoreID, found Found, err error) (bool, error) {
	switch {
	case err != nil:
		return false, err
	case found.Marker == nil || found.Marker.Owner != owner:
		return false, nil
	case !want.IsZero() && found.Store != want:
		return false, &OtherStoreError{Site: s, Want: want, Found: found.Store}
	}
	return true, nil
}

// OtherStoreError is a store at a site's name that is not the one the site
// recorded when it published: moved, copied or replaced since. Withdraw
// leaves it as it is.
type OtherStoreError struct {
	Site        Site
	Want, Found StoreID
}

func (e *OtherStoreError) Error() string {
	return fmt.Sprintf("%s is not the store this site published with (that one is %s, this one %s): it was moved, copied or "+
		"replaced since, and the provider removes only the store it recorded", e.Site.Store, e.Want, e.Found)
}

// removeLink moves the link at Dir into aside (the store, or the
// directory that holds Dir when the store is gone), checks it is the
// provider's, and removes it; anything else is put back.
func (o *opened) removeLink(aside *os.Root) error {
	s := o.site
	gone := linkGoneName + "-" + randomName()
	if err := localfile.RenameNoReplace(o.parent, s.base(), aside, gone); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("removing the link %s: %w", s.Dir, err)
	}
	if o.ownLinkAt(aside, gone) {
		return aside.Remove(gone)
	}
	if err := localfile.RenameNoReplace(aside, gone, o.parent, s.base()); err != nil {
		return fmt.Errorf("an entry the provider did not make replaced the link %s while it was being removed, and could not be "+
			"put back from %s: %w; move it back by hand", s.Dir, filepath.Join(aside.Name(), gone), err)
	}
	return nil
}

// removeStore removes the store's own entries, then the store when nothing
// else is in it.
func (o *opened) removeStore() Withdrawal {
	left := removeStoreEntries(o.store)
	if len(left) == 0 {
		if err := o.parent.Remove(o.site.storeBase()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			left = append(left, "("+err.Error()+")")
		}
	}
	return Withdrawal{Removed: true, Left: left}
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
	if !published(found.Marker, found) {
		st.lock.beforeRemoval()
		if w := st.o.removeStore(); len(w.Left) > 0 {
			return fmt.Errorf("%s holds entries that the provider did not make, left as they are: %s", st.Site.Store, strings.Join(w.Left, ", "))
		}
		return nil
	}
	_, err = removeOwn(st.o.store, stagingDir, kindDir)
	return err
}

// Releases lists the releases in the store, oldest first.
func (s Site) Releases() ([]string, error) {
	o, err := s.open(false)
	if err != nil || o.store == nil {
		return nil, err
	}
	defer o.close()
	releases, err := openDirIn(o.store, releasesDir, "")
	if err != nil || releases == nil {
		return nil, err
	}
	defer releases.Close()
	entries, err := readDirIn(releases)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out, nil
}

func randomName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
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

// AddRecord writes the record of the given suffix for release, under the
// store's lock, when the store is owner's, release is the one it serves,
// and the record does not exist yet: for a release published before its
// records were kept. Otherwise it writes nothing.
func (s Site) AddRecord(owner, release, suffix string, data []byte) error {
	o, err := s.open(false)
	if err != nil || o.store == nil {
		return err
	}
	defer o.close()
	lock, err := lockFile(o.store)
	if errors.Is(err, errBusy) {
		return &BusyError{Site: s}
	}
	if err != nil {
		return err
	}
	defer lock.Close()
	found, err := o.inspect()
	if err != nil || found.Marker == nil || found.Marker.Owner != owner || found.Current != release {
		return err
	}
	dir, err := ownDir(o.store, recordsDir)
	if err != nil {
		return err
	}
	defer dir.Close()
	if _, err := dir.Lstat(release + suffix); !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return localfile.WriteBytes(dir, release+suffix, 0o644, data)
}
