package archive

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The kinds of unservable archive. Every error verification returns for the
// archive's content is an *Error whose Kind is one of these, so callers test
// with errors.Is(err, archive.ErrUnsafePath) and read the entry with
// errors.As.
var (
	// ErrNotTarGz: the bytes are not a gzip'd tar at all (a zip, an HTML or
	// XML error page, a plain tar, another compressor).
	ErrNotTarGz = errors.New("not a gzip'd tar archive")
	// ErrCorrupt: the gzip or tar stream is truncated or damaged.
	ErrCorrupt = errors.New("truncated or corrupt archive")
	// ErrEmpty: no bytes, or a tar without entries.
	ErrEmpty = errors.New("empty archive")
	// ErrNoIndex: no regular file index.html at the archive root.
	ErrNoIndex = errors.New("no index.html at the archive root")
	// ErrUnsafePath: an entry name that is absolute or climbs with "..".
	ErrUnsafePath = errors.New("entry path escapes the archive root")
	// ErrUnsafeLink: a symbolic or hard link that points outside the root,
	// is absolute, is empty or loops, or a hard link to a directory or to
	// an entry not created before it.
	ErrUnsafeLink = errors.New("link escapes the archive root")
	// ErrAmbiguous: an archive that unpackers read differently, so that
	// what was verified is not what a deployment unpacks: sparse files,
	// pax records or GNU long names that disagree, data after the end of
	// the archive or in a second gzip member, a name defined twice, a path
	// through a symbolic link, a hard link to a symbolic link.
	ErrAmbiguous = errors.New("archive that unpackers read differently")
	// ErrSpecialFile: a device, a FIFO or an entry type a site never needs.
	ErrSpecialFile = errors.New("special file in archive")
	// ErrLimit: more entries, longer names or more unpacked bytes than the
	// Limits allow.
	ErrLimit = errors.New("archive exceeds a limit")
	// ErrRead: the reader under the archive failed (network, disk); the
	// archive itself may be fine.
	ErrRead = errors.New("reading the archive failed")
)

// Error is an unservable archive: what kind of problem, in which entry, and
// why in plain words.
type Error struct {
	// Kind is one of the Err* values above.
	Kind error
	// Entry is the offending entry's name as the archive spells it, or "".
	// It can be long and hold any byte: show it through Error, which quotes
	// and shortens it.
	Entry string
	// Reason says what is wrong, in words meant for the user.
	Reason string
	// Err is the underlying cause, if any (a gzip, tar or read error).
	Err error
	// Cap names the limit of Limits an ErrLimit met, when a setting of
	// the caller sets it: "" for the fixed ones.
	Cap Cap
}

// Cap is a limit of Limits that a caller may set.
type Cap string

// CapUnpackedBytes is Limits.MaxUnpackedBytes.
const CapUnpackedBytes Cap = "unpacked bytes"

func (e *Error) Error() string {
	var b strings.Builder
	if e.Kind != ErrRead { // a failed read says nothing of the archive
		b.WriteString("unservable archive: ")
	}
	if e.Entry != "" {
		b.WriteString("entry ")
		b.WriteString(quoteName(e.Entry))
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	if e.Err != nil {
		b.WriteString(" (")
		b.WriteString(e.Err.Error())
		b.WriteString(")")
	}
	return b.String()
}

// Is matches the error's Kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// maxShownName is how many bytes of an entry name an error shows.
const maxShownName = 120

// quoteName returns an entry name for messages: valid UTF-8, quoted with
// control characters escaped, and cut to a readable length.
func quoteName(name string) string {
	size := len(name)
	if size <= maxShownName {
		return strconv.Quote(strings.ToValidUTF8(name, "\uFFFD"))
	}
	cut := maxShownName
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return strconv.Quote(strings.ToValidUTF8(name[:cut], "\uFFFD")) + fmt.Sprintf("… (%d bytes)", size)
}

// ChecksumError reports an archive whose SHA-256 is not the one expected.
type ChecksumError struct {
	Want, Got string // lower-case hex
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("the archive's SHA-256 is %s, expected %s: it changed since the digest was taken, or the link serves another file", e.Got, e.Want)
}

// HTTPError reports a download answered with a status other than 200. It
// names the link's host only: the query of a presigned link is its secret.
type HTTPError struct {
	StatusCode int
	Status     string // e.g. "403 Forbidden"
	Host       string
	// Code is the object store's error code from the body (AccessDenied,
	// ExpiredToken, NoSuchKey...), when it sent one.
	Code string
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("download from %s: HTTP %s", e.Host, e.Status)
	if e.Code != "" {
		msg += " (" + e.Code + ")"
	}
	switch e.StatusCode {
	case 401, 403:
		msg += ": the link is refused; it may have expired, so request a new one"
	case 404:
		msg += ": nothing is served at this link; the bundle may have been deleted"
	}
	return msg
}
