package archive

import (
	"bytes"
	"context"
	"io"
	"os"
)

// The entry points below serve this package's tests alone: production reads
// archives only through Limits' Fetch, FetchFiles, FetchUnpack and Files.

// Verify is verification with the default Limits and nothing written.
func Verify(r io.Reader) (Summary, error) { return Limits{}.Verify(r) }

// Verify is verification under l, with nothing written.
func (l Limits) Verify(r io.Reader) (Summary, error) {
	return l.verify(context.Background(), r, nil, nil)
}

// VerifyContext is Verify bounded by ctx.
func (l Limits) VerifyContext(ctx context.Context, r io.Reader) (Summary, error) {
	return l.verify(ctx, r, nil, nil)
}

// VerifyCopy is Verify that writes every byte it reads to w.
func (l Limits) VerifyCopy(w io.Writer, r io.Reader) (Summary, error) {
	return l.verify(context.Background(), r, w, nil)
}

// Unpack is FetchUnpack's unpacking of a reader.
func (l Limits) Unpack(ctx context.Context, r io.Reader, dir *os.Root, opts UnpackOptions) (Summary, error) {
	return l.unpack(ctx, r, dir, opts)
}

// NewTree and Tree expose the tree every verification follows.
type Tree = pathTree

func (l Limits) NewTree() *Tree { return l.newTree() }

// QuoteName quotes an entry name as messages do.
func QuoteName(name string) string { return quoteName(name) }

// EntriesOf verifies data and returns the entries as the verifier read them.
func EntriesOf(data []byte) ([]Entry, error) {
	var out []Entry
	_, err := Limits{}.verify(context.Background(), bytes.NewReader(data), nil, func(e Entry) { out = append(out, e) })
	return out, err
}

// SetMaxWalkSteps lowers the bound on path components walked until restore.
func SetMaxWalkSteps(n int) (restore func()) {
	old := maxWalkSteps
	maxWalkSteps = n
	return func() { maxWalkSteps = old }
}
