//go:build !unix

package localfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// OpenRegular opens p for reading only if it is a regular file, and only
// if the file opened is the one Lstat found.
func OpenRegular(p string) (*os.File, error) {
	before, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", p, before.Mode().Type())
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() || !os.SameFile(before, info) {
		f.Close()
		return nil, fmt.Errorf("%s was replaced while it was opened", p)
	}
	return f, nil
}

// SyncDir does nothing: directories cannot be synced here.
func SyncDir(string) {}

// SyncTree syncs every regular file below dir.
func SyncTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}
