package site

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// DefaultContentType is the type of a file whose extension the table does
// not hold: browsers download it rather than guess.
const DefaultContentType = "application/octet-stream"

// contentTypes maps a lower-case extension to the Content-Type a host sends.
// Text types name their charset: the export writes UTF-8. .ico is
// image/x-icon, the type nginx, Apache and browsers use, rather than IANA's
// image/vnd.microsoft.icon. .rsc files are React Server Component payloads,
// which a static export's client router fetches as text/x-component.
var contentTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".mjs":         "text/javascript; charset=utf-8",
	".json":        "application/json",
	".map":         "application/json",
	".xml":         "application/xml",
	".txt":         "text/plain; charset=utf-8",
	".rsc":         "text/x-component",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".jpg":         "image/jpeg",
	".jpeg":        "image/jpeg",
	".gif":         "image/gif",
	".webp":        "image/webp",
	".avif":        "image/avif",
	".ico":         "image/x-icon",
	".woff":        "font/woff",
	".woff2":       "font/woff2",
	".ttf":         "font/ttf",
	".otf":         "font/otf",
	".pdf":         "application/pdf",
	".wasm":        "application/wasm",
	".webmanifest": "application/manifest+json",
}

// ContentTypes returns a copy of the table from extension (with its dot,
// lower case) to Content-Type, so that a host's configuration can be checked
// against it.
func ContentTypes() map[string]string {
	return maps.Clone(contentTypes)
}

// ContentType is the Content-Type a host sends for the file at p, from its
// extension in any case; DefaultContentType when the table has none.
func ContentType(p string) string {
	if t, ok := contentTypes[strings.ToLower(path.Ext(p))]; ok {
		return t
	}
	return DefaultContentType
}

// The cache policies CacheControl chooses from.
const (
	// CacheImmutable is for files whose name changes with their content:
	// a year, and never revalidated.
	CacheImmutable = "public, max-age=31536000, immutable"
	// CacheShort is for files that keep their name when the content
	// changes and that a new export changes: pages, their RSC payloads
	// (.txt beside each page in a static export, or .rsc), text files such
	// as robots.txt and llms.txt, the sitemap and the JSON files at the root
	// (the search index). Five minutes, then revalidated.
	CacheShort = "public, max-age=300, must-revalidate"
	// CacheDefault is for every other asset: an hour.
	CacheDefault = "public, max-age=3600"
)

// CacheControl is the Cache-Control header for the file at p, by these
// rules, in order:
//
//  1. a page (.html, .htm), an RSC payload or text file (.rsc, .txt: a
//     static export writes each page's payload beside it as .txt, and
//     robots.txt and llms.txt are rewritten by every export), a sitemap
//     (sitemap*.xml), or a .json file at the root (search-index.json and
//     the like): CacheShort;
//  2. a file under _next/static/, or whose name holds a content hash (a run
//     of at least 8 hexadecimal digits with a digit and a letter, between
//     dots, dashes or underscores: app.3f9a2c1b.js, main-3F9A2C1B8E.css):
//     CacheImmutable;
//  3. anything else: CacheDefault.
func CacheControl(p string) string {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	base := path.Base(p)
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	switch {
	case ext == ".html" || ext == ".htm" || ext == ".rsc" || ext == ".txt",
		strings.HasPrefix(lower, "sitemap") && ext == ".xml",
		ext == ".json" && !strings.Contains(p, "/"):
		return CacheShort
	case strings.HasPrefix(p, "_next/static/") || hashedName(base):
		return CacheImmutable
	}
	return CacheDefault
}

// hashedName reports whether a file name holds a content hash: a token of
// at least 8 hexadecimal digits, with at least one digit and one letter,
// before the extension.
func hashedName(base string) bool {
	stem := strings.TrimSuffix(base, path.Ext(base))
	for _, token := range strings.FieldsFunc(stem, func(r rune) bool { return r == '.' || r == '-' || r == '_' }) {
		if hashToken(token) {
			return true
		}
	}
	return false
}

func hashToken(token string) bool {
	if len(token) < 8 {
		return false
	}
	digits, letters := 0, 0
	for _, c := range token {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
			letters++
		default:
			return false
		}
	}
	return digits > 0 && letters > 0
}

// Route is the extensionless URL path, without a leading slash, that the
// page at p answers to, as canonical and sitemap URLs spell it:
// guides/getting-started.html answers to guides/getting-started,
// guides/index.html to guides, and index.html to the root, "". A file that
// is not an .html page is no route.
func Route(p string) (string, bool) {
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if !strings.HasSuffix(p, ".html") || p == ".html" || strings.HasSuffix(p, "/.html") {
		return "", false
	}
	route := strings.TrimSuffix(p, ".html")
	switch {
	case route == "index":
		return "", true
	case strings.HasSuffix(route, "/index"):
		return strings.TrimSuffix(route, "/index"), true
	}
	return route, true
}

