// Package localfile holds the rules for the files the provider writes on
// the local disk and reads back on refresh: one guard against special
// files, and one durability policy.
//
// The guard: a file read back is opened only if Lstat finds a regular file
// (a FIFO would block the open, and opening a device could do anything),
// is kept only if the file opened is the one found, and a symbolic link is
// not followed (OpenRegular).
//
// The durability policy: what a rename publishes is made durable before
// the rename, and the rename after it: a single file is written by Write
// (write, sync, rename, directory sync), a tree is synced before the
// rename that publishes it (SyncTree), and the directory that holds the
// renamed entry after the rename (SyncRoot). A power cut then leaves
// either the old content or the whole new content, never a new name over
// missing data.
package localfile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// OpenRegular opens p for reading only if it is a regular file: a FIFO
// would block the open, and a device could be anything, opening one having
// effects of its own. A symbolic link is not followed. p is never opened
// unless Lstat finds a regular file there; the file opened is then checked
// to be the one Lstat found (its device and inode), so that anything
// swapped in meanwhile is refused as well (openNoFollow does not block on a
// FIFO swapped in, where the system allows).
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
	f, err := openNoFollow(p)
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

// SHA256 hashes the regular file at p (see OpenRegular) and reports its
// size, reading it as a stream: memory stays bounded whatever its size.
func SHA256(p string) (sum string, size int64, err error) {
	f, err := OpenRegular(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	if size, err = io.Copy(h, f); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), size, nil
}
