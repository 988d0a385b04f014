//go:build unix

package localfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// nonBlocking opens a FIFO swapped in at the last moment without waiting
// for its writer (the file is then refused as not the one found).
const nonBlocking = unix.O_NONBLOCK

// dirOnly, added to a path, makes the system resolve it as a directory: a
// FIFO or a device there is refused before it is opened.
const dirOnly = "/."

// Rename renames from in fromDir to to in toDir, replacing what is at to
// (rename(2)): one name in each of two confined handles.
func Rename(fromDir *os.Root, from string, toDir *os.Root, to string) error {
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

// checkThenRename renames from in fromDir to to in toDir only if nothing
// was at to a moment before: where no system call renames without
// replacing, a narrow window remains.
func checkThenRename(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	if err := nothingAt(toDir, from, to); err != nil {
		return err
	}
	return Rename(fromDir, from, toDir, to)
}