// File is one regular file of a site, as a host serves it.
type File struct {
	Path         string // slash-separated, relative to the site's root
	Size         int64
	SHA256       string // lower-case hex
	MD5          string // lower-case hex
	MD5Base64    string // standard base64, as Content-MD5 carries it
	ContentType  string
	CacheControl string
}

// Manifest lists a site's regular files.
type Manifest struct {
	files  map[string]File
	folded map[string]foldedEntry // FoldedName of every file and directory → its entry, to find collisions
	size   int64
	dirs   int // directories, named or above a file, each once
}

// foldedEntry is the file or directory a folded name was first seen as,
// and the entry that named it.
type foldedEntry struct {
	name string
	dir  bool
	by   string // the file or directory entry whose path holds it
}

// NewManifest returns an empty manifest.
func NewManifest() *Manifest {
	return &Manifest{files: map[string]File{}, folded: map[string]foldedEntry{}}
}

// WellKnown is the one folder whose name starts with a dot that a site may
// hold: RFC 8615's /.well-known/ (security.txt, assetlinks.json).
const WellKnown = ".well-known"

// NameProblem says why a host could not serve the file at p (slash-separated,
// relative to the root) as the same file everywhere, or "" when it can: an
// empty, "." or ".." segment (hosts and CDNs normalise them away, and a page
// ...html would answer at the route ".."); a segment that starts with a dot
// outside /.well-known/ (.git/ exposes a repository and runs its hooks,
// .htaccess reconfigures Apache, other dotfiles are hidden by hosts and
// sync tools); a backslash (a separator on Windows and to some CDNs); a
// control, format or bidirectional character (they hide or reorder what a
// name shows).
func NameProblem(p string) string {
	return nameProblem(p, false)
}

// DirNameProblem is NameProblem for the directory at p: the same rules,
// except that .well-known itself is a directory a site may hold.
func DirNameProblem(p string) string {
	return nameProblem(p, true)
}

func nameProblem(p string, dir bool) string {
	segments := strings.Split(p, "/")
	for i, seg := range segments {
		switch {
		case seg == "" || seg == "." || seg == "..":
			return "an empty, \".\" or \"..\" path segment, which hosts and CDNs resolve away"
		case strings.HasPrefix(seg, ".") && !(i == 0 && seg == WellKnown && (dir || len(segments) > 1)):
			return "a name that starts with a dot: a docs site holds no dotfiles (.git/ would expose a repository and run its hooks, " +
				".htaccess would reconfigure the server); only files under " + WellKnown + "/ are accepted"
		}
	}
	for _, r := range p {
		switch {
		case r == '\\':
			return "a backslash, which Windows and some CDNs read as a path separator"
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Bidi_Control, r) || r == '\uFFFD':
			return fmt.Sprintf("the character %U, a control, format or bidirectional character or an invalid byte", r)
		}
	}
	return ""
}

// folder is Unicode full case folding (σ and ς, s and ſ, k and the Kelvin
// sign K, ss and ß fold alike); it is stateless and safe for concurrent use.
var folder = cases.Fold()

// FoldedName is p as case-insensitive file systems and hosts compare names
// (macOS, Windows, some object store front ends): each segment in Unicode's
// canonical caseless form (NFD, full case folding, then NFC). Two files
// whose folded names are equal collide there, and so do a file and a
// directory: the folded name of a directory is a prefix of its files'.
func FoldedName(p string) string {
	return strings.Join(foldedSegments(p), "/")
}

// foldedSegments folds every segment of p on its own, so that the folded
// segments of a directory are a prefix of its files'.
func foldedSegments(p string) []string {
	segments := strings.Split(p, "/")
	for i, seg := range segments {
		segments[i] = norm.NFC.String(folder.String(norm.NFD.String(seg)))
	}
	return segments
}

// NameError is a file a host cannot serve as named.
type NameError struct {
	Path   string
	Reason string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("%q cannot be served as named: %s", e.Path, e.Reason)
}

// Add records the file at p (slash-separated, relative to the root) with
// its size and digests; a second Add of the same path replaces the first.
// A name NameProblem refuses, or one that collides with an earlier file or
// directory once normalised and case-folded (Changelog.html and
// changelog.html, or a file guides and a directory Guides/), is a
// *NameError and is not recorded.
func (m *Manifest) Add(p string, size int64, sha256 [32]byte, md5 [16]byte) error {
	if reason := NameProblem(p); reason != "" {
		return &NameError{Path: p, Reason: reason}
	}
	if err := m.claim(p, false); err != nil {
		return err
	}
	if old, ok := m.files[p]; ok {
		m.size -= old.Size
	}
	m.files[p] = File{
		Path:         p,
		Size:         size,
		SHA256:       hex.EncodeToString(sha256[:]),
		MD5:          hex.EncodeToString(md5[:]),
		MD5Base64:    base64.StdEncoding.EncodeToString(md5[:]),
		ContentType:  ContentType(p),
		CacheControl: CacheControl(p),
	}
	m.size += size
	return nil
}

