//go:build !unix

package publish

import (
	"fmt"
	"os"
)

// replaceLink puts the link at from in place of to. Windows cannot rename
// over an existing directory link, so the old link is removed first: the
// site is missing for that moment.
func replaceLink(from, to string) error {
	if err := os.Rename(from, to); err == nil {
		return nil
	}
	if err := os.Remove(to); err != nil && !os.IsNotExist(err) {
		return err
	}
	return os.Rename(from, to)
}

// OpenRegular opens p for reading only if it is a regular file.
func OpenRegular(p string) (*os.File, error) {
	info, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", p, info.Mode().Type())
	}
	return os.Open(p)
}

func syncDir(string) {}
