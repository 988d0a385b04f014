//go:build unix

package publish

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// replaceLink renames the link at from over to: one atomic step on POSIX
// systems, whatever was at to (a link, or nothing).
func replaceLink(from, to string) error {
	return os.Rename(from, to)
}

// locksWork says whether lockFile excludes other processes: a store that
// never published and whose lock is free is then known to be abandoned.
const locksWork = true

// lockFile opens the lock file p, making it if needed and never following
// a link, and locks it without waiting: errBusy when another open file
// holds the lock (another run, or another handle of this one). The kernel
// releases the lock when the file is closed or its process ends, however
// it ends.
func lockFile(p string) (*storeLock, error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, errBusy
		}
		return nil, err
	}
	return &storeLock{f: f}, nil
}

// openDir opens the directory p to read its entries: never a link, and
// never a FIFO or a device put in its place, which could block.
func openDir(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}
