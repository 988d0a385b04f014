package confined

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// lockHandle locks f without waiting (LockFileEx): ErrBusy when another
// handle holds it. The system releases the lock when the handle is closed
// or its process ends.
func lockHandle(f *os.File) error {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return ErrBusy
	}
	return err
}

// BeforeRemoval closes the lock's file: Windows cannot remove a directory
// that holds an open file. The directory is then removed without the lock,
// at the end of a withdrawal, when nothing is left to publish from it.
func (l *Lock) BeforeRemoval() { _ = l.Close() }

// Owner names no owner here: directories are not told apart by their
// owner.
func Owner(fs.FileInfo) (uid int, ok bool) { return 0, false }

// Identity gives no identity here: directories are told apart by their
// name and content only.
func Identity(fs.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }
