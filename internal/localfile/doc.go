// Package localfile holds the rules for the files the provider writes on
// the local disk and reads back on refresh: one guard against special
// files, and one durability policy. It must never open a FIFO or a device,
// follow a symbolic link, resolve a path twice for one step, or replace
// what it did not check.
//
// The guard: a file read back is opened only if Lstat finds a regular file
// (a FIFO would block the open, and opening a device could do anything),
// is kept only if the file opened is the one found (device and inode), and
// a symbolic link is not followed (OpenRegularIn). Every step on a
// file goes through one handle of its directory (OpenParent), so that its
// path is resolved once: it is opened, hashed and removed there (SHA256In,
// RemoveFound, which renames aside, checks, and removes or puts back), and a
// directory of the path swapped for a link meanwhile leads nothing
// elsewhere. A directory is opened only as a directory (OpenDir, OpenDirIn).
// Renames between two handles never replace what they did not check
// (RenameNoReplace, Exchange); Windows, which has no rename relative to a
// handle, renames between two handles by their paths, after the check.
// The file resource, the manifest cache, the site's publication and its
// refresh, which walks a release itself, open through these.
//
// The durability policy: what a rename publishes is made durable before
// the rename, and the rename after it: a single file is written by Write
// (a temporary name, write, sync, rename, directory sync), a tree is synced
// before the rename that publishes it (SyncTree), and the directory that
// holds the renamed entry after the rename (SyncRoot). A power cut then
// leaves either the old content or the whole new content, never a new name
// over missing data. A temporary name is made by TempName and recognised,
// and only it, by TempOf.
package localfile
