package publish

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish/confined"
)

// Where a site may be, decided from paths: these checks refuse a path
// before anything is written, and write nothing. They read the directories
// above it by their paths (a Getwd, one resolution of links, an Lstat for
// each store they look for); Stage checks again through handles.

// PathProblem says why dir can never be a served path, or "": the root,
// the working directory, the home directory or any directory above them, a
// directory inside a store, inside another published site, or one that
// holds a Terraform configuration or state. It reads only the directories
// on the way to dir, and dir's own entries.
func PathProblem(dir string) string {
	s, err := Locate(dir)
	if err != nil {
		return err.Error()
	}
	if wd, err := os.Getwd(); err == nil && within(wd, s.Dir) {
		return fmt.Sprintf("%s is the directory Terraform runs in, or a directory above it", s.Dir)
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && within(home, s.Dir) {
		return fmt.Sprintf("%s is the home directory, or a directory above it", s.Dir)
	}
	for p := range above(s.Dir) {
		if isStore(p) {
			return fmt.Sprintf("%s is inside %s, where the provider keeps a site's releases", s.Dir, p)
		}
		if filepath.Dir(p) != p && isStore(storePath(p)) {
			return fmt.Sprintf("%s is inside %s, a site that a docsadmin_static_site publishes", s.Dir, p)
		}
	}
	// The directories on the way with their links resolved (Locate did):
	// a path through a link into a store writes into a release.
	if resolved := filepath.Dir(s.Resolved); resolved != filepath.Dir(s.Dir) {
		for q := range above(s.Resolved) {
			if isStore(q) {
				return fmt.Sprintf("%s leads into %s, where the provider keeps a site's releases", s.Dir, q)
			}
		}
	}
	if tf := terraformFilesAt(s); len(tf) > 0 {
		return fmt.Sprintf("%s holds a Terraform configuration or state (%s)", s.Dir, strings.Join(tf, ", "))
	}
	return ""
}

// above yields the directories above p, nearest first, up to the root.
func above(p string) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for q := filepath.Dir(p); ; q = filepath.Dir(q) {
			if !yield(q) || filepath.Dir(q) == q {
				return
			}
		}
	}
}

// isStore reports whether p is named as a store and holds a marker (or
// something at its name that cannot be told apart).
func isStore(p string) bool {
	if !strings.HasSuffix(filepath.Base(p), storeSuffix) {
		return false
	}
	_, err := os.Lstat(filepath.Join(p, markerName))
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// terraformFilesAt names the Terraform files in the directory at s.Dir,
// read through a handle: no link is followed and no FIFO opened.
func terraformFilesAt(s Site) []string {
	parent, err := localfile.OpenDir(filepath.Dir(s.Dir))
	if err != nil {
		return nil
	}
	defer parent.Close()
	dir, err := confined.OpenDir(parent, s.base(), "")
	if err != nil || dir == nil {
		return nil
	}
	defer dir.Close()
	entries, err := confined.ReadDir(dir)
	if err != nil {
		return nil
	}
	return TerraformFiles(entries)
}

// Overlap says how the served path a collides with b ("the same directory
// as", "inside the directory of", "a directory that holds that of"), or ""
// when they do not: their paths are compared with the links of their
// existing parents resolved, however they were written.
func Overlap(a, b Site) string {
	ad, bd := a.resolved(), b.resolved()
	as, bs := filepath.Join(filepath.Dir(ad), a.storeBase()), filepath.Join(filepath.Dir(bd), b.storeBase())
	switch {
	case ad == bd:
		return SameDirectory
	case within(ad, bd) || within(ad, bs):
		return "inside the directory of"
	case within(bd, ad) || within(bd, as):
		return "a directory that holds that of"
	}
	return ""
}

// SameDirectory is Overlap's word for two sites at one path.
const SameDirectory = "the same directory as"

// resolved is Resolved, or Dir for a Site not made by Locate.
func (s Site) resolved() string {
	if s.Resolved != "" {
		return s.Resolved
	}
	return s.Dir
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
