package mockapi

import (
	"archive/tar"
	"archive/zip"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// ArchiveKind is what a job's download serves: its site, or one of the
// broken archives a deployment must refuse.
type ArchiveKind int

const (
	// ArchiveGood is the job's site as a valid gzip'd tar.
	ArchiveGood ArchiveKind = iota
	// ArchiveTruncated is the good archive cut off after half the site's
	// files, in the middle of its gzip stream.
	ArchiveTruncated
	// ArchiveCorrupt is the good archive with damaged bytes after half the
	// site's files.
	ArchiveCorrupt
	// ArchiveHTML is an HTML error page served in place of the archive.
	ArchiveHTML
	// ArchiveZip is the site as a zip file (archive/zip), padded like a good
	// archive, served in place of the gzip'd tar: a real archive of the
	// right files in the wrong format, to be refused by its content.
	ArchiveZip
	// ArchiveNoIndex is the site packed with its parent directory
	// (site/index.html): no index.html at the root.
	ArchiveNoIndex
	// ArchiveAbsolutePath holds an entry named with an absolute path.
	ArchiveAbsolutePath
	// ArchiveDotDot holds an entry whose name climbs out with "..".
	ArchiveDotDot
	// ArchiveSymlinkOut holds a symbolic link pointing outside the root.
	ArchiveSymlinkOut
	// ArchiveSparse is a few hundred bytes declaring a sparse file of 2^62
	// bytes: unpackers disagree on sparse files, and expanding it never ends.
	ArchiveSparse
	// ArchiveBomb is the site with a file of 64 MiB of zeros, which
	// compresses to a few dozen KiB: it unpacks beyond a small
	// max_unpacked_bytes.
	ArchiveBomb
	// ArchiveManyFiles is the site with ManyFiles more empty files: a few
	// hundred KiB that would fill state.
	ArchiveManyFiles
	// ArchiveManyDirs is the site with ManyDirs empty directories: about
	// 500 KiB that every refresh of an unpacked site would walk.
	ArchiveManyDirs
	// ArchiveDotfiles is the site with .git/config (whose core.fsmonitor
	// runs a command in any git call there) and .htaccess.
	ArchiveDotfiles
	// ArchiveDotRoute is the site with "...html", a page whose route would
	// be "..".
	ArchiveDotRoute
	// ArchiveCaseCollision is the site with Changelog.html beside
	// changelog.html: one file on case-insensitive systems.
	ArchiveCaseCollision
	// ArchiveDotDir is the site with the empty directories .git/ and
	// .git/hooks/: no file, only directory entries.
	ArchiveDotDir
	// ArchiveBackslashDir is the site with the empty directory a\b/.
	ArchiveBackslashDir
	// ArchiveFoldCollision is the site with σ.html beside ς.html: one
	// file once case-folded, two once lower-cased.
	ArchiveFoldCollision
	// ArchiveFileDirCollision is the site with a file manual beside
	// Manual/x.html: a file and a directory of one name on
	// case-insensitive systems.
	ArchiveFileDirCollision
)

// archiveKindNames are the names of the kinds, in one table.
var archiveKindNames = []string{
	ArchiveGood:             "good",
	ArchiveTruncated:        "truncated",
	ArchiveCorrupt:          "corrupt",
	ArchiveHTML:             "HTML page",
	ArchiveZip:              "zip",
	ArchiveNoIndex:          "no index",
	ArchiveAbsolutePath:     "absolute path",
	ArchiveDotDot:           "dot-dot path",
	ArchiveSymlinkOut:       "symlink out",
	ArchiveSparse:           "sparse",
	ArchiveBomb:             "bomb",
	ArchiveManyFiles:        "many files",
	ArchiveManyDirs:         "many directories",
	ArchiveDotfiles:         "dotfiles",
	ArchiveDotRoute:         "dot route",
	ArchiveCaseCollision:    "case collision",
	ArchiveDotDir:           "dot directory",
	ArchiveBackslashDir:     "backslash directory",
	ArchiveFoldCollision:    "fold collision",
	ArchiveFileDirCollision: "file and directory collision",
}

func (k ArchiveKind) String() string { return enumName(archiveKindNames, k) }

// ManyFiles is the number of empty files ArchiveManyFiles adds.
const ManyFiles = 60_000

// ManyDirs is the number of empty directories ArchiveManyDirs adds.
const ManyDirs = 100_000

// jobArchive is what a job's download serves, generated anew at each
// download (never held whole in memory) and measured once by a dry run.
type jobArchive struct {
	write func(io.Writer) error // deterministic
	size  func() int64
}

func newJobArchive(write func(io.Writer) error) *jobArchive {
	return &jobArchive{write: write, size: sync.OnceValue(func() int64 {
		var n countWriter
		_ = write(&n) // writing to a counter fails only on a bug, seen at download
		return int64(n)
	})}
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) {
	*c += countWriter(len(p))
	return len(p), nil
}

// archiveFor returns the archive of kind for a job's site, padded with
// poorly compressible bytes so that its files hold size bytes in all.
func archiveFor(kind ArchiveKind, site func() []sitegen.File, size int64, seed uint64) *jobArchive {
	raw := map[ArchiveKind]string{
		ArchiveHTML: "<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head><body><h1>Service Unavailable</h1></body></html>\n",
	}
	if kind == ArchiveSparse {
		raw[kind] = string(sparseArchive())
	}
	if body, ok := raw[kind]; ok {
		return newJobArchive(func(w io.Writer) error {
			_, err := io.WriteString(w, body)
			return err
		})
	}
	if kind == ArchiveZip {
		return newJobArchive(func(w io.Writer) error { return writeZip(w, site(), size, seed) })
	}
	return newJobArchive(func(w io.Writer) error { return writeSite(w, kind, site(), size, seed) })
}

// zipModTime is the time of every zip entry, fixed so that a job's zip is
// the same bytes at every download.
var zipModTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// writeZip writes the site's files as a zip, padded with
// sitegen.PaddingName (pseudo-random bytes from seed, stored) so that its
// files hold size bytes in all, as a good archive is.
func writeZip(w io.Writer, site []sitegen.File, size int64, seed uint64) error {
	zw := zip.NewWriter(w)
	var files int64
	for _, f := range site {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: zipModTime})
		if err != nil {
			return err
		}
		if _, err := io.WriteString(fw, f.Body); err != nil {
			return err
		}
		files += int64(len(f.Body))
	}
	if pad := size - files; pad > 0 {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: sitegen.PaddingName, Method: zip.Store, Modified: zipModTime})
		if err != nil {
			return err
		}
		var seedBytes [32]byte
		for i := range 8 {
			seedBytes[i] = byte(seed >> (8 * i))
		}
		if _, err := io.CopyN(fw, rand.NewChaCha8(seedBytes), pad); err != nil {
			return err
		}
	}
	return zw.Close()
}

