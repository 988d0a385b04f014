// Package publish serves a tree of files at a path that switches from one
// complete tree to the next in a single step, and keeps a record of what it
// wrote, so that it never deletes or replaces anything else.
//
// The served path, dir, is a symbolic link into a store beside it,
// ".<name>.docsadmin", which holds the releases (one complete tree each), a
// staging area for the tree being written, and a marker, site.json, that
// names the path the store serves and the owner that publishes there. A
// switch creates the new link under a temporary name inside the store and
// renames it over dir: rename(2) replaces a link atomically, so every lookup
// of dir resolves to the old tree or to the new one, never to neither or to a
// mix. The previous release is kept until the next switch, for servers that
// resolved the old link a moment before; older ones are removed then.
//
// A run holds an flock on the store's lock file from Stage to Switch or
// Abandon. A store that never published and whose lock is free was left by
// a run killed before its first switch, and the next Stage takes it over; a
// store whose lock is held is being published by another run. Temporary
// files and stores a killed run left, under the provider's own names, are
// removed by the next Stage or Withdraw.
//
// Nothing outside the store and the link at dir is ever written or removed:
// a dir that holds anything the store does not account for is refused.
package publish

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
)

const (
	storeSuffix = ".docsadmin"
	markerName  = "site.json"
	releasesDir = "releases"
	recordsDir  = "manifests"
	stagingDir  = "staging"
	nameMax     = 255 // NAME_MAX on Linux and macOS
	markerMax   = 64 << 10
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
}

// Site is one served path and the store beside it.
type Site struct {
	// Dir is the served path: absolute and clean.
	Dir string
	// Store is the provider's directory beside Dir.
	Store string
}

// Locate names the store of the served path dir, relative to the working
// directory when not absolute. Nothing is read.
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
	return Site{Dir: abs, Store: filepath.Join(parent, storeName(base))}, nil
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

// Release is the path of the release name inside the store.
func (s Site) Release(name string) string {
	return filepath.Join(s.Store, releasesDir, name)
}

// linkTarget is what the link at Dir holds for the release name: relative,
// so that the parent directory can be moved or mounted elsewhere whole.
func (s Site) linkTarget(name string) string {
	return filepath.Join(filepath.Base(s.Store), releasesDir, name)
}

// Found is what Inspect found at a site's path.
type Found struct {
	// Marker is the store's record, nil when there is no store.
	Marker *Marker
	// Current is the release the link at Dir points to, "" when Dir does
	// not exist or is not the store's link.
	Current string
	// Foreign describes what Dir holds when the provider did not write it
	// ("a directory with 3 entries: a.txt, b, c"), "" otherwise.
	Foreign string
}

