//go:build !unix

package publish

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// nonBlocking has no meaning here: there are no FIFOs in a directory.
const nonBlocking = 0

// lockHandle locks f without waiting (LockFileEx): errBusy when another
// handle holds it. The system releases the lock when the handle is closed
// or its process ends.
func lockHandle(f *os.File) error {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return errBusy
	}
	return err
}

// beforeRemoval closes the lock's file: Windows cannot remove a directory
// that holds an open file. The store is then removed without the lock, at
// the end of a withdrawal, when nothing is left to publish from it.
func (l *storeLock) beforeRemoval() { _ = l.Close() }

// renameAt renames from in fromDir to to in toDir, replacing a link at to.
// Windows cannot rename over a directory link, so the old one is removed
// first: the site is missing for that moment.
func renameAt(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	src, dst := filepath.Join(fromDir.Name(), from), filepath.Join(toDir.Name(), to)
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	if err := toDir.Remove(to); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(src, dst)
}

// exchange is not available here (see renameAt).
func exchange(*os.Root, string, *os.Root, string) error { return errors.ErrUnsupported }

// renameNoReplace renames only while nothing is at to: a check, then the
// rename.
func renameNoReplace(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	return checkThenRename(fromDir, from, toDir, to)
}

// ownerOf names no owner here: stores are not told apart by their owner.
func ownerOf(fs.FileInfo) (int, bool) { return 0, false }
