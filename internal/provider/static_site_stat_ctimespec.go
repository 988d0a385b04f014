//go:build darwin || freebsd || netbsd

package provider

import (
	"io/fs"
	"syscall"
)

// statOf is the stat data of a file that a refresh compares, as git's index
// records it; false where the system does not give it.
func statOf(info fs.FileInfo) (fileStat, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}, false
	}
	return fileStat{Mtime: info.ModTime().UnixNano(), Ctime: st.Ctimespec.Nano(), Ino: uint64(st.Ino)}, true //nolint:unconvert // not uint64 on every system
}
