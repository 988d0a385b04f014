package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish/confined"
)

// Inspection is what Inspect found at a site's path.
type Inspection struct {
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

// Inspect reads the store's marker and what is at Dir, without following
// any link and without opening special files. A store of another user is
// an *EntryError, as for Stage: it is never read, so that nothing it says
// is trusted.
func (s Site) Inspect() (Inspection, error) {
	o, err := s.open(false)
	if err != nil {
		return Inspection{}, err
	}
	defer o.close()
	return o.inspect()
}

func (o *opened) inspect() (Inspection, error) {
	var f Inspection
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

// Releases lists the releases in the store, oldest first.
func (s Site) Releases() ([]string, error) {
	o, err := s.open(false)
	if err != nil || o.store == nil {
		return nil, err
	}
	defer o.close()
	releases, err := confined.OpenDir(o.store, releasesDir, "")
	if err != nil || releases == nil {
		return nil, err
	}
	defer releases.Close()
	entries, err := confined.ReadDir(releases)
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
		return confined.Describe(parent, name, info) + " that the provider did not make"
	case !info.IsDir():
		return confined.Describe(parent, name, info)
	}
	dir, err := confined.OpenDir(parent, name, "")
	if err != nil || dir == nil {
		return "a directory that cannot be read"
	}
	defer dir.Close()
	entries, err := confined.ReadDir(dir)
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
		sub, err := confined.OpenDir(dir, e.Name(), "")
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
		store, err := confined.OpenDir(dir, e.Name(), "")
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
