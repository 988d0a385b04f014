package localfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// OpenRegular is OpenRegularIn of p's name in a handle of the directory
// that holds it (OpenParent), for a caller that has only a path.
func OpenRegular(p string) (*os.File, error) {
	dir, name, err := OpenParent(p)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f, _, err := OpenRegularIn(dir, name, nil, 0)
	return f, err
}

// OpenParent opens the directory that holds p as a confined handle, and
// names p in it. Every later step on p (Lstat, open, hash, remove) goes
// through that one handle, so that p's path is resolved once: a directory
// on it swapped for a link meanwhile leads none of them elsewhere.
func OpenParent(p string) (dir *os.Root, name string, err error) {
	name = filepath.Base(p)
	if name == "." || name == ".." || name == string(filepath.Separator) {
		return nil, "", fmt.Errorf("%s names no file", p)
	}
	dir, err = OpenDir(filepath.Dir(p))
	return dir, name, err
}

// NotRegularError is an entry where a regular file is read that is none: a
// link, a FIFO, a device, a directory. It was not opened.
type NotRegularError struct {
	Path  string
	Found fs.FileInfo // what Lstat found
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is not a regular file (%s)", e.Path, e.Found.Mode().Type())
}

// ErrReplaced is an entry that is not the one Lstat found: something else
// was swapped in at its name meanwhile.
var ErrReplaced = errors.New("replaced while it was opened")

// OpenRegularIn is the one safe open of a regular file: it opens name in
// dir for reading (flags add to O_RDONLY) only if it is a regular file, and
// returns what Lstat found there. found is what Lstat, or a listing of dir,
// already said of name; nil has it Lstat here. Nothing but a regular file
// is opened (a *NotRegularError): a FIFO would block the open, and a device
// could be anything, opening one having effects of its own. A symbolic
// link is never followed. The file opened is then checked to be the one
// found (its device and inode): anything swapped in meanwhile is
// ErrReplaced, and a FIFO swapped in does not block the open.
func OpenRegularIn(dir *os.Root, name string, found fs.FileInfo, flags int) (*os.File, fs.FileInfo, error) {
	if found == nil {
		var err error
		if found, err = dir.Lstat(name); err != nil {
			return nil, nil, err
		}
	}
	p := filepath.Join(dir.Name(), name)
	if !found.Mode().IsRegular() {
		return nil, found, &NotRegularError{Path: p, Found: found}
	}
	if beforeOpen != nil {
		beforeOpen(p)
	}
	f, err := dir.OpenFile(name, os.O_RDONLY|flags|nonBlocking, 0)
	if err != nil {
		return nil, found, err
	}
	opened, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, found, err
	}
	if !opened.Mode().IsRegular() || !os.SameFile(found, opened) {
		f.Close()
		return nil, found, fmt.Errorf("%s was %w", p, ErrReplaced)
	}
	return f, found, nil
}

// beforeOpen, when set by a test, runs between the Lstat of OpenRegularIn
// and its open.
var beforeOpen func(p string)

// SHA256In hashes the regular file name in dir (see OpenRegularIn) as a
// stream, and reports its size and what Lstat found: what RemoveFound
// takes to remove that file and no other. Memory stays bounded whatever
// the file's size.
func SHA256In(dir *os.Root, name string) (sum string, size int64, found fs.FileInfo, err error) {
	f, found, err := OpenRegularIn(dir, name, nil, 0)
	if err != nil {
		return "", 0, found, err
	}
	defer f.Close()
	h := sha256.New()
	if size, err = io.Copy(h, f); err != nil {
		return "", 0, found, err
	}
	return hex.EncodeToString(h.Sum(nil)), size, found, nil
}

// RemoveFound removes name from dir only while it is the file found
// describes (one just hashed, say): the entry is first renamed aside in
// dir, to a temporary name, and what was moved is removed only when it is
// that file; anything else is put back where nothing took its place
// meanwhile, and the error is ErrReplaced. A name already gone is
// fs.ErrNotExist.
func RemoveFound(dir *os.Root, name string, found fs.FileInfo) error {
	aside := TempName(name)
	if err := RenameNoReplace(dir, name, dir, aside); err != nil {
		return err
	}
	moved, err := dir.Lstat(aside)
	if err == nil && os.SameFile(found, moved) {
		return dir.Remove(aside)
	}
	if err := RenameNoReplace(dir, aside, dir, name); err != nil {
		return fmt.Errorf("%s was replaced before it was removed, and what took its place could not be put back from %s: %w; "+
			"move it back by hand", filepath.Join(dir.Name(), name), filepath.Join(dir.Name(), aside), err)
	}
	return fmt.Errorf("%s was %w", filepath.Join(dir.Name(), name), ErrReplaced)
}
