package sitetree

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
)

// Check compares the release of the site s with its records, held to the
// manifest whose SHA-256 state names and to the stat record the
// publication pinned (ReadWant). A record that cannot be trusted is a
// drift of the whole site. read is how many files were hashed.
func Check(ctx context.Context, s publish.Site, release, manifestSHA256, statSHA256 string, fileCount int64) (d Drift, read int, stat bool, err error) {
	want, racyFrom, problem, err := ReadWant(s, release, manifestSHA256, statSHA256, fileCount)
	if err != nil || problem != "" {
		return Drift{Whole: problem}, 0, false, err
	}
	d, read, err = Compare(ctx, s.Release(release), want, racyFrom)
	return d, read, racyFrom != 0, err
}

// walk visits every entry of the tree at dir that is not a directory,
// through an os.Root opened on each directory: no name found on disk leads
// out of the tree, no link is followed and nothing is opened but
// directories. fn gets the entry's slash-separated path, the root of its
// directory and its name there, and what Lstat says of it.
func walk(ctx context.Context, dir string, fn func(rel string, parent *os.Root, name string, info fs.FileInfo) error) error {
	root, err := localfile.OpenDir(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return walkDir(ctx, root, "", fn)
}

func walkDir(ctx context.Context, r *os.Root, prefix string, fn func(string, *os.Root, string, fs.FileInfo) error) error {
	d, err := r.Open(".")
	if err != nil {
		return err
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		rel := path.Join(prefix, e.Name())
		if e.IsDir() {
			// Opened only as a directory: a FIFO swapped in since the
			// listing is refused, never waited on.
			sub, err := localfile.OpenDirIn(r, e.Name())
			if err != nil {
				return err
			}
			err = walkDir(ctx, sub, rel, fn)
			sub.Close()
			if err != nil {
				return err
			}
			continue
		}
		// Read through r, its entries carry what lstatat said of them,
		// relative to the directory's handle.
		info, err := e.Info()
		if err != nil {
			return err
		}
		if err := fn(rel, r, e.Name(), info); err != nil {
			return err
		}
	}
	return nil
}

// fileSHA256 hashes the regular file name of r that Lstat described as
// info; a file replaced since (another inode, a link, a special file) is
// localfile.ErrReplaced.
func fileSHA256(r *os.Root, name string, info fs.FileInfo) (string, error) {
	f, _, err := localfile.OpenRegularIn(r, name, info, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Compare compares the release at root with want. A file whose size, times
// and inode are those recorded, and whose times are before racyFrom, is
// the file published and is not read; every other file of the right size
// is hashed. Only regular files are opened, never a FIFO or a device;
// directories are not compared, since hosts serve files.
func Compare(ctx context.Context, root string, want map[string]Want, racyFrom int64) (d Drift, read int, err error) {
	err = walk(ctx, root, func(rel string, parent *os.Root, name string, info fs.FileInfo) error {
		w, ok := want[rel]
		if !ok {
			d.add(&d.Extra, &d.ExtraN, rel)
			return nil
		}
		w.seen = true
		want[rel] = w
		switch {
		case !info.Mode().IsRegular():
			d.add(&d.Changed, &d.ChangedN, rel+" (no longer a regular file)")
		case info.Size() != w.Size:
			d.add(&d.Changed, &d.ChangedN, rel)
		case w.unchanged(info, racyFrom):
		default:
			read++
			digest, err := fileSHA256(parent, name, info)
			switch {
			case errors.Is(err, localfile.ErrReplaced):
				d.add(&d.Changed, &d.ChangedN, rel+" (replaced while it was read)")
			case err != nil:
				return err
			case digest != w.SHA256:
				d.add(&d.Changed, &d.ChangedN, rel)
			}
		}
		return nil
	})
	if err != nil {
		return d, read, err
	}
	var missing []string
	for p, w := range want {
		if !w.seen {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	for _, p := range missing {
		d.add(&d.Missing, &d.MissingN, p)
	}
	return d, read, nil
}

// unchanged says whether a file of the recorded size is known unchanged
// without reading it: its stat data is the recorded one, and neither of
// its times reaches the record's time (else it may have been written again
// within the clock's step).
func (w Want) unchanged(info fs.FileInfo, racyFrom int64) bool {
	if !w.HasStat {
		return false
	}
	st, ok := StatOf(info)
	return ok && st == w.Stat && st.Mtime < racyFrom && st.Ctime < racyFrom
}
