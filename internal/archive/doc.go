// Package archive verifies a static site bundle, a gzip'd tar, as a
// deployment will unpack and serve it: readable to the end, with an
// index.html regular file at its root, no entry that lands outside the
// directory it is unpacked into, and nothing that GNU tar, bsdtar, busybox
// tar, Python's tarfile and Go would read differently. It streams: memory
// stays bounded whatever the archive's size, and so does the work, whatever
// the archive claims. It must never trust archive/tar for names, never write
// outside the directory it unpacks into, and never put a link's path or
// query in an error (bundlelink.WithoutLink).
//
// The verifier reads the raw 512-byte headers itself (tarscan.go) and
// refuses, naming the entry and the reason (ErrAmbiguous), what unpackers
// read differently: sparse entries, global pax headers (but a comment-only
// one first, as git archive writes), two extended headers for one entry, a
// pax path or size that disagrees with the header or a GNU long name, star
// or V7 headers, data after the end marker or after the gzip member, a name
// that is not UTF-8. A tree of paths (tree.go) follows the entries as a file
// system does: a name is defined once, nothing passes through a symbolic
// link or a file, a hard link points to an earlier regular file, a symbolic
// link resolves inside the root when created and in the final tree. Entries,
// name lengths, link resolution and unpacked bytes (DefaultMaxUnpackedBytes)
// are bounded, and every copy loop checks the context.
//
// One pass verifies and, as asked, writes the archive (Limits.Fetch),
// unpacks it through an os.Root (FetchUnpack: a site holds files only, hard
// links become copies, symbolic links are refused; any failure removes what
// was written) or reports each file's digests (FetchFiles, Files). Every
// entry kept is told to the caller first (UnpackOptions.File, .Dir), so the
// provider checks every name with one rule. Downloads use DownloadClient,
// whose redirects follow internal/redirect, and end after IdleTimeout
// without a byte. TestDifferentialUnpackers unpacks every accepted archive
// with each unpacker and fails on any difference.
package archive
