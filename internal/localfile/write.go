package localfile

import (
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
)

// tempInfix joins a name and a random suffix in a temporary name.
const tempInfix = ".tmp-"

// TempName is a new temporary name for an entry that is to take the name
// name in the same directory (Write's file before its rename, a file moved
// aside by RemoveFound, a lock before it is in place): hidden, and unique
// by a random suffix, so that it is made new and never meets another's.
// TempOf recognises it, and only it.
func TempName(name string) string {
	return "." + name + tempInfix + rand.Text()
}

// TempOf is the name a temporary entry was made for by TempName, and
// whether entry is such a name at all: what a killed run may have left,
// which its maker may remove and nobody else's files.
func TempOf(entry string) (name string, ok bool) {
	rest, ok := strings.CutPrefix(entry, ".")
	if !ok {
		return "", false
	}
	i := strings.LastIndex(rest, tempInfix)
	if i <= 0 {
		return "", false
	}
	name, suffix := rest[:i], rest[i+len(tempInfix):]
	if len(suffix) < randomTextMin || strings.Trim(suffix, randomTextAlphabet) != "" {
		return "", false
	}
	return name, true
}

// rand.Text's alphabet (RFC 4648 base32) and its length today; a later Go
// may make it longer, never shorter.
const (
	randomTextAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	randomTextMin      = 26
)

// Write replaces name in dir with what fill writes, by the durability
// policy: a temporary file beside it, made new (never one that exists),
// filled, given perm, synced, renamed over name, and the directory synced.
// Everything goes through dir, a confined handle: no link in dir is
// followed. On any error the temporary file is removed and name is left as
// it was.
func Write(dir *os.Root, name string, perm fs.FileMode, fill func(io.Writer) error) error {
	tmp := TempName(name)
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	kept := false
	defer func() {
		if !kept {
			_ = f.Close()
			_ = dir.Remove(tmp)
		}
	}()
	if err := fill(f); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil { // the umask may have narrowed it
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	traceStep("sync " + tmp)
	if err := f.Close(); err != nil {
		return err
	}
	if err := dir.Rename(tmp, name); err != nil {
		return err
	}
	traceStep("rename " + tmp + " " + name)
	kept = true
	SyncRoot(dir)
	traceStep("sync .")
	return nil
}

// traceWrite, when set by a test, is told each step of Write that makes it
// durable, in order.
var traceWrite func(step string)

func traceStep(step string) {
	if traceWrite != nil {
		traceWrite(step)
	}
}

// WriteBytes is Write of data.
func WriteBytes(dir *os.Root, name string, perm fs.FileMode, data []byte) error {
	return Write(dir, name, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// SyncRoot makes the renames in the directory of dir durable; best effort:
// a failure loses durability across a power cut, not correctness.
func SyncRoot(dir *os.Root) {
	if d, err := dir.Open("."); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// OpenRootDir opens the directory p as a confined handle, making it (and
// its parents) first when missing.
func OpenRootDir(p string) (*os.Root, error) {
	r, err := OpenDir(p)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, err
		}
		r, err = OpenDir(p)
	}
	return r, err
}

// OpenDir opens the directory p as a confined handle. Anything else at p
// is refused without being opened: os.OpenRoot would wait in the open of a
// FIFO for its writer. The handle's Name ends in "/." on these systems.
func OpenDir(p string) (*os.Root, error) { return os.OpenRoot(p + dirOnly) }

// OpenDirIn is OpenDir of name in dir: a link at name is followed only
// inside dir.
func OpenDirIn(dir *os.Root, name string) (*os.Root, error) { return dir.OpenRoot(name + dirOnly) }

// nothingAt is nil when nothing is at to in toDir, and the error of a
// rename of from over it otherwise.
func nothingAt(toDir *os.Root, from, to string) error {
	if _, err := toDir.Lstat(to); err == nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
