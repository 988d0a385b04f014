package publish

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// What the provider makes in a store, and beside it, by name: anything
// else under these names was not made by the provider and is refused,
// never followed or removed (storeEntryKind says which kind is whose).
const (
	storeSuffix = ".docsadmin"
	markerName  = "site.json"
	lockName    = "lock"
	releasesDir = "releases"
	stagingDir  = "staging"
	recordsDir  = "manifests"
	stagedTree  = "tree"
	// linkTmpInfix begins the names of the provider's links in a store: a
	// new one before its exchange, an old one moved aside to be removed.
	linkTmpInfix = ".link-"
	linkGoneName = ".link-withdrawn"
	// newStorePrefix names a store being made beside the served path.
	newStorePrefix = ".docsadmin-new-"

	nameMax = 255 // NAME_MAX on Linux and macOS
)

// Site is one served path and the store beside it.
type Site struct {
	// Dir is the served path: absolute and clean.
	Dir string
	// Store is the provider's directory beside Dir.
	Store string
	// Resolved is Dir with the symbolic links of its existing parents
	// resolved: two sites collide when their resolved paths do.
	Resolved string
}

// Locate names the store of the served path dir, relative to the working
// directory when not absolute. It reads only the directories above dir, by
// their paths, to resolve their links.
func Locate(dir string) (Site, error) {
	if strings.TrimSpace(dir) == "" {
		return Site{}, errors.New("the directory is empty")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Site{}, err
	}
	_, base := filepath.Split(abs)
	if base == "" {
		return Site{}, fmt.Errorf("%s is the root directory", abs)
	}
	return Site{Dir: abs, Store: storePath(abs), Resolved: filepath.Join(resolveExisting(filepath.Dir(abs)), base)}, nil
}

// storePath is the path of the store of the served path dir.
func storePath(dir string) string {
	return filepath.Join(filepath.Dir(dir), storeName(filepath.Base(dir)))
}

// resolveExisting resolves the links of the longest existing part of p.
func resolveExisting(p string) string {
	var rest []string
	for q := p; ; q = filepath.Dir(q) {
		if resolved, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(append([]string{resolved}, rest...)...)
		}
		if filepath.Dir(q) == q {
			return p
		}
		rest = append([]string{filepath.Base(q)}, rest...)
	}
}

// storeName is ".<base>.docsadmin", shortened with a digest of base where
// that would be longer than a name may be, so that any served name works.
func storeName(base string) string {
	name := "." + base + storeSuffix
	if len(name) <= nameMax {
		return name
	}
	sum := sha256.Sum256([]byte(base))
	keep := base[:180]
	for !utf8.ValidString(keep) {
		keep = keep[:len(keep)-1]
	}
	return "." + keep + "-" + hex.EncodeToString(sum[:6]) + storeSuffix
}

func (s Site) base() string      { return filepath.Base(s.Dir) }
func (s Site) storeBase() string { return filepath.Base(s.Store) }

// Release is the path of the release name inside the store.
func (s Site) Release(name string) string {
	return filepath.Join(s.Store, releasesDir, name)
}

// releaseName is the name of a release: the time of its switch and a
// random suffix (newRelease). Only entries of this name in releases/ are
// ever removed.
var releaseName = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$`)

// newRelease names a release switched in at now. The name's form is the
// one the documentation shows; it sorts by time.
func newRelease(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// linkTarget is what the link at Dir holds for the release name: relative,
// so that the parent directory can be moved or mounted elsewhere whole.
func (s Site) linkTarget(name string) string {
	return filepath.Join(s.storeBase(), releasesDir, name)
}

// releaseOf is the release a link target of the provider's names, or "".
func (s Site) releaseOf(target string) string {
	name, ok := strings.CutPrefix(target, filepath.Join(s.storeBase(), releasesDir)+string(filepath.Separator))
	if !ok || name == "" || strings.ContainsAny(name, `/\`) {
		return ""
	}
	return name
}
