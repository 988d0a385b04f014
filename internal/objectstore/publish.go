package objectstore

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
	"golang.org/x/sync/errgroup"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
)

// Publication is a site to publish: its files unpacked under Root, as its
// manifest lists them, and who publishes it.
type Publication struct {
	Root  *os.Root
	Files map[string]site.File
	// Aliases maps extra keys to the file of Files they hold a copy of:
	// pages under their extensionless URL, for hosts that never add .html.
	Aliases       map[string]string
	SiteID        string // the resource's id: the record's owner
	JobID         string
	ArchiveSHA256 string
	Pinned        string // the SHA-256 of the record state pins; "" before the first publication
	MaxDeletes    int    // most objects one publication deletes
	Concurrency   int    // requests at once
	MaxListed     int    // most objects the listing may hold
}

// Result is what a publication did.
type Result struct {
	RecordSHA256 string   // the record written last: the one state pins next
	Uploaded     int      // objects written
	Deleted      int      // objects deleted
	Unchanged    int      // files already in place
	Left         []string // the provider's former objects, changed by someone else, that it left (keys with the prefix)
}

// PublishError is a publication that failed after it wrote its record:
// RecordSHA256 is the record now in the store, which state pins so that
// the next apply trusts it and completes the publication.
type PublishError struct {
	RecordSHA256 string
	Err          error
}

func (e *PublishError) Error() string { return e.Err.Error() }
func (e *PublishError) Unwrap() error { return e.Err }

// ConflictError is a publication refused before it wrote anything: objects
// the provider did not write are at keys the site needs.
type ConflictError struct {
	Target Target
	Keys   []string
	// Untrusted says why no record was trusted, when one was found: then
	// every object is someone else's.
	Untrusted string
}

func (e *ConflictError) Error() string {
	s := fmt.Sprintf("%s holds objects that the provider did not write at %d keys the site needs: %s. The provider never "+
		"overwrites or deletes an object it did not write; nothing was written. Delete or move those objects, or set another prefix",
		e.Target, len(e.Keys), someKeys(e.Target.Prefix, e.Keys))
	if e.Untrusted != "" {
		s += ". " + e.Untrusted
	}
	return s
}

// TooManyDeletesError is a publication refused before it wrote anything:
// it would delete more objects than allowed.
type TooManyDeletesError struct {
	Target Target
	Count  int
	Limit  int
	Keys   []string
}

func (e *TooManyDeletesError) Error() string {
	return fmt.Sprintf("publishing into %s would delete %d objects that the new site lacks (%s), more than max_deletes = %d; "+
		"nothing was written. If the new export is meant to drop that many files, raise max_deletes to at least %d for this apply",
		e.Target, e.Count, someKeys(e.Target.Prefix, e.Keys), e.Limit, e.Count)
}

// Publish publishes the site into the store. Before any upload it writes
// a record holding every key it may write, so that a publication stopped
// partway is completed by the next one; the old site's objects stay until
// every upload is done, so that its pages keep working meanwhile.
func (s *Store) Publish(ctx context.Context, p Publication) (Result, error) {
	listing, rec, recSum, untrusted, err := s.survey(ctx, p.SiteID, p.Pinned, p.MaxListed)
	if err != nil {
		return Result{}, err
	}
	delete(listing, RecordKey)
	files := p.Files
	if len(p.Aliases) > 0 {
		files = maps.Clone(p.Files)
		for alias, of := range p.Aliases {
			f := p.Files[of]
			f.Path = alias
			files[alias] = f
		}
	}
	d := planPublication(files, listing, rec, p.Aliases)
	if len(d.conflicts) > 0 {
		return Result{}, &ConflictError{Target: s.Target, Keys: d.conflicts, Untrusted: untrusted}
	}
	if n := d.deleteCount(); n > p.MaxDeletes {
		return Result{}, &TooManyDeletesError{Target: s.Target, Count: n, Limit: p.MaxDeletes,
			Keys: append(append([]string(nil), d.deletes[phaseDeletePages]...), d.deletes[phaseDeleteAssets]...)}
	}
	final := &Record{Format: recordFormat, Site: p.SiteID, JobID: p.JobID, ArchiveSHA256: p.ArchiveSHA256, Previous: p.Pinned,
		Complete: true, Files: entriesOf(files)}
	result := Result{Unchanged: d.unchanged, Left: withPrefix(s.prefix, d.left)}
	if d.uploadCount() == 0 && d.deleteCount() == 0 && rec != nil && sameRecord(rec, final) {
		result.RecordSHA256 = recSum
		return result, nil
	}

	// The record first: every key this publication may write is the
	// provider's before it is written.
	pending := &Record{Format: recordFormat, Site: p.SiteID, JobID: p.JobID, ArchiveSHA256: p.ArchiveSHA256, Previous: p.Pinned,
		Files: owned(rec), Pending: d.allUploads()}
	for key, e := range final.Files {
		pending.Files[key] = e
	}
	sum, err := s.writeRecord(ctx, pending)
	if err != nil {
		return Result{}, err
	}
	failed := func(err error) (Result, error) {
		result.RecordSHA256 = sum
		return result, &PublishError{RecordSHA256: sum, Err: err}
	}
	for _, keys := range d.uploads {
		n, err := s.each(ctx, p.Concurrency, keys, func(ctx context.Context, key string) error {
			source := key
			if of, ok := p.Aliases[key]; ok {
				source = of
			}
			return s.upload(ctx, p.Root, key, source, files[key], !d.listed[key])
		})
		result.Uploaded += n
		if err != nil {
			return failed(err)
		}
	}
	for _, keys := range d.deletes {
		n, err := s.each(ctx, p.Concurrency, keys, s.remove)
		result.Deleted += n
		if err != nil {
			return failed(err)
		}
	}
	if sum, err = s.writeRecord(ctx, final); err != nil {
		return failed(err)
	}
	result.RecordSHA256 = sum
	return result, nil
}