// badEntries are the entries an archive of a kind adds to the site.
var badEntries = map[ArchiveKind]*tar.Header{
	ArchiveAbsolutePath: {Typeflag: tar.TypeReg, Name: "/etc/docsadmin/index.html"},
	ArchiveDotDot:       {Typeflag: tar.TypeReg, Name: "guides/../../outside.html"},
	ArchiveSymlinkOut:   {Typeflag: tar.TypeSymlink, Name: "assets/shared", Linkname: "../../../etc"},
}

// extraNames are the empty files an archive of kind adds to the site, and
// its empty directories, named with a trailing slash.
func extraNames(kind ArchiveKind) []string {
	switch kind {
	case ArchiveManyFiles:
		names := make([]string, ManyFiles)
		for i := range names {
			names[i] = fmt.Sprintf("assets/many/%03d/%05d.txt", i/1000, i)
		}
		return names
	case ArchiveManyDirs:
		names := make([]string, ManyDirs)
		for i := range names {
			names[i] = fmt.Sprintf("assets/empty/%03d/%05d/", i/1000, i)
		}
		return names
	case ArchiveDotfiles:
		return []string{".git/config", ".htaccess"}
	case ArchiveDotRoute:
		return []string{"...html"}
	case ArchiveCaseCollision:
		return []string{"Changelog.html"}
	case ArchiveDotDir:
		return []string{".git/", ".git/hooks/"}
	case ArchiveBackslashDir:
		return []string{"a\\b/"}
	case ArchiveFoldCollision:
		return []string{"σ.html", "ς.html"}
	case ArchiveFileDirCollision:
		return []string{"manual", "Manual/x.html"}
	}
	return nil
}

// writeSite writes the site's files as a bundle of kind, padded to size as
// sitegen.Archive.Size says. A truncated or corrupt archive breaks off or is
// damaged after half the site's files.
func writeSite(w io.Writer, kind ArchiveKind, site []sitegen.File, size int64, seed uint64) error {
	aw, err := sitegen.NewWriter(w, size, seed)
	if err != nil {
		return err
	}
	for i, f := range site {
		if i == len(site)/2 && (kind == ArchiveTruncated || kind == ArchiveCorrupt) {
			if err := aw.Flush(); err != nil || kind == ArchiveTruncated {
				return err // the stream ends without its last block and trailer
			}
			// A reserved deflate block type where the next block starts.
			if _, err := w.Write([]byte{0xff, 0xff, 0xff, 0xff}); err != nil {
				return err
			}
		}
		if kind == ArchiveNoIndex {
			f.Name = "site/" + f.Name
		}
		if err := aw.AddFile(f.Name, f.Body); err != nil {
			return err
		}
	}
	if bad, ok := badEntries[kind]; ok {
		hdr := *bad // Add fills in the header
		if err := aw.Add(&hdr, strings.NewReader("")); err != nil {
			return err
		}
	}
	for _, name := range extraNames(kind) {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644}
		if strings.HasSuffix(name, "/") {
			hdr.Typeflag, hdr.Mode = tar.TypeDir, 0o755
		}
		if err := aw.Add(hdr, strings.NewReader("")); err != nil {
			return err
		}
	}
	if kind == ArchiveBomb {
		if err := aw.Add(&tar.Header{Typeflag: tar.TypeReg, Name: "assets/zeros.bin", Size: bombBytes}, zeros{}); err != nil {
			return err
		}
	}
	return aw.Close()
}
