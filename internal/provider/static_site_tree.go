package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// A release's per-file records live in its store beside it, never in state
// (publish.Switch writes them before the switch): the manifest, which
// manifest_file names for sync tools, and the stat data a refresh compares
// first, as git's index does. State keeps the manifest's SHA-256 only, so
// that a record changed on disk is a drift, not a new truth.
const (
	manifestRecord = ".json"
	statRecord     = ".stat"
	// statRecordHeader starts a stat record, and changes with its shape or
	// meaning.
	statRecordHeader = "docsadmin-site-stat 1"
	// recordBytesPerFile bounds what is read of a record, per file of the
	// site: far more than a file's entry takes, far less than memory.
	recordBytesPerFile = 8 << 10
	recordBytesBase    = 1 << 20
)

// fileStat is what a refresh compares of a file before reading it: with
// its size, enough to tell a file rewritten or replaced (the change time
// moves on every write, and with a time set back by hand too).
type fileStat struct {
	Mtime, Ctime int64 // nanoseconds since 1970
	Ino          uint64
}

// The stat record holds the stat data of a release's files, taken once its
// tree was written, in lines a refresh parses without a JSON decoder (one
// line per file, at every plan):
//
//	docsadmin-site-stat 1
//	manifest <the manifest's SHA-256>
//	time <nanoseconds>
//	<size> <mtime> <ctime> <inode> <SHA-256> <path>
//
// time is a moment on the file system's own clock after the last file was
// written: a file whose mtime or ctime is not strictly before it may have
// been written again within the clock's step, with the same size and
// times, and is read. Paths hold no newline (site.NameProblem refuses
// control characters), and come last, so they may hold spaces.

// appendStatHeader starts a stat record.
func appendStatHeader(b []byte, manifestSHA256 string, time int64) []byte {
	return fmt.Appendf(b, "%s\nmanifest %s\ntime %d\n", statRecordHeader, manifestSHA256, time)
}

// appendStatLine records the file at p.
func appendStatLine(b []byte, p string, w siteWant) []byte {
	b = strconv.AppendInt(b, w.size, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, w.stat.Mtime, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, w.stat.Ctime, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, w.stat.Ino, 10)
	b = append(b, ' ')
	b = append(b, w.sha256...)
	b = append(b, ' ')
	b = append(b, p...)
	return append(b, '\n')
}

// parseStatRecord reads a stat record written for the manifest of SHA-256
// manifestSHA256; false when it is another's or malformed.
func parseStatRecord(data []byte, manifestSHA256 string) (want map[string]siteWant, racyFrom int64, ok bool) {
	text := string(data)
	line := func() string {
		l, rest, found := strings.Cut(text, "\n")
		if !found {
			return "\x00" // a record ends with a newline
		}
		text = rest
		return l
	}
	if line() != statRecordHeader || line() != "manifest "+manifestSHA256 {
		return nil, 0, false
	}
	racyFrom, err := strconv.ParseInt(strings.TrimPrefix(line(), "time "), 10, 64)
	if err != nil || racyFrom <= 0 {
		return nil, 0, false
	}
	want = make(map[string]siteWant, strings.Count(text, "\n"))
	for text != "" {
		fields := strings.SplitN(line(), " ", 6)
		if len(fields) != 6 {
			return nil, 0, false
		}
		var w siteWant
		var ino uint64
		w.size, err = strconv.ParseInt(fields[0], 10, 64)
		if err == nil {
			w.stat.Mtime, err = strconv.ParseInt(fields[1], 10, 64)
		}
		if err == nil {
			w.stat.Ctime, err = strconv.ParseInt(fields[2], 10, 64)
		}
		if err == nil {
			ino, err = strconv.ParseUint(fields[3], 10, 64)
		}
		if err != nil || len(fields[4]) != sha256.Size*2 {
			return nil, 0, false
		}
		w.stat.Ino, w.sha256, w.hasStat = ino, fields[4], true
		want[fields[5]] = w
	}
	return want, racyFrom, true
}

// siteWant is what the records say of one file.
type siteWant struct {
	size    int64
	sha256  string
	stat    fileStat
	hasStat bool
	seen    bool
}

// siteRecords are the records of a release being published.
type siteRecords struct {
	manifest       []byte
	manifestSHA256 string
	stat           []byte
}

