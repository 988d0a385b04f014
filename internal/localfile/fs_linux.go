//go:build linux

package localfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// SyncTree makes every file written below dir durable before a rename
// publishes it: one syncfs of dir's file system rather than a sync per
// file, which for a site of thousands of files costs seconds.
func SyncTree(dir *os.Root) error {
	d, err := dir.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	return unix.Syncfs(int(d.Fd()))
}

// Exchange swaps from in fromDir and to in toDir in one step
// (renameat2(RENAME_EXCHANGE)); errors.ErrUnsupported where the file
// system cannot.
func Exchange(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	err := withDirs(fromDir, toDir, func(fromFd, toFd int) error {
		return unix.Renameat2(fromFd, from, toFd, to, unix.RENAME_EXCHANGE)
	})
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errors.ErrUnsupported
	}
	return err
}

// RenameNoReplace renames from in fromDir to to in toDir only while
// nothing is at to (renameat2(RENAME_NOREPLACE)): fs.ErrExist otherwise.
// A file system without the flag gets a check and a rename.
func RenameNoReplace(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	err := withDirs(fromDir, toDir, func(fromFd, toFd int) error {
		return unix.Renameat2(fromFd, from, toFd, to, unix.RENAME_NOREPLACE)
	})
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return checkThenRename(fromDir, from, toDir, to)
	}
	return err
}
