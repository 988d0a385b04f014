//go:build unix

package localfile

import (
	"fmt"
	"os"
	"syscall"
)

// OpenRegular opens p for reading only if it is a regular file: a FIFO
// would block the open, and a device could be anything, opening one having
// effects of its own. A symbolic link is not followed. p is never opened
// unless Lstat finds a regular file there; the file opened is then checked
// to be the one Lstat found (its device and inode), so that anything
// swapped in meanwhile is refused as well (O_NONBLOCK: a FIFO swapped in
// does not block the open).
func OpenRegular(p string) (*os.File, error) {
	before, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", p, before.Mode().Type())
	}
	if beforeOpen != nil {
		beforeOpen(p)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%s)", p, info.Mode().Type())
	}
	if !os.SameFile(before, info) {
		f.Close()
		return nil, fmt.Errorf("%s was replaced while it was opened", p)
	}
	return f, nil
}

// beforeOpen, when set by a test, runs between OpenRegular's Lstat and its
// open.
var beforeOpen func(p string)

// SyncDir makes the renames in dir durable; best effort: a failure loses
// durability across a power cut, not correctness.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
