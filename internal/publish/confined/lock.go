package confined

import (
	"errors"
	"io/fs"
	"os"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
)

// Lock is a lock on a file of a directory, held until Close. The system
// releases it when the process ends, however it ends, so that a lock that
// is free shows that no living run holds it.
type Lock struct{ f *os.File }

// Close releases the lock.
func (l *Lock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// ErrBusy is a lock that another open file holds: another run, or another
// handle of this one.
var ErrBusy = errors.New("the lock is held by another run")

// LockFile opens the regular file name in dir, making it if needed, and
// locks it without waiting: ErrBusy when another run holds it. Anything
// but a regular file at its name is refused without being opened.
func LockFile(dir *os.Root, name string) (*Lock, error) {
	f, err := OpenRegular(dir, name, os.O_RDWR)
	if errors.Is(err, fs.ErrNotExist) {
		f, err = dir.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) { // made by another run meanwhile
			f, err = OpenRegular(dir, name, os.O_RDWR)
		}
	}
	if err != nil {
		return nil, err
	}
	if err := lockHandle(f); err != nil {
		f.Close()
		return nil, err
	}
	return &Lock{f: f}, nil
}

// NewLock makes the file name in dir, a directory being made, locked
// before it takes its name (under localfile.TempName until then): no one
// ever sees that lock free while its run lives.
func NewLock(dir *os.Root, name string) (*Lock, error) {
	tmp := localfile.TempName(name)
	f, err := dir.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockHandle(f); err != nil {
		f.Close()
		_ = dir.Remove(tmp)
		return nil, err
	}
	if err := dir.Rename(tmp, name); err != nil {
		f.Close()
		_ = dir.Remove(tmp)
		return nil, err
	}
	return &Lock{f: f}, nil
}
