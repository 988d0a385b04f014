//go:build linux

package publish

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange swaps from in fromDir and to in toDir in one step
// (renameat2(RENAME_EXCHANGE)); errors.ErrUnsupported where the file
// system cannot.
func exchange(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	err := withDirs(fromDir, toDir, func(fromFd, toFd int) error {
		return unix.Renameat2(fromFd, from, toFd, to, unix.RENAME_EXCHANGE)
	})
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errors.ErrUnsupported
	}
	return err
}

// renameNoReplace renames from in fromDir to to in toDir only while
// nothing is at to (renameat2(RENAME_NOREPLACE)): fs.ErrExist otherwise.
// A file system without the flag gets a check and a rename.
func renameNoReplace(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	err := withDirs(fromDir, toDir, func(fromFd, toFd int) error {
		return unix.Renameat2(fromFd, from, toFd, to, unix.RENAME_NOREPLACE)
	})
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return checkThenRename(fromDir, from, toDir, to)
	}
	return err
}
