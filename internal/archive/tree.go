package archive

import (
	"fmt"
	"hash/maphash"
	"strings"
)

// pathTree follows an archive's entries as a file system does while an unpacker
// creates them in order, and refuses every entry whose result depends on the
// unpacker: a name defined twice, a name or a hard link's target that passes
// through a symbolic link or a file, a hard link to a link, a directory or
// an entry not yet created. What it accepts unpacks to the same tree with
// GNU tar, bsdtar, busybox tar and Python's tarfile. A symbolic link must
// resolve inside the root when it is created, as Python's data filter judges
// it; Finish then resolves every one again in the final tree, as a server
// will, and checks the home page.
//
// Each verification uses one, and so unpacking applies the same rules.
type pathTree struct {
	maxName int
	seed    maphash.Seed
	// nodes maps a path's hash to what is there. Hashes rather than names
	// keep a million entries within 16 MiB; the seed is random, so no
	// archive can be built to collide, and a collision by chance (about
	// 2^-22 for a million entries) can only refuse an archive.
	nodes   pathSet
	symlink links
	hash    maphash.Hash
	steps   int // path components walked, bounded by maxWalkSteps
}

type nodeKind uint8

const (
	nodeNone nodeKind = iota
	nodeImplicitDir
	nodeDir
	nodeFile
	nodeSymlink
)

func (k nodeKind) String() string {
	switch k {
	case nodeImplicitDir, nodeDir:
		return "directory"
	case nodeFile:
		return "file"
	case nodeSymlink:
		return "symbolic link"
	}
	return "nothing"
}

// maxWalkSteps bounds the path components a pathTree walks in all: a million
// entries ten levels deep walk ten million, while a million names of two
// thousand components each would walk for minutes.
var maxWalkSteps = 64 << 20 // a variable for tests

// maxTreeNodes bounds the paths a pathTree remembers, the directories that names
// imply included: at most 48 MiB while the table grows.
const maxTreeNodes = 2 << 20

// newTree returns an empty pathTree applying the Limits' bound on names.
func (l Limits) newTree() *pathTree {
	l = l.withDefaults()
	t := &pathTree{maxName: l.MaxNameBytes, seed: maphash.MakeSeed()}
	t.hash.SetSeed(t.seed)
	return t
}

// Add records the next entry, or returns an *Error saying why unpacking it
// is unsafe or depends on the unpacker.
func (t *pathTree) Add(e *Entry) error {
	parts, err := entryParts(e.Name)
	if err != nil {
		return err
	}
	if err := checkLength(e.Name, e.Name, "the name", t.maxName); err != nil {
		return err
	}
	if len(parts) == 0 {
		switch e.Type {
		case TypeDir:
			return nil
		case TypeFile:
			return &Error{Kind: ErrUnsafePath, Entry: e.Name, Reason: "a file named as the archive root itself"}
		default:
			return &Error{Kind: ErrUnsafeLink, Entry: e.Name, Reason: "a link named as the archive root itself"}
		}
	}
	kind := nodeFile
	switch e.Type {
	case TypeDir:
		kind = nodeDir
	case TypeSymlink:
		kind = nodeSymlink
		if err := t.linkTarget(e); err != nil {
			return err
		}
		if strings.HasPrefix(e.Linkname, "/") {
			return &Error{Kind: ErrUnsafeLink, Entry: e.Name, Reason: "symbolic link to the absolute path " + quoteName(e.Linkname) + ": on the server it points outside the site"}
		}
	case TypeHardlink:
		if err := t.hardlink(e); err != nil {
			return err
		}
	}
	key, werr := t.walk(e.Name, parts, true)
	if werr != nil {
		return werr
	}
	switch prev := t.nodes.get(key); {
	case prev == nodeNone:
	case kind == nodeDir && (prev == nodeDir || prev == nodeImplicitDir):
		// A directory named again, or after the entries inside it:
		// every unpacker keeps the one directory.
	default:
		return &Error{Kind: ErrAmbiguous, Entry: e.Name, Reason: fmt.Sprintf("a %s where an earlier entry made a %s; unpackers disagree on which one stays", kind, prev)}
	}
	if t.nodes.n >= maxTreeNodes {
		return &Error{Kind: ErrLimit, Entry: e.Name, Reason: fmt.Sprintf("more than %d files, directories and links, counting the directories that names imply", maxTreeNodes)}
	}
	if kind == nodeSymlink {
		p := strings.Join(parts, "/")
		// Resolved now as well as at the end: Python's data filter and
		// bsdtar judge a link by what exists when they create it.
		if aerr := t.symlink.checkOne(p, e.Linkname); aerr != nil {
			aerr.Entry = e.Name
			return aerr
		}
		if !t.symlink.add(p, e.Linkname) {
			return &Error{Kind: ErrLimit, Entry: e.Name, Reason: fmt.Sprintf("the symbolic links' names and targets exceed %d MiB", maxLinkBytes>>20)}
		}
	}
	t.nodes.set(key, kind)
	return nil
}

