package localfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// nonBlocking has no meaning here: there are no FIFOs in a directory.
const nonBlocking = 0

// dirOnly adds nothing here: there are no FIFOs in a directory.
const dirOnly = ""

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

// Rename renames from in fromDir to to in toDir, replacing a link at to.
// Windows cannot rename over a directory link, so the old one is removed
// first: the name is missing for that moment.
func Rename(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	if err := rename(fromDir, from, toDir, to); err == nil {
		return nil
	}
	if err := toDir.Remove(to); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return rename(fromDir, from, toDir, to)
}

// rename renames through the handle where both names are in one; between
// two handles this system has no rename relative to a directory handle, and
// the names are joined to the handles' paths.
func rename(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	if fromDir == toDir {
		return fromDir.Rename(from, to)
	}
	return os.Rename(filepath.Join(fromDir.Name(), from), filepath.Join(toDir.Name(), to))
}

// Exchange is not available here (see Rename).
func Exchange(*os.Root, string, *os.Root, string) error { return errors.ErrUnsupported }

// RenameNoReplace renames only while nothing is at to: a check, then the
// rename, which here never removes what is at to (as Rename would).
func RenameNoReplace(fromDir *os.Root, from string, toDir *os.Root, to string) error {
	if err := nothingAt(toDir, from, to); err != nil {
		return err
	}
	return rename(fromDir, from, toDir, to)
}
