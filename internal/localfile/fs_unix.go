//go:build unix

package localfile

import (
	"os"
	"syscall"
)

// openNoFollow opens p for reading without following a symbolic link or
// blocking on a FIFO.
func openNoFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}

// dirOnly, added to a path, makes the system resolve it as a directory: a
// FIFO or a device there is refused before it is opened.
const dirOnly = "/."
