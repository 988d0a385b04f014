package archive

import (
	"bufio"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"
)

// File is a regular file of a verified archive: its path relative to the
// root (slash-separated, without "." components), its size and digests.
type File struct {
	Name   string
	Size   int64
	SHA256 [sha256.Size]byte
	MD5    [md5.Size]byte
}

// UnpackOptions are what FetchUnpack, FetchFiles and Files tell and ask
// their caller. Every entry that becomes part of the tree is told to File
// or Dir, so a caller that checks names there checks every name unpacked.
type UnpackOptions struct {
	// File, when set, is told every regular file once it is written, hard
	// links as the copies they become. The archive may still be refused
	// after: keep what it is told only once FetchUnpack succeeds. An error stops
	// the unpacking.
	File func(File) error
	// Dir, when set, is told the path of every directory entry (relative
	// to the root, slash-separated, without "." components; never the root
	// itself) before it is made. The directories above a file are not
	// told: File tells the file's path. An error stops the unpacking.
	Dir func(name string) error
	// Accept, when set, is shown the verified archive's Summary before the
	// tree moves into place; an error keeps the previous tree.
	Accept func(Summary) error
}

// Files verifies a gzip'd tar as Fetch does and tells opts.File the digests
// of every regular file, in archive order, hard links with their target's
// digests, and opts.Dir every directory, as unpacking does; nothing is
// written. The site rules of unpacking apply: a symbolic link is refused.
// The archive may be refused after some files were told. opts.Accept, when
// set, is shown the Summary once the archive is verified; its error is
// Files'.
func (l Limits) Files(ctx context.Context, r io.Reader, opts UnpackOptions) (Summary, error) {
	sum, err := l.verifyInto(ctx, r, nil, nil, newFileSink(nil, opts))
	if err != nil {
		return Summary{}, err
	}
	if opts.Accept != nil {
		if err := opts.Accept(sum); err != nil {
			return Summary{}, err
		}
	}
	return sum, nil
}

