//go:build unix

package publish

import (
	"fmt"
	"os"
	"syscall"
)

// replaceLink renames the link at from over to: one atomic step on POSIX
// systems, whatever was at to (a link, or nothing).
func replaceLink(from, to string) error {
	return os.Rename(from, to)
}

// OpenRegular opens p for reading only if it is a regular file: a FIFO
// would block the open, and a device could be anything. A symbolic link is
// not followed.
func OpenRegular(p string) (*os.File, error) {
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
	return f, nil
}

// syncDir makes a rename in dir durable; best effort.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
