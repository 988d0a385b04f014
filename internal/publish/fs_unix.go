//go:build unix

package publish

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockHandle locks f without waiting: errBusy when another open file
// holds the lock (another run, or another handle of this one). The kernel
// releases the lock when the file is closed or its process ends, however
// it ends.
func lockHandle(f *os.File) error {
	var err error
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.EWOULDBLOCK) {
		return errBusy
	}
	return err
}

// beforeRemoval prepares a held lock for the removal of its store: nothing
// here, where an open file does not keep its directory from being removed.
func (l *storeLock) beforeRemoval() {}

// ownerOf is the user that owns what info describes.
func ownerOf(info fs.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// identityOf is the device and inode of what info describes.
func identityOf(info fs.FileInfo) (StoreID, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return StoreID{}, false
	}
	return StoreID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, true //nolint:unconvert // not uint64 on every system
}
