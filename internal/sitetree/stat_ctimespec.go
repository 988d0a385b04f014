//go:build darwin || freebsd || netbsd

package sitetree

import (
	"io/fs"
	"syscall"
)

// StatOf is the stat data of a file that a refresh compares, as git's index
// records it; false where the system does not give it.
func StatOf(info fs.FileInfo) (Stat, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return Stat{}, false
	}
	return Stat{Mtime: info.ModTime().UnixNano(), Ctime: st.Ctimespec.Nano(), Ino: uint64(st.Ino)}, true //nolint:unconvert // not uint64 on every system
}
