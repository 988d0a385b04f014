//go:build unix && !linux

package localfile

import (
	"errors"
	"os"
	"syscall"
)

// SyncTree makes every file written below dir durable before a rename
// publishes it: these systems have no syncfs, so everything is synced.
func SyncTree(*os.Root) error {
	syscall.Sync()
	return nil
}

// Exchange is not available here: callers check the name again just
// before a rename over it instead.
func Exchange(*os.Root, string, *os.Root, string) error { return errors.ErrUnsupported }

// RenameNoReplace renames only while nothing is at to: a check, then the
// rename.
func RenameNoReplace(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	return checkThenRename(fromDir, from, toDir, to)
}