// walk hashes the path's components in turn and checks that every parent is
// a directory, creating the missing ones when create is set, as unpackers
// do. It returns the hash of the whole path.
func (t *pathTree) walk(name string, parts []string, create bool) (uint64, *Error) {
	t.hash.Reset()
	if t.steps += len(parts); t.steps > maxWalkSteps {
		return 0, &Error{Kind: ErrLimit, Entry: name, Reason: fmt.Sprintf("the names hold more than %d path components in all", maxWalkSteps)}
	}
	for i, part := range parts {
		if i > 0 {
			t.hash.WriteByte('/')
		}
		t.hash.WriteString(part)
		key := t.hash.Sum64()
		if i == len(parts)-1 {
			return key, nil
		}
		switch t.nodes.get(key) {
		case nodeNone:
			if create {
				if t.nodes.n >= maxTreeNodes {
					return 0, &Error{Kind: ErrLimit, Entry: name, Reason: fmt.Sprintf("more than %d files, directories and links, counting the directories that names imply", maxTreeNodes)}
				}
				t.nodes.set(key, nodeImplicitDir)
			}
		case nodeSymlink:
			return 0, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "its path passes through the symbolic link " + quoteName(strings.Join(parts[:i+1], "/")) + " of an earlier entry; unpackers follow it, refuse it or replace it"}
		case nodeFile:
			return 0, &Error{Kind: ErrAmbiguous, Entry: name, Reason: "its path passes through " + quoteName(strings.Join(parts[:i+1], "/")) + ", which an earlier entry made a file; unpackers fail or replace it"}
		}
	}
	return 0, nil // unreachable: parts is not empty
}

func (t *pathTree) linkTarget(e *Entry) error {
	if e.Linkname == "" {
		return &Error{Kind: ErrUnsafeLink, Entry: e.Name, Reason: "a link with an empty target"}
	}
	return checkLength(e.Name, e.Linkname, "the link target", t.maxName)
}

// hardlink checks that a hard link's target is a regular file that an
// earlier entry created: the only target on which unpackers agree.
func (t *pathTree) hardlink(e *Entry) error {
	if err := t.linkTarget(e); err != nil {
		return err
	}
	target, err := entryParts(e.Linkname)
	if err != nil || len(target) == 0 {
		return &Error{Kind: ErrUnsafeLink, Entry: e.Name, Reason: "hard link to " + quoteName(e.Linkname) + ", which is outside the archive root"}
	}
	key, aerr := t.walk(e.Linkname, target, false)
	if aerr != nil {
		return &Error{Kind: aerr.Kind, Entry: e.Name, Reason: "hard link to " + quoteName(e.Linkname) + ": " + aerr.Reason}
	}
	switch t.nodes.get(key) {
	case nodeFile:
		return nil
	case nodeSymlink:
		return &Error{Kind: ErrAmbiguous, Entry: e.Name, Reason: "hard link to the symbolic link " + quoteName(e.Linkname) + "; some unpackers link the symbolic link, others the file it points to"}
	case nodeDir, nodeImplicitDir:
		return &Error{Kind: ErrUnsafeLink, Entry: e.Name, Reason: "hard link to the directory " + quoteName(e.Linkname) + ", which no file system allows"}
	default:
		return &Error{Kind: ErrUnsafeLink, Entry: e.Name, Reason: "hard link to " + quoteName(e.Linkname) + ", which no earlier entry created; unpackers fail or copy a later entry"}
	}
}

// Finish checks the final tree: every symbolic link resolves inside the
// root, through the others as the kernel would, and index.html is a regular
// file at the root.
func (t *pathTree) Finish() error {
	if err := t.symlink.check(); err != nil {
		return err
	}
	key, _ := t.walk("index.html", []string{"index.html"}, false)
	switch kind := t.nodes.get(key); kind {
	case nodeFile:
		return nil
	case nodeNone:
		return &Error{Kind: ErrNoIndex, Reason: "there is no index.html at the archive root, so the site has no home page (a site packed with its parent directory, e.g. site/index.html, needs repacking from inside it)"}
	default:
		return &Error{Kind: ErrNoIndex, Entry: "index.html", Reason: "there is no index.html file at the archive root: index.html is a " + kind.String() + ", and the home page must be a regular file"}
	}
}

// pathSet is an open-addressing hash table of path hashes, 8 bytes a slot:
// the hash's low 3 bits hold the node's kind, 0 is an empty slot.
type pathSet struct {
	slots []uint64
	n     int
}

func setKey(h uint64) uint64 {
	if h &^= 7; h == 0 {
		h = 8
	}
	return h
}

// find returns the slot of h, or the empty slot where it would go.
func (s *pathSet) find(key uint64) int {
	mask := len(s.slots) - 1
	for i := int(key>>3) & mask; ; i = (i + 1) & mask {
		if v := s.slots[i]; v == 0 || v&^7 == key {
			return i
		}
	}
}

func (s *pathSet) get(h uint64) nodeKind {
	if len(s.slots) == 0 {
		return nodeNone
	}
	return nodeKind(s.slots[s.find(setKey(h))] & 7)
}

func (s *pathSet) set(h uint64, kind nodeKind) {
	if (s.n+1)*4 > len(s.slots)*3 {
		old := s.slots
		s.slots = make([]uint64, max(1024, 2*len(old)))
		for _, v := range old {
			if v != 0 {
				s.slots[s.find(v&^7)] = v
			}
		}
	}
	key := setKey(h)
	i := s.find(key)
	if s.slots[i] == 0 {
		s.n++
	}
	s.slots[i] = key | uint64(kind)
}
