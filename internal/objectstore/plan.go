package objectstore

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// The order of a publication's uploads, so that a reader never sees a page
// before what it refers to: the files pages load (scripts, styles, fonts,
// images), then pages the store lacks (no published page links to them
// yet), then pages it holds in another version (which may now link to the
// new ones), then the root's index, the site's entry point.
const (
	phaseAssets = iota
	phaseNewPages
	phaseChangedPages
	phaseRootIndex
	uploadPhases
)

// The order of a publication's deletions, after every upload: pages first,
// and only then the files they referred to, so that a stale page that a
// reader holds never loses its styles.
const (
	phaseDeletePages = iota
	phaseDeleteAssets
	deletePhases
)

// pageExtensions are the files that refer to other files by name: pages,
// their RSC payloads, sitemaps and indexes. Everything else is referred
// to.
var pageExtensions = map[string]bool{".html": true, ".htm": true, ".txt": true, ".rsc": true, ".xml": true, ".json": true}

func isPage(key string) bool { return pageExtensions[strings.ToLower(path.Ext(key))] }

// rootIndex is the site's entry point, uploaded last.
const rootIndex = "index.html"

// diff is what a publication does: uploads and deletions by phase, and
// what stops it or stays.
type diff struct {
	uploads   [uploadPhases][]string
	listed    map[string]bool // uploads to keys the listing holds: overwritten, not created
	deletes   [deletePhases][]string
	conflicts []string // keys the site needs that hold objects the provider did not write
	left      []string // the provider's objects that the new site lacks, changed since by someone else: left, and no longer the provider's
	unchanged int
}

// planPublication compares the listing with what the provider owns (a
// trusted record's files, or none) and the new site's files.
// aliases maps a page's extra keys to the page.
func planPublication(files map[string]site.File, listing map[string]Object, rec *Record, aliases map[string]string) *diff {
	d := &diff{listed: map[string]bool{}}
	own := owned(rec)
	var pending map[string]bool
	if rec != nil {
		pending = rec.pendingSet()
	}
	for key, f := range files {
		obj, isListed := listing[key]
		entry, isOwned := own[key]
		switch {
		case isListed && !isOwned:
			d.conflicts = append(d.conflicts, key)
			continue
		case isListed && !pending[key] && obj.matches(entry) && entry.SHA256 == f.SHA256 && entry.Size == f.Size:
			d.unchanged++
			continue
		}
		d.listed[key] = isListed
		phase := phaseAssets
		source := key
		if of, ok := aliases[key]; ok {
			source = of
		}
		switch {
		case key == rootIndex:
			phase = phaseRootIndex
		case isPage(source) && isListed:
			phase = phaseChangedPages
		case isPage(source):
			phase = phaseNewPages
		}
		d.uploads[phase] = append(d.uploads[phase], key)
	}
	for key, entry := range own {
		if _, kept := files[key]; kept {
			continue
		}
		obj, isListed := listing[key]
		switch {
		case !isListed:
			// Gone already.
		case !obj.matches(entry):
			d.left = append(d.left, key)
		case isPage(key) || path.Ext(key) == "":
			// A key without an extension is a page's alias.
			d.deletes[phaseDeletePages] = append(d.deletes[phaseDeletePages], key)
		default:
			d.deletes[phaseDeleteAssets] = append(d.deletes[phaseDeleteAssets], key)
		}
	}
	for i := range d.uploads {
		slices.Sort(d.uploads[i])
	}
	for i := range d.deletes {
		slices.Sort(d.deletes[i])
	}
	slices.Sort(d.conflicts)
	slices.Sort(d.left)
	return d
}

func (d *diff) uploadCount() int {
	n := 0
	for _, keys := range d.uploads {
		n += len(keys)
	}
	return n
}

func (d *diff) deleteCount() int {
	n := 0
	for _, keys := range d.deletes {
		n += len(keys)
	}
	return n
}

// allUploads is every key uploaded, in order.
func (d *diff) allUploads() []string {
	var out []string
	for _, keys := range d.uploads {
		out = append(out, keys...)
	}
	return out
}

// someKeys names at most ten keys, and how many more there are.
func someKeys(prefix string, keys []string) string {
	const shown = 10
	quoted := make([]string, 0, shown)
	for _, k := range keys[:min(len(keys), shown)] {
		quoted = append(quoted, fmt.Sprintf("%q", prefix+k))
	}
	s := strings.Join(quoted, ", ")
	if len(keys) > shown {
		s += fmt.Sprintf(" and %d more", len(keys)-shown)
	}
	return s
}

// Aliases are the extensionless keys of the site's pages ("guides" for
// guides/index.html), for the stores whose websites never add .html to a
// URL; a route that is a file's own name has none.
func Aliases(m *site.Manifest) map[string]string {
	out := map[string]string{}
	for route, file := range m.Routes() {
		if _, isFile := m.File(route); route != "" && !isFile {
			out[route] = file
		}
	}
	return out
}
