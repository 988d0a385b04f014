//go:build !unix

package publish

import "os"

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