// Inspect reads the store's marker and what is at Dir, without following
// anything but the marker's own file and without opening special files.
func (s Site) Inspect() (Found, error) {
	var f Found
	m, err := s.readMarker()
	if err != nil {
		return f, err
	}
	f.Marker = m
	info, err := os.Lstat(s.Dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, nil
	case err != nil:
		return f, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(s.Dir)
		if err != nil {
			return f, err
		}
		prefix := filepath.Join(filepath.Base(s.Store), releasesDir) + string(filepath.Separator)
		name, ok := strings.CutPrefix(target, prefix)
		switch {
		case ok && name != "" && !strings.ContainsAny(name, `/\`) && m != nil:
			f.Current = name
			return f, nil
		case ok && name != "" && !strings.ContainsAny(name, `/\`):
			// The provider's link into a store that is gone (removed by
			// hand): nothing to serve, and the link is replaced by the
			// next publication.
			return f, nil
		}
		f.Foreign = fmt.Sprintf("a symbolic link to %q that the provider did not make", target)
		return f, nil
	}
	f.Foreign = Describe(s.Dir, info)
	return f, nil
}

// Describe says what is at p, which the provider did not write: a file, a
// special file, or a directory and a few of its entries, naming Terraform's
// own files first.
func Describe(p string, info fs.FileInfo) string {
	switch {
	case info.Mode().IsRegular():
		return fmt.Sprintf("a file of %d bytes", info.Size())
	case !info.IsDir():
		return "a special file (" + info.Mode().Type().String() + ")"
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return "a directory that cannot be read (" + err.Error() + ")"
	}
	if len(entries) == 0 {
		return "an empty directory that the provider did not make"
	}
	if tf := TerraformFiles(entries); len(tf) > 0 {
		return fmt.Sprintf("a directory of a Terraform configuration or state (%s)", strings.Join(tf, ", "))
	}
	if site := nestedSite(p, entries); site != "" {
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
	return fmt.Sprintf("a directory that the provider did not make, with %d entries (%s%s)", len(entries), strings.Join(names, ", "), more)
}

// Bounds of nestedSite's look below a directory.
const (
	nestedDirsMax    = 64
	nestedEntriesMax = 256
)

// nestedSite names a site published inside the directory p, or "": it looks
// for a store among p's entries, then among the first entries of the
// first of p's subdirectories, and no deeper.
func nestedSite(p string, entries []fs.DirEntry) string {
	if site := siteAmong(p, entries); site != "" {
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
		f, err := openDir(filepath.Join(p, e.Name()))
		if err != nil {
			continue
		}
		sub, _ := f.ReadDir(nestedEntriesMax)
		f.Close()
		if site := siteAmong(filepath.Join(p, e.Name()), sub); site != "" {
			return site
		}
	}
	return ""
}

// siteAmong names the site of a store among the entries of dir, or "".
func siteAmong(dir string, entries []fs.DirEntry) string {
	for _, e := range entries {
		if !e.IsDir() || !strings.HasSuffix(e.Name(), storeSuffix) {
			continue
		}
		m, err := (Site{Store: filepath.Join(dir, e.Name())}).readMarker()
		if err != nil || m == nil {
			continue
		}
		served := m.Directory
		if served == "" || filepath.Dir(served) != dir {
			served = filepath.Join(dir, strings.TrimSuffix(strings.TrimPrefix(e.Name(), "."), storeSuffix))
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

func (s Site) readMarker() (*Marker, error) {
	info, err := os.Lstat(s.Store)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s, where the provider keeps the site's releases, is %s", s.Store, Describe(s.Store, info))
	}
	data, err := readRegular(filepath.Join(s.Store, markerName), markerMax)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: it was not made by the provider, or it was damaged; move it away", s.Store, markerName)
	}
	if err != nil {
		return nil, err
	}
	var m Marker
	if err := json.Unmarshal(data, &m); err != nil || m.Owner == "" {
		return nil, fmt.Errorf("%s in %s cannot be read (%v); move the directory away", markerName, s.Store, err)
	}
	return &m, nil
}

// readRegular reads a regular file of at most limit bytes; it never opens
// a FIFO or a device.
func readRegular(p string, limit int64) ([]byte, error) {
	f, err := localfile.OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", p, limit)
	}
	return data, err
}

func (s Site) writeMarker(m Marker) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(s.Store, "."+markerName+"-"+randomName())
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(s.Store, markerName)); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
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
	return fmt.Sprintf("%s is published by another docsadmin_static_site (%s, %s); two sites cannot share a directory",
		e.Site.Dir, e.Other.Owner, since)
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
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s holds %s; the provider replaces only what it wrote itself", e.Site.Dir, e.Found)
}

// storeLock is the lock on a store's lock file (see lockFile), held until
// Close.
type storeLock struct{ f *os.File }

// Close releases the lock.
func (l *storeLock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	return l.f.Close()
}

// errBusy is a lock that another open file holds.
var errBusy = errors.New("the lock is held by another run")

// errStoreExists is a store that appeared while create made one.
var errStoreExists = errors.New("the store appeared meanwhile")

// Staged is a tree being written for a site, from Stage to Switch or
// Abandon. It holds the store's lock all along: the kernel releases it when
// the process ends, however it ends, so that a store that never published
// and whose lock is free is known to be what a killed run left.
type Staged struct {
	Site Site
	// Tree is where the tree is to be written: it does not exist yet.
	Tree string
	// Owner is the owner that stages.
	Owner string
	// TookOver is the owner recorded in a store that a killed run left
	// before its first switch, which this Stage took over; "" otherwise.
	TookOver string
	lock     *storeLock
}

func (st *Staged) release() {
	if st.lock != nil {
		_ = st.lock.Close()
		st.lock = nil
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
// the store's lock until Switch or Abandon. Trees and temporary files that
// a killed run left are removed first. A store that another owner made but
// never published from, and whose lock is free, was left by a run killed
// before its first switch: Stage takes it over (TookOver names that owner).
// A Dir that holds anything the provider did not write, a store another
// owner publishes with or is publishing its first site with now, or a store
// another run of the same owner holds, is refused with a *ForeignError, a
// *ConflictError or a *BusyError, and nothing is written.
func (s Site) Stage(owner string) (*Staged, error) {
	found, err := s.Inspect()
	if err != nil {
		return nil, err
	}
	if found.Foreign != "" {
		return nil, &ForeignError{Site: s, Found: found.Foreign}
	}
	if m := found.Marker; m != nil && m.Owner != owner && published(m, found) {
		return nil, s.conflict(*m, found)
	}
	s.removeNewStores()
	var lock *storeLock
	if found.Marker == nil {
		if lock, err = s.create(owner); err != nil && !errors.Is(err, errStoreExists) {
			return nil, err
		}
	}
	if lock == nil {
		if lock, err = s.lock(owner); err != nil {
			return nil, err
		}
	}
	st := &Staged{Site: s, Owner: owner, Tree: filepath.Join(s.Store, stagingDir, "tree"), lock: lock}
	if err := st.prepare(); err != nil {
		st.release()
		return nil, err
	}
	return st, nil
}

// lock takes the lock of the existing store for owner without waiting.
func (s Site) lock(owner string) (*storeLock, error) {
	m, err := s.readMarker()
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("%s was removed while the site was being staged; apply again", s.Store)
	}
	f, err := lockFile(filepath.Join(s.Store, lockName))
	switch {
	case errors.Is(err, errBusy) && m.Owner != owner:
		return nil, &ConflictError{Site: s, Other: *m}
	case errors.Is(err, errBusy):
		return nil, &BusyError{Site: s}
	}
	return f, err
}

// prepare, under the lock, checks the store again, takes over one that a
// killed first publication left, removes what killed runs left, and makes
// the staging area.
func (st *Staged) prepare() error {
	s := st.Site
	found, err := s.Inspect()
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
	if m.Owner != st.Owner {
		if !locksWork || published(m, found) {
			return s.conflict(*m, found)
		}
		// Never published, and no run holds the lock: its run was killed.
		if err := s.writeMarker(Marker{Directory: s.Dir, Owner: st.Owner}); err != nil {
			return err
		}
		st.TookOver = m.Owner
	}
	s.removeLeftovers()
	staging := filepath.Join(s.Store, stagingDir)
	if err := os.RemoveAll(staging); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(s.Store, releasesDir), 0o755); err != nil {
		return err
	}
	return os.Mkdir(staging, 0o755)
}

// create makes the store with its marker and its lock, held, in one step:
// the store is written under a temporary name beside it and renamed into
// place, so that no one ever sees a store without its marker, nor one whose
// first publication is under way without its lock held. errStoreExists is a
// store that appeared meanwhile.
func (s Site) create(owner string) (*storeLock, error) {
	parent := filepath.Dir(s.Store)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, newStorePrefix)
	if err != nil {
		return nil, err
	}
	lock, err := func() (*storeLock, error) {
		if err := os.Chmod(tmp, 0o755); err != nil {
			return nil, err
		}
		lock, err := lockFile(filepath.Join(tmp, lockName))
		if err != nil {
			return nil, err
		}
		if err := (Site{Dir: s.Dir, Store: tmp}).writeMarker(Marker{Directory: s.Dir, Owner: owner}); err != nil {
			lock.Close()
			return nil, err
		}
		return lock, nil
	}()
	if err != nil {
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, s.Store); err != nil {
		lock.Close()
		_ = os.RemoveAll(tmp)
		if exists(s.Store) {
			return nil, errStoreExists
		}
		return nil, err
	}
	return lock, nil
}

// The names of the provider's temporary files: a store being made beside
// the served path, and a link and a marker being written inside the store.
const (
	newStorePrefix  = ".docsadmin-new-"
	linkTempPrefix  = ".link-"
	markerTmpPrefix = "." + markerName + "-"
	lockName        = "lock"
	// staleNewStore is the age after which a store being made that has no
	// marker yet was left by a killed run.
	staleNewStore = time.Hour
)

// removeLeftovers removes the temporary links and markers a killed run
// left in the store. The caller holds the store's lock.
func (s Site) removeLeftovers() {
	entries, err := os.ReadDir(s.Store)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if (strings.HasPrefix(name, linkTempPrefix) || strings.HasPrefix(name, markerTmpPrefix)) && !e.IsDir() {
			_ = os.Remove(filepath.Join(s.Store, name))
		}
	}
}

// removeNewStores removes the stores being made for Dir that a killed run
// left beside it: directories of the provider's temporary name that hold
// nothing but a marker for Dir, its temporary copy and a lock that no run
// holds. One without a marker yet is removed only once it is stale, since
// its run may be writing the marker now.
func (s Site) removeNewStores() {
	parent := filepath.Dir(s.Store)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), newStorePrefix) {
			continue
		}
		tmp := filepath.Join(parent, e.Name())
		if s.leftNewStore(tmp) {
			if lock, err := lockFile(filepath.Join(tmp, lockName)); err == nil {
				_ = os.RemoveAll(tmp)
				lock.Close()
			}
		}
	}
}

// leftNewStore reports whether tmp is a store being made for Dir that its
// run left, lock aside.
func (s Site) leftNewStore(tmp string) bool {
	info, err := os.Lstat(tmp)
	if err != nil || !info.IsDir() {
		return false
	}
	entries, err := os.ReadDir(tmp)
	if err != nil || len(entries) > 3 {
		return false
	}
	for _, e := range entries {
		if n := e.Name(); e.IsDir() || (n != markerName && n != lockName && !strings.HasPrefix(n, markerTmpPrefix)) {
			return false
		}
	}
	m, err := (Site{Dir: s.Dir, Store: tmp}).readMarker()
	if err != nil {
		return time.Since(info.ModTime()) > staleNewStore
	}
	return m != nil && m.Directory == s.Dir
}

// Switch moves the complete tree (from Stage) into the releases and points
// Dir at it in one rename. Each of records is written durably beforehand as
// the release's record of that suffix (see Record): a switched release
// always has its records. The release that was current stays as the
// previous one; every older release is removed, with its records. It
// returns the new release's name, and then releases the lock: the Staged is
// spent. When it returns no name nothing was switched, and Abandon undoes
// the Stage.
func (st *Staged) Switch(jobID string, records map[string][]byte) (name string, err error) {
	if st.lock == nil {
		return "", errors.New("the staged tree was already switched in or abandoned")
	}
	defer func() {
		if name != "" {
			st.release()
		}
	}()
	s, owner := st.Site, st.Owner
	found, err := s.Inspect()
	if err != nil {
		return "", err
	}
	if found.Foreign != "" {
		return "", &ForeignError{Site: s, Found: found.Foreign}
	}
	if found.Marker == nil {
		return "", fmt.Errorf("%s disappeared while the site was written", s.Store)
	}
	if found.Marker.Owner != owner {
		return "", s.conflict(*found.Marker, found)
	}
	release := time.Now().UTC().Format("20060102T150405Z") + "-" + randomName()[:8]
	// Durable before it is published (localfile's policy).
	if err := localfile.SyncTree(st.Tree); err != nil {
		return "", fmt.Errorf("syncing the new tree to disk: %w", err)
	}
	if err := os.Rename(st.Tree, s.Release(release)); err != nil {
		return "", err
	}
	if err := s.writeRecords(release, records); err != nil {
		_ = os.RemoveAll(s.Release(release))
		s.removeRecords(release)
		return "", fmt.Errorf("recording the new tree: %w", err)
	}
	link := filepath.Join(s.Store, linkTempPrefix+randomName())
	if err := os.Symlink(s.linkTarget(release), link); err != nil {
		_ = os.RemoveAll(s.Release(release))
		return "", fmt.Errorf("creating the symbolic link that serves the site: %w", err)
	}
	if err := replaceLink(link, s.Dir); err != nil {
		_ = os.Remove(link)
		_ = os.RemoveAll(s.Release(release))
		s.removeRecords(release)
		return "", fmt.Errorf("switching %s to the new tree: %w", s.Dir, err)
	}
	localfile.SyncDir(filepath.Dir(s.Dir))
	m := *found.Marker
	if found.Current != "" && found.Current != release {
		m.Previous = found.Current
	}
	m.Directory, m.Current, m.JobID, m.Published = s.Dir, release, jobID, time.Now().UTC()
	if err := s.writeMarker(m); err != nil {
		return release, err
	}
	_ = os.RemoveAll(filepath.Join(s.Store, stagingDir))
	return release, s.prune(m.Current, m.Previous)
}

// prune removes every release but keep, and every record of a release
// it does not keep.
func (s Site) prune(keep ...string) error {
	entries, err := os.ReadDir(filepath.Join(s.Store, releasesDir))
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if !contains(keep, e.Name()) {
			errs = append(errs, os.RemoveAll(s.Release(e.Name())))
		}
	}
	records, err := os.ReadDir(filepath.Join(s.Store, recordsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	for _, e := range records {
		release, _, _ := strings.Cut(e.Name(), ".")
		if !contains(keep, release) {
			errs = append(errs, os.Remove(filepath.Join(s.Store, recordsDir, e.Name())))
		}
	}
	return errors.Join(errs...)
}

// Record is the path of the record of the release name with suffix (such
// as ".json"), which Switch wrote beside the release.
func (s Site) Record(release, suffix string) string {
	return filepath.Join(s.Store, recordsDir, release+suffix)
}

// ReadRecord reads the record of the release with suffix: a regular file
// of at most limit bytes, never through a link.
func (s Site) ReadRecord(release, suffix string, limit int64) ([]byte, error) {
	if release == "" || strings.ContainsAny(release+suffix, `/\`) || strings.Contains(release, ".") || !strings.HasPrefix(suffix, ".") {
		return nil, fmt.Errorf("no record %q of release %q", suffix, release)
	}
	return readRegular(s.Record(release, suffix), limit)
}

// writeRecords writes each record of release durably: a temporary file,
// synced, renamed into place, the directory synced.
func (s Site) writeRecords(release string, records map[string][]byte) error {
	if len(records) == 0 {
		return nil
	}
	dir := filepath.Join(s.Store, recordsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for suffix, data := range records {
		if !strings.HasPrefix(suffix, ".") || strings.ContainsAny(suffix, `/\`) {
			return fmt.Errorf("a record's suffix must start with a dot and name no directory: %q", suffix)
		}
		if err := writeDurably(s.Record(release, suffix), data); err != nil {
			return err
		}
	}
	localfile.SyncDir(dir)
	return nil
}

// removeRecords removes the records of a release that was not switched in.
func (s Site) removeRecords(release string) {
	entries, _ := os.ReadDir(filepath.Join(s.Store, recordsDir))
	for _, e := range entries {
		if name, _, _ := strings.Cut(e.Name(), "."); name == release {
			_ = os.Remove(filepath.Join(s.Store, recordsDir, e.Name()))
		}
	}
}

// writeDurably writes data at p through a synced temporary file beside it.
func writeDurably(p string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v != "" && v == s {
			return true
		}
	}
	return false
}

// Withdraw removes what owner published at Dir: the link, when it is the
// store's, and the store, under the store's lock; stores being made for
// Dir that killed runs left beside it go too. It returns false, and
// removes nothing of the store, when the store belongs to another owner or
// does not exist; a Dir that is not the store's link is left in place. A
// store another run holds is refused with a *BusyError.
func (s Site) Withdraw(owner string) (bool, error) {
	s.removeNewStores()
	found, err := s.Inspect()
	if err != nil || found.Marker == nil || found.Marker.Owner != owner {
		return false, err
	}
	lock, err := lockFile(filepath.Join(s.Store, lockName))
	if errors.Is(err, errBusy) {
		return false, &BusyError{Site: s}
	}
	if err != nil {
		return false, err
	}
	defer lock.Close()
	if found, err = s.Inspect(); err != nil || found.Marker == nil || found.Marker.Owner != owner {
		return false, err
	}
	if found.Current != "" {
		if err := os.Remove(s.Dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	return true, os.RemoveAll(s.Store)
}

// Abandon undoes a Stage that was never switched in, and releases the
// lock: the staging area goes, and the store too when nothing was ever
// published from it. A spent Staged is left as it is.
func (st *Staged) Abandon() error {
	if st.lock == nil {
		return nil
	}
	defer st.release()
	s := st.Site
	found, err := s.Inspect()
	if err != nil || found.Marker == nil || found.Marker.Owner != st.Owner {
		return err
	}
	if !published(found.Marker, found) {
		return os.RemoveAll(s.Store)
	}
	return os.RemoveAll(filepath.Join(s.Store, stagingDir))
}

// Releases lists the releases in the store, oldest first.
func (s Site) Releases() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(s.Store, releasesDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
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
