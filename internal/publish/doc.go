// Package publish serves a tree of files at a path that switches from one
// complete tree to the next in a single step, and keeps a record of what it
// wrote, so that it never deletes or replaces anything else.
//
// The served path, dir, is a symbolic link into a store beside it,
// ".<name>.docsadmin", which holds the releases (one complete tree each), a
// staging area for the tree being written, the records of each release, a
// lock, and a marker, site.json, that names the path the store serves and
// the owner that publishes there. A first publication makes the link where
// nothing is; a later switch makes the new link in the store and exchanges
// it with the old one in one step, then checks that what it took out is the
// provider's own link, and puts it back otherwise. Every lookup of dir
// resolves to the old tree or to the new one, never to neither or to a mix.
// The previous release is kept until the next switch, for servers that
// resolved the old link a moment before; older ones are removed then.
//
// A run holds the store's lock from Stage to Switch or Abandon. A store
// that never published, holds only what the provider makes, and whose lock
// is free was left by a run killed before its first switch, and the next
// Stage takes it over; a store whose lock is held is being published by
// another run.
//
// The files follow a publication's steps, each standing on those below it:
//
//   - site.go: locate. A Site's paths, the names of what the provider makes
//     in a store, and the name of a release.
//   - store.go: the store. Its handles (opened), its marker, which of its
//     entries are the provider's (storeEntryKind), its checks, the removal
//     of its own entries.
//   - inspect.go: inspect. What is at dir and in the store (Inspect), and
//     the words for what the provider did not write (Describe).
//   - leftovers.go: what killed runs left, told from a living run by its
//     lock.
//   - errors.go: the refusals a caller tells apart.
//   - paths.go: where a site may never be (PathProblem), and two sites
//     that collide (Overlap).
//   - stage.go: stage. Stage claims the store and returns the tree to
//     write; Abandon undoes it.
//   - records.go: records. A release's records, written beside it by
//     Switch and read back by the refresh.
//   - switch.go: switch. The tree made durable, moved into the releases,
//     and the link switched to it.
//   - withdraw.go: withdraw. The link and the store removed, when they are
//     the owner's.
//
// Below them all, package confined acts on one name at a time in a
// directory handle (os.Root): a name is used only after Lstat finds the
// kind that is expected there, and a directory or file opened must be the
// one found, so that no link in the store or at dir is followed and nothing
// but entries of the provider's names and kinds is removed. It knows nothing
// of sites. The renames between two handles, the one safe open of a regular
// file and the temporary names beside a file are localfile's; the store's
// own entries, temporary ones included, are named and told apart in one
// place, storeEntryKind (store.go).
//
// What goes by path, and why. Each operation opens the directory that holds
// dir by its path once (Site.open; Stage makes it by path when missing);
// every read, write, rename and removal after that goes through that handle
// and the store's. Locating a site and refusing a path go by path before
// anything is written, and write nothing: Locate makes dir absolute (the
// working directory) and resolves the links of the directories above it,
// so that two sites are compared where they really are, and PathProblem
// compares dir with the working and home directories and looks, by Lstat,
// for a store at or beside each directory above it (as written and as
// resolved); Stage checks again through handles. On
// Windows, which has no rename relative to a directory handle, a rename
// between two handles (the tree into the releases, the new link into place,
// a withdrawn link aside) joins the handles' paths; Exchange is not
// available there, so dir is checked again just before the rename over it.
//
// Tests act at the one moment they cannot reach from outside, after the
// tree is durable and before the link switches, through publishtest.
package publish