// unpack verifies a gzip'd tar and unpacks it into dir in the same pass,
// with the verifier's rules and its pathTree: what it writes is what
// verification accepts, and an archive it refuses leaves dir empty.
//
// dir is a directory handle the caller made and opened, and must be empty:
// every write goes through it (an os.Root), so that no name and no link,
// even one created by another process meanwhile, can lead a write outside
// it, and where dir lives (a store beside a served path) is the caller's
// concern. Files get mode 0644 and directories 0755 whatever the archive
// says; owners and times are not restored. A hard link becomes a copy of
// its target. A symbolic link is refused: static hosts and object stores
// serve files, not links, so a site that needs one cannot be served by
// them as unpacked.
//
// On any failure, the context's and opts.Accept's included, everything it
// wrote into dir is removed. Files are not synced one by one: the caller
// syncs the tree before it publishes it.
func (l Limits) unpack(ctx context.Context, r io.Reader, dir *os.Root, opts UnpackOptions) (sum Summary, err error) {
	if err := requireEmpty(dir); err != nil {
		return Summary{}, err
	}
	defer func() {
		if err != nil {
			emptyDir(dir)
		}
	}()
	sum, err = l.verifyInto(ctx, r, nil, nil, newFileSink(dir, opts))
	if err != nil {
		return Summary{}, err
	}
	if opts.Accept != nil {
		if err := opts.Accept(sum); err != nil {
			return Summary{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	return sum, nil
}

// requireEmpty refuses a directory that holds anything: unpacking fills
// an empty one.
func requireEmpty(dir *os.Root) error {
	d, err := dir.Open(".")
	if err != nil {
		return fmt.Errorf("unpacking: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("unpacking: %w", err)
	}
	if len(names) > 0 {
		return fmt.Errorf("unpacking: %s is not empty", dir.Name())
	}
	return nil
}

// emptyDir removes everything in dir, through it: links are removed, not
// followed.
func emptyDir(dir *os.Root) {
	d, err := dir.Open(".")
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, name := range names {
		_ = dir.RemoveAll(name)
	}
}

// sinkError is a failure of the unpacking's own writes, told apart from the
// archive's stream failing.
type sinkError struct{ err error }

func (e *sinkError) Error() string { return e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }

// fileSink receives the verified entries: it digests every regular file's
// data and, with a root, writes the tree.
type fileSink struct {
	root  *os.Root // nil: digests only
	each  func(File) error
	dir   func(string) error
	files map[string]File // regular files so far, for hard links
	dirs  map[string]bool // directories made
	sha   hash.Hash
	md5   hash.Hash
	bw    *bufio.Writer
	buf   []byte
}

func newFileSink(root *os.Root, opts UnpackOptions) *fileSink {
	s := &fileSink{root: root, each: opts.File, dir: opts.Dir, files: map[string]File{}, dirs: map[string]bool{"": true}, sha: sha256.New(), md5: md5.New()}
	if root != nil {
		s.bw = bufio.NewWriterSize(nil, 64<<10)
	}
	return s
}

// cleanName is an entry name as a path inside the root; the pathTree has
// refused every name that is absolute or climbs.
func cleanName(name string) string {
	return strings.Join(components(name), "/")
}

func (s *fileSink) fail(err error) error {
	return &sinkError{fmt.Errorf("unpacking: %w", err)}
}

// file digests and writes the data of a regular file.
func (s *fileSink) file(e *Entry, sc *tarScanner) error {
	name := cleanName(e.Name)
	s.sha.Reset()
	s.md5.Reset()
	w := io.MultiWriter(s.sha, s.md5)
	var f *os.File
	if s.root != nil {
		if err := s.mkdirs(parentOf(name)); err != nil {
			return s.fail(err)
		}
		var err error
		f, err = s.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return s.fail(err)
		}
		defer f.Close()
		s.bw.Reset(f)
		w = io.MultiWriter(s.bw, s.sha, s.md5)
	}
	if err := sc.copyData(e.Size, w); err != nil {
		return err
	}
	if f != nil {
		if err := s.bw.Flush(); err != nil {
			return s.fail(err)
		}
		// The mode the archive does not choose: 0644 whatever the umask.
		if err := f.Chmod(0o644); err != nil {
			return s.fail(err)
		}
		if err := f.Close(); err != nil {
			return s.fail(err)
		}
	}
	file := File{Name: name, Size: e.Size}
	s.sha.Sum(file.SHA256[:0])
	s.md5.Sum(file.MD5[:0])
	return s.record(file)
}

func (s *fileSink) record(f File) error {
	s.files[f.Name] = f
	if s.each != nil {
		if err := s.each(f); err != nil {
			return &sinkError{err}
		}
	}
	return nil
}

// other handles the entries without data: directories, hard links, and
// the symbolic links a site may not hold.
func (s *fileSink) other(ctx context.Context, e *Entry) error {
	name := cleanName(e.Name)
	switch e.Type {
	case TypeDir:
		// Told before it is made: a name the caller refuses is never
		// written, not even in the temporary directory.
		if s.dir != nil && name != "" {
			if err := s.dir(name); err != nil {
				return &sinkError{err}
			}
		}
		if s.root != nil {
			if err := s.mkdirs(name); err != nil {
				return s.fail(err)
			}
		}
		return nil
	case TypeSymlink:
		return &Error{Kind: ErrSpecialFile, Entry: e.Name, Reason: "a symbolic link (to " + quoteName(e.Linkname) + "): static hosts and object " +
			"stores serve files, not links, so an unpacked site may not hold one; export or pack the site with links replaced by their files (tar -h)"}
	case TypeHardlink:
		target, ok := s.files[cleanName(e.Linkname)]
		if !ok { // the pathTree admits a hard link to an earlier regular file only
			return &Error{Kind: ErrUnsafeLink, Entry: e.Name, Reason: "hard link to " + quoteName(e.Linkname) + ", which is not an earlier file"}
		}
		if s.root != nil {
			if err := s.copyFile(ctx, target.Name, name); err != nil {
				return err
			}
		}
		target.Name = name
		return s.record(target)
	}
	return nil
}

// copyFile copies the file from inside the root to a new file to.
func (s *fileSink) copyFile(ctx context.Context, from, to string) error {
	if err := s.mkdirs(parentOf(to)); err != nil {
		return s.fail(err)
	}
	src, err := s.root.Open(from)
	if err != nil {
		return s.fail(err)
	}
	defer src.Close()
	dst, err := s.root.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return s.fail(err)
	}
	defer dst.Close()
	if s.buf == nil {
		s.buf = make([]byte, 64<<10)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := src.Read(s.buf)
		if n > 0 {
			if _, err := dst.Write(s.buf[:n]); err != nil {
				return s.fail(err)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return s.fail(rerr)
		}
	}
	if err := dst.Chmod(0o644); err != nil {
		return s.fail(err)
	}
	if err := dst.Close(); err != nil {
		return s.fail(err)
	}
	return nil
}

// mkdirs makes the directory p and its missing parents inside the root,
// each with mode 0755 whatever the umask.
func (s *fileSink) mkdirs(p string) error {
	if s.dirs[p] {
		return nil
	}
	if err := s.mkdirs(parentOf(p)); err != nil {
		return err
	}
	if err := s.root.Mkdir(p, 0o755); err != nil {
		// Named again by the archive: the pathTree has checked it is a
		// directory; Lstat through the root confirms it.
		info, serr := s.root.Lstat(p)
		if serr != nil || !info.IsDir() {
			return err
		}
	}
	if err := s.root.Chmod(p, 0o755); err != nil {
		return err
	}
	s.dirs[p] = true
	return nil
}

func parentOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}
