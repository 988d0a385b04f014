//go:build unix

package localfile

import (
	"fmt"
	"os"
	"syscall"
)

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

// SyncDir makes the renames in dir durable; best effort: a failure loses
// durability across a power cut, not correctness.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
