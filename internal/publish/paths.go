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
	for p := filepath.Dir(s.Dir); ; p = filepath.Dir(p) {
		if strings.HasSuffix(filepath.Base(p), storeSuffix) && exists(filepath.Join(p, markerName)) {
			return fmt.Sprintf("%s is inside %s, where the provider keeps a site's releases", s.Dir, p)
		}
		if other, err := Locate(p); err == nil && exists(filepath.Join(other.Store, markerName)) {
			return fmt.Sprintf("%s is inside %s, a site that a docsadmin_static_site publishes", s.Dir, p)
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	// The first existing directory on the way, with its links resolved: a
	// path through a link into a store writes into a release.
	for p := filepath.Dir(s.Dir); ; p = filepath.Dir(p) {
		if resolved, err := filepath.EvalSymlinks(p); err == nil {
			for q := resolved; filepath.Dir(q) != q; q = filepath.Dir(q) {
				if strings.HasSuffix(filepath.Base(q), storeSuffix) && exists(filepath.Join(q, markerName)) {
					return fmt.Sprintf("%s leads into %s, where the provider keeps a site's releases", s.Dir, q)
				}
			}
			break
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	if tf := terraformFilesAt(s); len(tf) > 0 {
		return fmt.Sprintf("%s holds a Terraform configuration or state (%s)", s.Dir, strings.Join(tf, ", "))
	}
	return ""
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

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}
