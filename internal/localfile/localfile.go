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

// OpenRegular opens p for reading only if it is a regular file (see
// OpenRegularIn), resolving the directory that holds it once (OpenParent).
func OpenRegular(p string) (*os.File, error) {
	dir, name, err := OpenParent(p)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f, _, err := OpenRegularIn(dir, name, 0)
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

// OpenRegularIn opens the regular file name in dir for reading (flags add
// to O_RDONLY), and returns what Lstat found there. Nothing but a regular
// file is opened (a *NotRegularError): a FIFO would block the open, and a
// device could be anything, opening one having effects of its own. A
// symbolic link is never followed. The file opened is then checked to be
// the one Lstat found (OpenFound).
func OpenRegularIn(dir *os.Root, name string, flags int) (*os.File, fs.FileInfo, error) {
	found, err := dir.Lstat(name)
	if err != nil {
		return nil, nil, err
	}
	if !found.Mode().IsRegular() {
		return nil, found, &NotRegularError{Path: filepath.Join(dir.Name(), name), Found: found}
	}
	f, err := OpenFound(dir, name, found, flags)
	return f, found, err
}

// OpenFound opens name in dir (flags add to O_RDONLY), a regular file that
// Lstat, or a listing of dir, described as found, and checks that the file
// opened is that one (its device and inode): anything swapped in meanwhile
// is ErrReplaced, and a FIFO swapped in does not block the open.
func OpenFound(dir *os.Root, name string, found fs.FileInfo, flags int) (*os.File, error) {
	p := filepath.Join(dir.Name(), name)
	if beforeOpen != nil {
		beforeOpen(p)
	}
	f, err := dir.OpenFile(name, os.O_RDONLY|flags|nonBlocking, 0)
	if err != nil {
		return nil, err
	}
	opened, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !opened.Mode().IsRegular() || !os.SameFile(found, opened) {
		f.Close()
		return nil, fmt.Errorf("%s was %w", p, ErrReplaced)
	}
	return f, nil
}

// beforeOpen, when set by a test, runs between the Lstat of OpenRegularIn
// and its open.
var beforeOpen func(p string)

// SHA256 hashes the regular file at p (see OpenRegular) and reports its
// size, reading it as a stream: memory stays bounded whatever its size.
func SHA256(p string) (sum string, size int64, err error) {
	dir, name, err := OpenParent(p)
	if err != nil {
		return "", 0, err
	}
	defer dir.Close()
	sum, size, _, err = SHA256In(dir, name)
	return sum, size, err
}

// SHA256In hashes the regular file name in dir (see OpenRegularIn) as a
// stream, and reports its size and what Lstat found: what RemoveFound
// takes to remove that file and no other.
func SHA256In(dir *os.Root, name string) (sum string, size int64, found fs.FileInfo, err error) {
	f, found, err := OpenRegularIn(dir, name, 0)
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
	aside := "." + name + tempInfix + randomSuffix()
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
