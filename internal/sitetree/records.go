package sitetree

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// A release's per-file records live in its store beside it, never in state
// (publish.Switch writes them before the switch): the manifest, which
// manifest_file names for sync tools, and the stat data a refresh compares
// first, as git's index does. State keeps the manifest's SHA-256 only, so
// that a record changed on disk is a drift, not a new truth.
const (
	ManifestRecord = ".json"
	StatRecord     = ".stat"
	// statRecordHeader starts a stat record, and changes with its shape or
	// meaning.
	statRecordHeader = "docsadmin-site-stat 1"
	// recordBytesPerFile bounds what is read of a record, per file of the
	// site: far more than a file's entry takes, far less than memory.
	recordBytesPerFile = 8 << 10
	recordBytesBase    = 1 << 20
)

// Stat is what a refresh compares of a file before reading it: with its
// size, enough to tell a file rewritten or replaced (the change time moves
// on every write, and with a time set back by hand too).
type Stat struct {
	Mtime, Ctime int64 // nanoseconds since 1970
	Ino          uint64
}

// Want is what the records say of one file.
type Want struct {
	Size    int64
	SHA256  string
	Stat    Stat
	HasStat bool
	seen    bool
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

// AppendStatHeader starts a stat record.
func AppendStatHeader(b []byte, manifestSHA256 string, time int64) []byte {
	return fmt.Appendf(b, "%s\nmanifest %s\ntime %d\n", statRecordHeader, manifestSHA256, time)
}

// AppendStatLine records the file at p.
func AppendStatLine(b []byte, p string, w Want) []byte {
	b = strconv.AppendInt(b, w.Size, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, w.Stat.Mtime, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, w.Stat.Ctime, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, w.Stat.Ino, 10)
	b = append(b, ' ')
	b = append(b, w.SHA256...)
	b = append(b, ' ')
	b = append(b, p...)
	return append(b, '\n')
}

// parseStatRecord reads a stat record written for the manifest of SHA-256
// manifestSHA256; false when it is another's or malformed.
func parseStatRecord(data []byte, manifestSHA256 string) (want map[string]Want, racyFrom int64, ok bool) {
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
	want = make(map[string]Want, strings.Count(text, "\n"))
	for text != "" {
		fields := strings.SplitN(line(), " ", 6)
		if len(fields) != 6 {
			return nil, 0, false
		}
		var w Want
		var ino uint64
		w.Size, err = strconv.ParseInt(fields[0], 10, 64)
		if err == nil {
			w.Stat.Mtime, err = strconv.ParseInt(fields[1], 10, 64)
		}
		if err == nil {
			w.Stat.Ctime, err = strconv.ParseInt(fields[2], 10, 64)
		}
		if err == nil {
			ino, err = strconv.ParseUint(fields[3], 10, 64)
		}
		if err != nil || len(fields[4]) != sha256.Size*2 {
			return nil, 0, false
		}
		w.Stat.Ino, w.SHA256, w.HasStat = ino, fields[4], true
		want[fields[5]] = w
	}
	return want, racyFrom, true
}

// Records are the records of a release being published.
type Records struct {
	Manifest       []byte
	ManifestSHA256 string
	Stat           []byte // nil where the system gives no stat data
}

// StatSHA256 is what a site pins of its stat record, "" without one.
func (r Records) StatSHA256() string {
	if r.Stat == nil {
		return ""
	}
	return sha256Hex(r.Stat)
}

// ForSwitch are the records as publish.Staged.Switch writes them.
func (r Records) ForSwitch() map[string][]byte {
	records := map[string][]byte{ManifestRecord: r.Manifest}
	if r.Stat != nil {
		records[StatRecord] = r.Stat
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

// NewRecords encodes the manifest of the tree at dir, written and
// verified, and the stat data of its files. Every file of the tree must be
// the manifest's, and every file of the manifest in the tree. The record's
// time is taken before the files' stat data: a file written after it has
// its times there or later, so it is racy or its stat data differs.
func NewRecords(ctx context.Context, dir string, m *site.Manifest) (Records, error) {
	manifest, err := m.JSON()
	if err != nil {
		return Records{}, err
	}
	digest := sha256Hex(manifest)
	now, err := fileSystemNow(dir)
	if err != nil {
		return Records{}, err
	}
	stat := AppendStatHeader(make([]byte, 0, 128+m.Len()*192), digest, now)
	n := 0
	err = walk(ctx, dir, func(rel string, _ *os.Root, _ string, info fs.FileInfo) error {
		f, ok := m.File(rel)
		if !ok || !info.Mode().IsRegular() || info.Size() != f.Size {
			return fmt.Errorf("%s in the unpacked tree is not the archive's file", quoteName(rel))
		}
		st, _ := StatOf(info)
		stat = AppendStatLine(stat, rel, Want{Size: f.Size, SHA256: f.SHA256, Stat: st})
		n++
		return nil
	})
	if err != nil {
		return Records{}, err
	}
	if n != m.Len() {
		return Records{}, fmt.Errorf("the unpacked tree holds %d of the archive's %d files", n, m.Len())
	}
	rec := Records{Manifest: manifest, ManifestSHA256: digest}
	if now != 0 { // else no stat data: every file is read
		rec.Stat = stat
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
	name := ".docsadmin-clock-" + rand.Text()
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
	st, ok := StatOf(info)
	if !ok {
		return 0, nil
	}
	return min(st.Mtime, st.Ctime), nil
}

// ReadWant reads what the records of release say of its files, checked
// against manifestSHA256 (the manifest's SHA-256 in state, "" when
// unknown). The stat record is used only when its SHA-256 is statSHA256,
// the one the publication recorded (a record edited since, or none
// recorded, is not trusted), and it is of that manifest; without it, every
// file is read and held to the manifest. A manifest that is missing or
// differs is a problem, said in words.
func ReadWant(s publish.Site, release, manifestSHA256, statSHA256 string, fileCount int64) (want map[string]Want, racyFrom int64, problem string, err error) {
	limit := recordLimit(fileCount)
	manifestPath := s.Record(release, ManifestRecord)
	manifest, err := s.ReadRecord(release, ManifestRecord, limit)
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
		if stat, err := s.ReadRecord(release, StatRecord, limit); err == nil && sha256Hex(stat) == statSHA256 {
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
	want = make(map[string]Want, len(files))
	for p, f := range files {
		want[p] = Want{Size: f.Size, SHA256: f.SHA256}
	}
	return want, 0, "", nil
}
