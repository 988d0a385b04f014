package archive

import (
	"strconv"
	"strings"
)

// Linux refuses longer paths and longer path components: an archive holding
// them cannot be unpacked, whatever its content.
const (
	pathMax = 4096
	nameMax = 255
	// maxLinkHops bounds how many links one path may pass through, as the
	// kernel's MAXSYMLINKS does.
	maxLinkHops = 40
)

// entryParts returns the name's components relative to the unpack
// directory, without "." and empty ones (none for the root itself), or the
// reason the name is unsafe.
func entryParts(name string) ([]string, error) {
	if name == "" {
		return nil, &Error{Kind: ErrUnsafePath, Reason: "an entry has an empty name"}
	}
	if strings.HasPrefix(name, "/") {
		return nil, &Error{Kind: ErrUnsafePath, Entry: name, Reason: "absolute path: it would be written outside the directory the archive is unpacked into"}
	}
	parts := components(name)
	for _, p := range parts {
		if p == ".." {
			return nil, &Error{Kind: ErrUnsafePath, Entry: name, Reason: `path climbs with "..": it could be written outside the directory the archive is unpacked into`}
		}
	}
	return parts, nil
}

// components splits a slash-separated path into its names, dropping empty and
// "." components, keeping "..".
func components(p string) []string {
	var out []string
	for part := range strings.SplitSeq(p, "/") {
		if part != "" && part != "." {
			out = append(out, part)
		}
	}
	return out
}

// checkLength refuses a name or link target (value) of the entry that Linux
// cannot create.
func checkLength(entry, value, what string, limit int) error {
	if len(value) > limit {
		return &Error{Kind: ErrLimit, Entry: entry, Reason: what + " is longer than " + strconv.Itoa(limit) + " bytes"}
	}
	for part := range strings.SplitSeq(value, "/") {
		if len(part) > nameMax {
			return &Error{Kind: ErrLimit, Entry: entry, Reason: what + " has a component longer than 255 bytes, which Linux cannot create"}
		}
	}
	return nil
}

// links records the archive's symbolic links, to resolve them once every
// link is known: a link's meaning depends on links that may come later.
type links struct {
	targets map[string]string // cleaned entry path -> raw target
	order   []string          // entry paths in archive order, for stable errors
	bytes   int               // memory held, roughly
	steps   int               // path components walked by check
}

// Memory and work spent on symbolic links are bounded: a site holds a few
// thousand links at most, each resolved in a few steps.
const (
	maxLinkBytes   = 8 << 20
	linkOverhead   = 128 // map and slice bytes per link
	maxCheckSteps  = 4 << 20
	errLinkBudget  = "the symbolic links are too many or too deep to check"
	errLinkOutside = "resolves outside the archive root"
)

func (l *links) add(p, target string) bool {
	if l.targets == nil {
		l.targets = map[string]string{}
	}
	if _, seen := l.targets[p]; !seen {
		l.order = append(l.order, p)
	}
	l.targets[p] = target
	l.bytes += len(p) + len(target) + linkOverhead
	return l.bytes <= maxLinkBytes
}

// check resolves every symbolic link through the others and reports the first
// that ends outside the root or does not end at all.
func (l *links) check() error {
	for _, p := range l.order {
		if aerr := l.checkOne(p, l.targets[p]); aerr != nil {
			return aerr
		}
	}
	return nil
}

// checkOne resolves the link at p through the links known so far.
func (l *links) checkOne(p, target string) *Error {
	dir := ""
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir = p[:i]
	}
	switch why := l.resolve(dir, target); why {
	case "":
		return nil
	case errLinkBudget:
		return &Error{Kind: ErrLimit, Entry: p, Reason: errLinkBudget}
	default:
		return &Error{Kind: ErrUnsafeLink, Entry: p, Reason: "symbolic link to " + quoteName(target) + " " + why}
	}
}

// resolve walks dir/target component by component from the root, following
// the archive's symbolic links as the kernel would. It returns "" when the
// walk stays inside the root, or why it does not.
func (l *links) resolve(dir, target string) string {
	pending := append(components(dir), components(target)...)
	// cur is the path walked so far; ends[i] is where its first i components
	// end, so that ".." and link expansion cut it without copying.
	var cur []byte
	ends := []int{0}
	hops := 0
	for len(pending) > 0 {
		if l.steps++; l.steps > maxCheckSteps {
			return errLinkBudget
		}
		part := pending[0]
		pending = pending[1:]
		if part == ".." {
			if len(ends) == 1 {
				return errLinkOutside
			}
			ends = ends[:len(ends)-1]
			cur = cur[:ends[len(ends)-1]]
			continue
		}
		if len(cur) > 0 {
			cur = append(cur, '/')
		}
		cur = append(cur, part...)
		next, isLink := l.targets[string(cur)]
		if !isLink {
			ends = append(ends, len(cur))
			continue
		}
		if hops++; hops > maxLinkHops {
			return "passes through more than 40 links, or links form a loop"
		}
		if strings.HasPrefix(next, "/") {
			return "passes through a link to an absolute path"
		}
		cur = cur[:ends[len(ends)-1]]
		pending = append(components(next), pending...)
	}
	return ""
}
