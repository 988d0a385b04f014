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
// the rename, and the rename after it: a single file is synced before it
// is renamed into place, a tree before the rename that publishes it
// (SyncTree), and the directory that holds the renamed entry after the
// rename (SyncDir). A power cut then leaves either the old content or the
// whole new content, never a new name over missing data.
package localfile

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
)

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
