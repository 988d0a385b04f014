// Package manifestcache keeps the manifest of an export's site that one
// download told, so that later plans read it from disk with no link and no
// download: the files of an export never change. The cache is trusted as
// Terraform's plugin cache is, by whoever owns the runner: an entry carries
// the SHA-256 of its content, so a damaged or truncated one, or one written
// for another API origin or job, is ignored and the archive downloaded
// again; the caller checks its names and bounds again on every read.
package manifestcache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// version changes when the entry's shape or meaning does. 2: the archive's
// directories are checked as its files are, which an entry does not
// record, so an entry of version 1 is downloaded again.
const version = 2

// maxEntryBytes bounds what is read of an entry: more than the largest
// manifest max_files allows.
const maxEntryBytes = 256 << 20

// TTL is how long an entry no read has used is kept.
const TTL = 30 * 24 * time.Hour

type entry struct {
	Version       int    `json:"version"`
	BaseURL       string `json:"base_url"`
	JobID         string `json:"job_id"`
	ArchiveSHA256 string `json:"archive_sha256"`
	Files         []file `json:"files"`
	Digest        string `json:"sha256,omitempty"`
}

// file is what the cache keeps of a file; its type and cache policy come
// from the provider's tables when it is read.
type file struct {
	Path   string `json:"p"`
	Size   int64  `json:"s"`
	SHA256 string `json:"h"`
	MD5    string `json:"m"`
}

// Cache is the cache directory of one provider configuration.
type Cache struct {
	dir     string
	baseURL string
}

// DefaultDir is in the user's cache directory ($XDG_CACHE_HOME or ~/.cache
// on Linux, ~/Library/Caches on macOS, %LocalAppData% on Windows), shared
// by every configuration on the machine and kept by pipelines that cache
// it.
func DefaultDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "terraform-provider-docsadmin", "manifests")
}

// New is the cache at dir of the API at baseURL, which keys every entry:
// give it the API's address as every comparison of base URLs makes it
// (client.APIAddress), so that two spellings of one API share entries.
func New(dir, baseURL string) *Cache {
	return &Cache{dir: dir, baseURL: baseURL}
}

// name is the entry of jobID in the cache's directory.
func (c *Cache) name(jobID string) string {
	sum := sha256.Sum256([]byte(c.baseURL + "\x00" + jobID))
	return hex.EncodeToString(sum[:16]) + entrySuffix
}

const entrySuffix = ".json"

// isEntryName says whether name is one that name gives.
func isEntryName(name string) bool {
	hexPart, ok := strings.CutSuffix(name, entrySuffix)
	var sum [16]byte
	return ok && decodeHex(hexPart, sum[:]) && hexPart == strings.ToLower(hexPart)
}

// digest is the SHA-256 of the entry without its digest.
func digest(e entry) string {
	e.Digest = ""
	data, _ := json.Marshal(e)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Load tells add each file of the sealed manifest of jobID and returns the
// archive's SHA-256, or false when there is no entry that can be trusted
// (then what add was told is to be dropped). An error of add ends the read
// and is returned: a bound lower than the site is said as a download would.
func (c *Cache) Load(jobID string, add func(archive.File) error) (archiveSHA256 string, ok bool, err error) {
	// One handle of the cache: the entry is read and touched through it.
	root, err := localfile.OpenDir(c.dir)
	if err != nil {
		return "", false, nil // no cache yet, or not a directory: Store makes or refuses it
	}
	defer root.Close()
	name := c.name(jobID)
	f, _, err := localfile.OpenRegularIn(root, name, nil, 0)
	if err != nil {
		return "", false, nil // missing, or not a regular file: ignored, rewritten
	}
	defer f.Close()
	var e entry
	if err := json.NewDecoder(io.LimitReader(f, maxEntryBytes)).Decode(&e); err != nil {
		return "", false, nil
	}
	if e.Version != version || e.JobID != jobID || e.BaseURL != c.baseURL || e.Digest != digest(e) {
		return "", false, nil
	}
	for _, cf := range e.Files {
		file := archive.File{Name: cf.Path, Size: cf.Size}
		if !decodeHex(cf.SHA256, file.SHA256[:]) || !decodeHex(cf.MD5, file.MD5[:]) {
			return "", false, nil
		}
		if err := add(file); err != nil {
			return "", false, err
		}
	}
	now := time.Now() // used: kept another TTL
	_ = root.Chtimes(name, now, now)
	return e.ArchiveSHA256, true, nil
}

// Store seals and writes the manifest of jobID, replacing any entry whole.
func (c *Cache) Store(jobID, archiveSHA256 string, m *site.Manifest) error {
	e := entry{Version: version, BaseURL: c.baseURL, JobID: jobID, ArchiveSHA256: archiveSHA256}
	files := m.Files()
	for _, p := range m.Paths() {
		f := files[p]
		e.Files = append(e.Files, file{Path: p, Size: f.Size, SHA256: f.SHA256, MD5: f.MD5})
	}
	e.Digest = digest(e)
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	root, err := localfile.OpenRootDir(c.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := localfile.WriteBytes(root, c.name(jobID), 0o644, data); err != nil {
		return fmt.Errorf("writing the manifest cache: %w", err)
	}
	prune(root, time.Now().Add(-TTL))
	return nil
}

// prune removes the cache's entries that no read has used since before,
// and temporary files a killed run left; best effort. Only names the cache
// writes are touched: the directory may hold files of the user's.
func prune(root *os.Root, before time.Time) {
	d, err := root.Open(".")
	if err != nil {
		return
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return
	}
	for _, e := range entries {
		if !ours(e.Name()) {
			continue
		}
		if info, err := root.Lstat(e.Name()); err == nil && info.Mode().IsRegular() && info.ModTime().Before(before) {
			_ = root.Remove(e.Name())
		}
	}
}

// ours says whether name is an entry of the cache, or a temporary file
// that localfile.Write made for one (localfile.TempOf).
func ours(name string) bool {
	if of, ok := localfile.TempOf(name); ok {
		name = of
	}
	return isEntryName(name)
}

func decodeHex(s string, dst []byte) bool {
	n, err := hex.Decode(dst, []byte(s))
	return err == nil && n == len(dst)
}
