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

// locksWork is false: without flock, a run in progress cannot be told from
// one that was killed, so a store another owner made is never taken over.
const locksWork = false

// lockFile locks nothing (see locksWork), and opens no file: Windows
// cannot rename or remove a directory that holds an open file.
func lockFile(string) (*storeLock, error) {
	return &storeLock{}, nil
}

// openDir opens the directory p to read its entries.
func openDir(p string) (*os.File, error) {
	return os.Open(p)
}
