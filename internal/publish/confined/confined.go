// Package confined acts on one name at a time in a directory handle
// (os.Root), the floor that publish stands on: a name is used only after
// Lstat finds there the kind of entry that is expected (a directory, a
// regular file, a symbolic link), and a directory or file opened is checked
// to be the one Lstat found, so that no link is ever followed, no special
// file is ever opened, and nothing is removed but entries of the kind the
// caller made under that name. What is found instead is an *EntryError,
// which names it. It knows nothing of sites or stores: which names and
// kinds are whose is the caller's.
package confined

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
)

// Kind is the kind of an entry: what the caller makes under a name.
type Kind int

const (
	Dir Kind = iota
	File
	Link
)

func (k Kind) String() string {
	switch k {
	case Dir:
		return "a directory"
	case File:
		return "a regular file"
	}
	return "a symbolic link"
}

// KindOf is the kind of what info describes; false for a special file.
func KindOf(info fs.FileInfo) (Kind, bool) {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return Link, true
	case info.IsDir():
		return Dir, true
	case info.Mode().IsRegular():
		return File, true
	}
	return 0, false
}

// EntryError is an entry that is not what the provider makes under its
// name: the provider neither follows nor removes it.
type EntryError struct {
	Path  string // absolute
	Found string // what is there
	Want  string // what the provider makes there
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("%s is %s, where the provider keeps %s; it never follows, replaces or removes what it did not make, "+
		"and changed nothing. Move it away (the provider makes it again)", e.Path, e.Found, e.Want)
}

// Describe says what the entry name of dir is, which Lstat described as
// info, naming a link's target.
func Describe(dir *os.Root, name string, info fs.FileInfo) string {
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

// OpenDir opens the directory name in dir as a handle of its own: nil
// when nothing is there, an *EntryError when something else is (a link is
// never followed; want says what the provider keeps there), and an error
// when another directory was swapped in while it was opened.
func OpenDir(dir *os.Root, name, want string) (*os.Root, error) {
	info, err := dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, &EntryError{Path: filepath.Join(dir.Name(), name), Found: Describe(dir, name, info), Want: want}
	}
	sub, err := localfile.OpenDirIn(dir, name)
	if err != nil {
		return nil, err
	}
	if opened, err := sub.Stat("."); err != nil || !os.SameFile(info, opened) {
		sub.Close()
		return nil, replaced(dir, name)
	}
	return sub, nil
}

// MakeDir opens the directory name in dir, making it first when missing;
// anything else there is refused (OpenDir).
func MakeDir(dir *os.Root, name string) (*os.Root, error) {
	if err := dir.Mkdir(name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, err
	}
	sub, err := OpenDir(dir, name, "a directory of its own ("+name+")")
	if err == nil && sub == nil {
		err = fmt.Errorf("%s was removed while it was opened; apply again", filepath.Join(dir.Name(), name))
	}
	return sub, err
}

// OpenRegular opens the regular file name in dir (flags add to O_RDONLY)
// by localfile's one safe open, localfile.OpenRegularIn, and says what it
// refuses in these words: anything but a regular file is an *EntryError
// naming what is there.
func OpenRegular(dir *os.Root, name string, flags int) (*os.File, error) {
	f, found, err := localfile.OpenRegularIn(dir, name, nil, flags)
	if notRegular := (*localfile.NotRegularError)(nil); errors.As(err, &notRegular) {
		return nil, &EntryError{Path: filepath.Join(dir.Name(), name), Found: Describe(dir, name, found), Want: "a regular file"}
	}
	if errors.Is(err, localfile.ErrReplaced) {
		return nil, replaced(dir, name)
	}
	return f, err
}

func replaced(dir *os.Root, name string) error {
	return fmt.Errorf("%s was replaced while it was opened; apply again", filepath.Join(dir.Name(), name))
}

// ReadDir lists the entries of dir's own directory.
func ReadDir(dir *os.Root) ([]fs.DirEntry, error) {
	d, err := dir.Open(".")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// ReadLimited reads what is left of r, at most limit bytes: more is an
// error naming name.
func ReadLimited(r io.Reader, limit int64, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	return data, err
}

// Remove removes the entry name of dir when it is of the kind want, and
// reports what it left otherwise ("name (what it is)"). A directory goes
// with everything in it; a link inside is removed, never followed.
func Remove(dir *os.Root, name string, want Kind) (left string, err error) {
	info, err := dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if got, ok := KindOf(info); !ok || got != want {
		return name + " (" + Describe(dir, name, info) + ")", nil
	}
	if want == Dir {
		return "", dir.RemoveAll(name)
	}
	return "", dir.Remove(name)
}

// Check refuses, with an *EntryError, an entry of dir that is not of the
// kind want; a missing one is no problem.
func Check(dir *os.Root, name string, want Kind) error {
	info, err := dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if got, ok := KindOf(info); !ok || got != want {
		return &EntryError{Path: filepath.Join(dir.Name(), name), Found: Describe(dir, name, info), Want: want.String() + " of its own (" + name + ")"}
	}
	return nil
}
