//go:build !unix

package localfile

import (
	"io/fs"
	"os"
)

// openNoFollow opens p for reading; OpenRegular has checked it is a
// regular file and checks again once it is open.
func openNoFollow(p string) (*os.File, error) { return os.Open(p) }

// SyncTree syncs every regular file below dir.
func SyncTree(dir *os.Root) error {
	return fs.WalkDir(dir.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := dir.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
}

// dirOnly adds nothing here: there are no FIFOs in a directory.
const dirOnly = ""