// trustedRecord reads the record and returns it and its SHA-256 when the
// site may rely on it, or nil and why not.
func (s *Store) trustedRecord(ctx context.Context, siteID, pinned string, maxListed int) (*Record, string, string, error) {
	rec, sum, malformed, err := s.readRecord(ctx, maxListed)
	key := s.prefix + RecordKey
	switch {
	case err != nil:
		return nil, "", "", err
	case malformed != "":
		return nil, "", fmt.Sprintf("The record %s was not written by the provider (%s), so no object there is known to be the provider's", key, malformed), nil
	case rec == nil && pinned != "":
		return nil, "", fmt.Sprintf("The record %s that state pins is gone, so no object there is known to be the provider's", key), nil
	case rec == nil:
		return nil, "", "", nil
	case rec.trusts(sum, siteID, pinned):
		return rec, sum, "", nil
	case pinned == "" && !rec.Complete && rec.Previous == "":
		// The first publication of a site whose apply was killed before
		// state was saved: nothing of it was ever served complete.
		return rec, sum, "", nil
	case rec.Site != siteID:
		return nil, "", fmt.Sprintf("The record %s belongs to another site (%.80q, export job %.80q): give each site a prefix of its own", key, rec.Site, rec.JobID), nil
	}
	return nil, "", fmt.Sprintf("The record %s is not the one state pins (SHA-256 %s, found %s): it was changed outside Terraform", key, pinned, sum), nil
}

// upload writes one file, with its manifest's content type, cache policy
// and MD5, which the store checks. A key the listing did not hold is
// written only if it still does not exist: an object someone put there
// meanwhile is not overwritten.
func (s *Store) upload(ctx context.Context, root *os.Root, key, source string, f site.File, create bool) error {
	file, err := root.Open(filepath.FromSlash(source))
	if err != nil {
		return err
	}
	defer file.Close()
	sum, err := hex.DecodeString(f.MD5)
	if err != nil {
		return fmt.Errorf("%s: the manifest's MD5 %q is not hexadecimal", key, f.MD5)
	}
	opts := &blob.WriterOptions{ContentType: f.ContentType, CacheControl: f.CacheControl, ContentMD5: sum,
		// One request for any file up to this size, so that S3's ETag is
		// its MD5 and the next listing shows it.
		BufferSize: 64 << 20, IfNotExist: create}
	err = s.bucket.Upload(ctx, s.prefix+key, file, opts)
	if create && gcerrors.Code(err) == gcerrors.FailedPrecondition {
		return &ConflictError{Target: s.Target, Keys: []string{key}}
	}
	if err != nil {
		return s.fail("uploading "+s.prefix+key+" to", err)
	}
	s.wrote("put", key)
	return nil
}

func (s *Store) remove(ctx context.Context, key string) error {
	err := s.bucket.Delete(ctx, s.prefix+key)
	if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return s.fail("deleting "+s.prefix+key+" from", err)
	}
	s.wrote("delete", key)
	return nil
}

// each runs fn for every key, concurrency at once, and stops at the first
// error; it returns how many calls succeeded.
func (s *Store) each(ctx context.Context, concurrency int, keys []string, fn func(context.Context, string) error) (int, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(concurrency, 1))
	done := make(chan struct{}, len(keys))
	for _, key := range keys {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if err := fn(gctx, key); err != nil {
				return err
			}
			done <- struct{}{}
			return nil
		})
	}
	err := g.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return len(done), err
}

// entriesOf is the record's entries of a site's files.
func entriesOf(files map[string]site.File) map[string]RecordEntry {
	out := make(map[string]RecordEntry, len(files))
	for key, f := range files {
		out[key] = RecordEntry{Size: f.Size, SHA256: f.SHA256, MD5: f.MD5}
	}
	return out
}

// sameRecord says whether a record already says what the publication
// would write.
func sameRecord(a, b *Record) bool {
	if a.Site != b.Site || a.JobID != b.JobID || a.ArchiveSHA256 != b.ArchiveSHA256 || !a.Complete || len(a.Pending) > 0 ||
		len(a.Files) != len(b.Files) {
		return false
	}
	for k, e := range b.Files {
		if a.Files[k] != e {
			return false
		}
	}
	return true
}

func withPrefix(prefix string, keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = prefix + k
	}
	return out
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func md5Of(b []byte) []byte {
	sum := md5.Sum(b)
	return sum[:]
}

func hexOrEmpty(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return hex.EncodeToString(b)
}
