// Package sitetree checks a static site's release on disk against the
// records written beside it before its switch, without a request: the
// manifest (every file's size and digests, which manifest_file names for
// sync tools) and the stat record (every file's stat data, compared first,
// as git's index does, so that an unchanged file is not read). The tree is
// walked through a handle of each directory: no name found on disk leads
// out of the tree, no link is followed, and nothing but directories and
// regular files is opened. What differs is a Drift that names the first
// files of each kind.
package sitetree
