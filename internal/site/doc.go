// Package site describes an unpacked static site as a static host serves it:
// the content type and cache policy of every file (ContentType,
// CacheControl), the extensionless URL every page answers to (Route), and a
// manifest of the files with their digests (Manifest). Every rule is pinned
// in this package, the same on every system: it must never read the
// machine's MIME database, and never accept a name that two hosts would
// serve differently.
//
// The names every host serves alike, for files and directories alike
// (NameProblem, DirNameProblem): no dot segments, no dotfiles outside
// .well-known/, no control characters or backslashes, and no two names that
// collide under Unicode case folding or normalisation ("σ.html" and
// "ς.html", a file "guides" and a directory "Guides/"), found with one map
// of folded path prefixes and one lookup per segment. A manifest counts
// each directory once (Dirs), named or above a file, since a refresh walks
// every directory.
package site
