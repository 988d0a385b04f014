package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/localfile"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// The files of an export never change, so the manifest data source keeps
// what one download told it and later plans read it from disk, with no
// link and no download (a read-scoped key is enough). The cache is trusted
// as Terraform's plugin cache is, by whoever owns the runner: an entry carries the SHA-256 of its content, so a damaged or
// truncated one, or one written for another API origin or job, is ignored
// and the archive downloaded again; its names and max_files are checked
// again on every read.

// manifestCacheVersion changes when the entry's shape or meaning does. 2:
// the archive's directories were checked as its files are, which an entry
// does not record, so entries of version 1 are downloaded again.
const manifestCacheVersion = 2

// manifestCacheMax bounds what is read of an entry: more than the largest
// manifest max_files allows.
const manifestCacheMax = 256 << 20

type manifestCacheEntry struct {
	Version       int                 `json:"version"`
	BaseURL       string              `json:"base_url"`
	JobID         string              `json:"job_id"`
	ArchiveSHA256 string              `json:"archive_sha256"`
	Files         []manifestCacheFile `json:"files"`
	Digest        string              `json:"sha256,omitempty"`
}

// manifestCacheFile is what the cache keeps of a file; its type and cache
// policy come from the provider's tables when it is read.
type manifestCacheFile struct {
	Path   string `json:"p"`
	Size   int64  `json:"s"`
	SHA256 string `json:"h"`
	MD5    string `json:"m"`
}

// manifestCache is the cache directory of one provider configuration.
type manifestCache struct {
	dir     string
	baseURL string
}

// defaultManifestCacheDir is in the user's cache directory ($XDG_CACHE_HOME
// or ~/.cache on Linux, ~/Library/Caches on macOS, %LocalAppData% on
// Windows), shared by every configuration on the machine and kept by
// pipelines that cache it.
func defaultManifestCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "terraform-provider-docsadmin", "manifests")
}

// manifestCacheTTL is how long an entry no read has used is kept.
const manifestCacheTTL = 30 * 24 * time.Hour

func newManifestCache(dir, baseURL string) *manifestCache {
	return &manifestCache{dir: dir, baseURL: baseURL}
}

// name is the entry of jobID in the cache's directory.
func (c *manifestCache) name(jobID string) string {
	sum := sha256.Sum256([]byte(c.baseURL + "\x00" + jobID))
	return hex.EncodeToString(sum[:16]) + ".json"
}

// digest is the SHA-256 of the entry without its digest.
func digest(e manifestCacheEntry) string {
	e.Digest = ""
	data, _ := json.Marshal(e)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// load returns the sealed manifest of jobID, or false when there is none
// that can be trusted.
func (c *manifestCache) load(jobID string, maxFiles int) (*site.Manifest, string, bool, error) {
	// One handle of the cache: the entry is read and touched through it.
	root, err := localfile.OpenDir(c.dir)
	if err != nil {
		return nil, "", false, nil // no cache yet, or not a directory: the store makes or refuses it
	}
	defer root.Close()
	name := c.name(jobID)
	f, _, err := localfile.OpenRegularIn(root, name, nil, 0)
	if err != nil {
		return nil, "", false, nil // missing, or not a regular file: ignored, rewritten
	}
	defer f.Close()
	var e manifestCacheEntry
	if err := json.NewDecoder(io.LimitReader(f, manifestCacheMax)).Decode(&e); err != nil {
		return nil, "", false, nil
	}
	if e.Version != manifestCacheVersion || e.JobID != jobID || e.BaseURL != c.baseURL || e.Digest != digest(e) {
		return nil, "", false, nil
	}
	collector := newSiteCollector(maxFiles, manifestNotRead)
	for _, cf := range e.Files {
		file := archive.File{Name: cf.Path, Size: cf.Size}
		if !decodeHex(cf.SHA256, file.SHA256[:]) || !decodeHex(cf.MD5, file.MD5[:]) {
			return nil, "", false, nil
		}
		if err := collector.add(file); err != nil {
			return nil, "", false, err // max_files lower than the site: said as a download would
		}
	}
	now := time.Now() // used: kept another TTL
	_ = root.Chtimes(name, now, now)
	return collector.manifest, e.ArchiveSHA256, true, nil
}

// store seals and writes the manifest of jobID, replacing any entry whole.
func (c *manifestCache) store(jobID, archiveSHA256 string, m *site.Manifest) error {
	e := manifestCacheEntry{Version: manifestCacheVersion, BaseURL: c.baseURL, JobID: jobID, ArchiveSHA256: archiveSHA256}
	files := m.Files()
	for _, p := range m.Paths() {
		f := files[p]
		e.Files = append(e.Files, manifestCacheFile{Path: p, Size: f.Size, SHA256: f.SHA256, MD5: f.MD5})
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
	prune(root, time.Now().Add(-manifestCacheTTL))
	return nil
}

// prune removes the cache's entries that no read has used since before,
// and temporary files a killed run left; best effort. Only names the cache
// writes are touched: cache_directory may name a directory that holds
// files of the user's.
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
		name, temporary := localfile.TempOf(e.Name())
		if !temporary {
			name = e.Name()
		}
		if !manifestCacheName.MatchString(name) {
			continue
		}
		if info, err := root.Lstat(e.Name()); err == nil && info.Mode().IsRegular() && info.ModTime().Before(before) {
			_ = root.Remove(e.Name())
		}
	}
}

// manifestCacheName matches the entries path writes (their temporary
// files, through localfile.TempOf) and earlier versions' temporary files.
var manifestCacheName = regexp.MustCompile(`^(?:[0-9a-f]{32}\.json|\.manifest-[0-9]+)$`)

func decodeHex(s string, dst []byte) bool {
	n, err := hex.Decode(dst, []byte(s))
	return err == nil && n == len(dst)
}
