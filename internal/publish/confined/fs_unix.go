//go:build unix

package confined

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockHandle locks f without waiting: ErrBusy when another open file
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
		return ErrBusy
	}
	return err
}

// BeforeRemoval prepares a held lock for the removal of its directory:
// nothing here, where an open file does not keep its directory from being
// removed.
func (l *Lock) BeforeRemoval() {}

// Owner is the user that owns what info describes.
func Owner(info fs.FileInfo) (uid int, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// Identity is the device and inode of what info describes, which a copy, a
// directory renamed into its place or one made anew at its name does not
// have.
func Identity(info fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true //nolint:unconvert // not uint64 on every system
}
