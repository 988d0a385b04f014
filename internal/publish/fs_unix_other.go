//go:build unix && !linux

package publish

import (
	"errors"
	"os"
)

// exchange is not available here: a switch checks the served path again
// just before its rename instead.
func exchange(*os.Root, string, *os.Root, string) error { return errors.ErrUnsupported }

// renameNoReplace renames only while nothing is at to: a check, then the
// rename.
func renameNoReplace(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	return checkThenRename(fromDir, from, toDir, to)
}