// AddDir checks the directory at p, one an archive names without a file in
// it: a name DirNameProblem refuses, or one that collides with a file or
// directory once normalised and case-folded, is a *NameError. The
// directory is no file of the manifest, but later files are checked
// against its name.
func (m *Manifest) AddDir(p string) error {
	if reason := DirNameProblem(p); reason != "" {
		return &NameError{Path: p, Reason: reason}
	}
	return m.claim(p, true)
}

// claim records the folded names of the entry at p and of its directories,
// unless one is already another file or directory's: then nothing is
// recorded. It folds p once and looks up one name per segment.
func (m *Manifest) claim(p string, dir bool) error {
	if m.folded == nil {
		return &NameError{Path: p, Reason: "the manifest was completed before it"}
	}
	segments := strings.Split(p, "/")
	folded := foldedSegments(p)
	keys := make([]string, len(segments))
	for i := range segments {
		keys[i] = strings.Join(folded[:i+1], "/")
		name := strings.Join(segments[:i+1], "/")
		isDir := dir || i < len(segments)-1
		other, ok := m.folded[keys[i]]
		if !ok || other.name == name && other.dir == isDir {
			continue
		}
		return &NameError{Path: p, Reason: collision(name, name != p, other) + " on case-insensitive or Unicode-normalising systems " +
			"(macOS, Windows, some hosts), where one would overwrite the other"}
	}
	for i := range segments {
		if _, ok := m.folded[keys[i]]; !ok {
			isDir := dir || i < len(segments)-1
			m.folded[keys[i]] = foldedEntry{name: strings.Join(segments[:i+1], "/"), dir: isDir, by: p}
			if isDir {
				m.dirs++
			}
		}
	}
	return nil
}

// collision words the entry's name, or the name of its directory when
// parent, that folds as other does.
func collision(name string, parent bool, other foldedEntry) string {
	what := "it"
	if parent {
		what = "its directory " + strconv.Quote(name)
	}
	switch {
	case !other.dir && !parent:
		return fmt.Sprintf("it is the same name as %q", other.name)
	case !other.dir:
		return fmt.Sprintf("%s is the same name as the file %q", what, other.name)
	case other.by == other.name:
		return fmt.Sprintf("%s is the same name as the directory %q", what, other.name)
	}
	return fmt.Sprintf("%s is the same name as the directory %q (of %q)", what, other.name, other.by)
}

// Complete releases what Add and AddDir need to check names against each
// other: after it, the manifest takes no entry, and holds little more than
// its files.
func (m *Manifest) Complete() { m.folded = nil }

// Len is the number of files.
func (m *Manifest) Len() int { return len(m.files) }

// Dirs is the number of directories the tree holds, the root aside: those
// named by the archive and those above its files, each counted once.
func (m *Manifest) Dirs() int { return m.dirs }

// Size is the sum of the files' sizes.
func (m *Manifest) Size() int64 { return m.size }

// Files returns the files by path.
func (m *Manifest) Files() map[string]File { return maps.Clone(m.files) }

// Paths returns the files' paths in order.
func (m *Manifest) Paths() []string {
	out := make([]string, 0, len(m.files))
	for p := range m.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Routes maps every page's route to its file. When two pages answer to one
// route, guides.html and guides/index.html, the first wins: the API
// documents that /guides is /guides.html.
func (m *Manifest) Routes() map[string]string {
	routes := map[string]string{}
	for p := range m.files {
		route, ok := Route(p)
		if !ok {
			continue
		}
		if other, taken := routes[route]; taken && !strings.HasSuffix(other, "/index.html") && other != "index.html" {
			continue
		}
		routes[route] = p
	}
	return routes
}

// fileJSON is a file's entry in a manifest's JSON object.
type fileJSON struct {
	Size         int64  `json:"size"`
	SHA256       string `json:"sha256"`
	MD5          string `json:"md5"`
	MD5Base64    string `json:"md5_base64"`
	ContentType  string `json:"content_type"`
	CacheControl string `json:"cache_control"`
}

// EncodeFiles is files as one JSON object mapping each file's path to its
// size, sha256, md5, md5_base64, content_type and cache_control (the shape
// of the files attribute of docsadmin_static_site_manifest), keys in order,
// as json.Marshal writes a map: the same files always give the same bytes.
// Written entry by entry, so that a site of 100,000 files costs its bytes
// and little more.
func EncodeFiles(files map[string]File) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(files)*256 + 2)
	b.WriteByte('{')
	for i, p := range slices.Sorted(maps.Keys(files)) {
		f := files[p]
		key, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		entry, err := json.Marshal(fileJSON{Size: f.Size, SHA256: f.SHA256, MD5: f.MD5, MD5Base64: f.MD5Base64, ContentType: f.ContentType, CacheControl: f.CacheControl})
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(entry)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// JSON is the manifest's files as EncodeFiles writes them.
func (m *Manifest) JSON() ([]byte, error) { return EncodeFiles(m.files) }

// File is the file at p, if the manifest holds one.
func (m *Manifest) File(p string) (File, bool) {
	f, ok := m.files[p]
	return f, ok
}
