package publish

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

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

// ownerOf names no owner here: stores are not told apart by their owner.
func ownerOf(fs.FileInfo) (int, bool) { return 0, false }

// identityOf gives no identity here: stores are told apart by their name
// and their marker only.
func identityOf(fs.FileInfo) (StoreID, bool) { return StoreID{}, false }