// statSHA256 is what a site pins of its stat record, "" without one.
func (r siteRecords) statSHA256() string {
	if r.stat == nil {
		return ""
	}
	return sha256Hex(r.stat)
}

func (r siteRecords) forSwitch() map[string][]byte {
	records := map[string][]byte{manifestRecord: r.manifest}
	if r.stat != nil {
		records[statRecord] = r.stat
	}
	return records
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// recordLimit bounds the records of a site of fileCount files.
func recordLimit(fileCount int64) int64 {
	return recordBytesBase + max(fileCount, 0)*recordBytesPerFile
}

// newSiteRecords encodes the manifest of the tree at dir, written and
// verified, and the stat data of its files. Every file of the tree must be
// the manifest's, and every file of the manifest in the tree. The record's
// time is taken before the files' stat data: a file written after it has
// its times there or later, so it is racy or its stat data differs.
func newSiteRecords(ctx context.Context, dir string, m *site.Manifest) (siteRecords, error) {
	manifest, err := m.JSON()
	if err != nil {
		return siteRecords{}, err
	}
	digest := sha256Hex(manifest)
	now, err := fileSystemNow(dir)
	if err != nil {
		return siteRecords{}, err
	}
	stat := appendStatHeader(make([]byte, 0, 128+m.Len()*192), digest, now)
	n := 0
	err = walkSiteTree(ctx, dir, func(rel string, _ *os.Root, _ string, info fs.FileInfo) error {
		f, ok := m.File(rel)
		if !ok || !info.Mode().IsRegular() || info.Size() != f.Size {
			return fmt.Errorf("%s in the unpacked tree is not the archive's file", quoteSiteName(rel))
		}
		st, _ := statOf(info)
		stat = appendStatLine(stat, rel, siteWant{size: f.Size, sha256: f.SHA256, stat: st})
		n++
		return nil
	})
	if err != nil {
		return siteRecords{}, err
	}
	if n != m.Len() {
		return siteRecords{}, fmt.Errorf("the unpacked tree holds %d of the archive's %d files", n, m.Len())
	}
	rec := siteRecords{manifest: manifest, manifestSHA256: digest}
	if now != 0 { // else no stat data: every file is read
		rec.stat = stat
	}
	return rec, nil
}

// fileSystemNow is the file system's clock at dir now: the time of a
// directory made there and removed at once, which is what a write of a file
// after this moment cannot be earlier than. 0 where the system gives no
// stat data: every file is then read.
func fileSystemNow(dir string) (int64, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	name := ".docsadmin-clock-" + randomHex(6)
	if err := root.Mkdir(name, 0o700); err != nil {
		return 0, err
	}
	info, err := root.Lstat(name)
	if rmErr := root.Remove(name); err == nil {
		err = rmErr
	}
	if err != nil {
		return 0, err
	}
	st, ok := statOf(info)
	if !ok {
		return 0, nil
	}
	return min(st.Mtime, st.Ctime), nil
}

// walkSiteTree visits every entry of the tree at dir that is not a
// directory, through an os.Root opened on each directory: no name found on
// disk leads out of the tree, no link is followed and nothing is opened but
// directories. fn gets the entry's slash-separated path, the root of its
// directory and its name there, and what Lstat says of it.
func walkSiteTree(ctx context.Context, dir string, fn func(rel string, parent *os.Root, name string, info fs.FileInfo) error) error {
	root, err := localfile.OpenDir(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return walkSiteDir(ctx, root, "", fn)
}

func walkSiteDir(ctx context.Context, r *os.Root, prefix string, fn func(string, *os.Root, string, fs.FileInfo) error) error {
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
			err = walkSiteDir(ctx, sub, rel, fn)
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

// siteFileSHA256 hashes the regular file name of r that Lstat described as
// info; a file replaced since (another inode, a link, a special file) is
// localfile.ErrReplaced.
func siteFileSHA256(r *os.Root, name string, info fs.FileInfo) (string, error) {
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

// siteWantFromRecords reads what the records of release say of its files,
// checked against manifestSHA256 (the manifest's SHA-256 in state, "" when
// unknown). The stat record is used only when its SHA-256 is statSHA256,
// the one the publication recorded (a record edited since, or none
// recorded, is not trusted), and it is of that manifest; without it, every
// file is read and held to the manifest. A manifest that is missing or
// differs is a problem, said in words.
func siteWantFromRecords(s publish.Site, release, manifestSHA256, statSHA256 string, fileCount int64) (want map[string]siteWant, racyFrom int64, problem string, err error) {
	limit := recordLimit(fileCount)
	manifestPath := s.Record(release, manifestRecord)
	manifest, err := s.ReadRecord(release, manifestRecord, limit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, fmt.Sprintf("the record of the files of %s, %s, is missing, so the tree cannot be checked", s.Dir, manifestPath), nil
	case err != nil:
		return nil, 0, "", err
	}
	digest := sha256Hex(manifest)
	if manifestSHA256 != "" && digest != manifestSHA256 {
		return nil, 0, fmt.Sprintf("%s (manifest_file) is not the manifest this site published (SHA-256 %s, want %s)", manifestPath, digest, manifestSHA256), nil
	}
	if statSHA256 != "" {
		if stat, err := s.ReadRecord(release, statRecord, limit); err == nil && sha256Hex(stat) == statSHA256 {
			if want, racyFrom, ok := parseStatRecord(stat, digest); ok {
				return want, racyFrom, "", nil
			}
		}
	}
	var files map[string]struct {
		Size   int64  `json:"size"`
		SHA256 string `json:"sha256"`
	}
	if err := json.Unmarshal(manifest, &files); err != nil {
		return nil, 0, fmt.Sprintf("%s (manifest_file) cannot be read: %s", manifestPath, err), nil
	}
	want = make(map[string]siteWant, len(files))
	for p, f := range files {
		want[p] = siteWant{size: f.Size, sha256: f.SHA256}
	}
	return want, 0, "", nil
}

// compareSiteTree compares the release at root with want. A file whose
// size, times and inode are those recorded, and whose times are before
// racyFrom, is the file published and is not read; every other file of the
// right size is hashed. Only regular files are opened, never a FIFO or a
// device; directories are not compared, since hosts serve files.
func compareSiteTree(ctx context.Context, root string, want map[string]siteWant, racyFrom int64) (d siteDrift, read int, err error) {
	err = walkSiteTree(ctx, root, func(rel string, parent *os.Root, name string, info fs.FileInfo) error {
		w, ok := want[rel]
		if !ok {
			d.add(&d.extra, &d.extraN, rel)
			return nil
		}
		w.seen = true
		want[rel] = w
		switch {
		case !info.Mode().IsRegular():
			d.add(&d.changed, &d.changedN, rel+" (no longer a regular file)")
		case info.Size() != w.size:
			d.add(&d.changed, &d.changedN, rel)
		case w.unchanged(info, racyFrom):
		default:
			read++
			digest, err := siteFileSHA256(parent, name, info)
			switch {
			case errors.Is(err, localfile.ErrReplaced):
				d.add(&d.changed, &d.changedN, rel+" (replaced while it was read)")
			case err != nil:
				return err
			case digest != w.sha256:
				d.add(&d.changed, &d.changedN, rel)
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
		d.add(&d.missing, &d.missingN, p)
	}
	return d, read, nil
}

// unchanged says whether a file of the recorded size is known unchanged
// without reading it: its stat data is the recorded one, and neither of
// its times reaches the record's time (else it may have been written again
// within the clock's step).
func (w siteWant) unchanged(info fs.FileInfo, racyFrom int64) bool {
	if !w.hasStat {
		return false
	}
	st, ok := statOf(info)
	return ok && st == w.stat && st.Mtime < racyFrom && st.Ctime < racyFrom
}

// checkRelease compares the release of the site with its records, held to
// the manifest state names and to the stat record the publication pinned.
func checkRelease(ctx context.Context, s publish.Site, release string, state siteScalars, statSHA256 string) (siteDrift, error) {
	want, racyFrom, problem, err := siteWantFromRecords(s, release, state.ManifestSHA256.ValueString(), statSHA256, state.FileCount.ValueInt64())
	if err != nil || problem != "" {
		return siteDrift{whole: problem}, err
	}
	d, read, err := compareSiteTree(ctx, s.Release(release), want, racyFrom)
	tflog.Debug(ctx, "checked the static site's release", map[string]any{"release": release, "files": len(want), "read": read, "stat_data": racyFrom != 0})
	return d, err
}
