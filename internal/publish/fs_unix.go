//go:build unix

package publish

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// nonBlocking opens a FIFO swapped in at the last moment without waiting
// for its writer (the file is then refused as not the one checked).
const nonBlocking = unix.O_NONBLOCK

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

// renameAt renames from in fromDir to to in toDir, replacing what is at to
// (rename(2)): one name in each of two confined handles.
func renameAt(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	return withDirs(fromDir, toDir, func(fromFd, toFd int) error {
		return unix.Renameat(fromFd, from, toFd, to)
	})
}

// withDirs runs f with descriptors of the directories of two handles.
func withDirs(a, b *os.Root, f func(aFd, bFd int) error) error {
	da, err := a.Open(".")
	if err != nil {
		return err
	}
	defer da.Close()
	db, err := b.Open(".")
	if err != nil {
		return err
	}
	defer db.Close()
	return f(int(da.Fd()), int(db.Fd()))
}

// ownerOf is the user that owns what info describes.
func ownerOf(info fs.FileInfo) (int, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
