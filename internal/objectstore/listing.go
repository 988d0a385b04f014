package objectstore

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"cloud.google.com/go/storage"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"golang.org/x/sync/errgroup"
)

// A store serves a listing page in time proportional to the objects on it,
// one page after another. Where it can start a listing after a given key
// (S3's StartAfter, GCS's StartOffset), a prefix the record knows to be
// large is listed as ranges of the record's keys at once, so that a refresh
// waits for the slowest range rather than for every page in turn.
const (
	maxListRanges = 8
	maxPageSize   = 1000 // what S3 and GCS serve at most
)

// rangeObjects is how many recorded objects make a range of their own; a
// variable so that the tests can range a small site.
var rangeObjects = 2500

// survey lists the prefix once and reads the record: what every
// publication, check and withdrawal starts from. The record is read first,
// so that its keys can split the listing; the listing is bounded to
// maxListed objects and the record to maxListed entries' bytes.
func (s *Store) survey(ctx context.Context, siteID, pinned string, maxListed int) (listing map[string]Object, rec *Record, sum, untrusted string, err error) {
	rec, sum, untrusted, err = s.trustedRecord(ctx, siteID, pinned, maxListed)
	if err != nil {
		return nil, nil, "", "", err
	}
	var known []string
	if rec != nil {
		known = slices.Sorted(maps.Keys(rec.Files))
	}
	listing, err = s.list(ctx, maxListed, known)
	if err != nil {
		return nil, nil, "", "", err
	}
	return listing, rec, sum, untrusted, nil
}

// list is the prefix's objects by key relative to the prefix, at most
// limit of them. known, the sorted keys the record holds, only decides how
// the listing is split: every range is bounded on the client too, so a
// store that ignores where a range starts costs time, never an object.
func (s *Store) list(ctx context.Context, limit int, known []string) (map[string]Object, error) {
	out := map[string]Object{}
	var mu sync.Mutex
	add := func(key string, obj Object) error {
		mu.Lock()
		defer mu.Unlock()
		if len(out) >= limit {
			return &StoreError{Target: s.Target, Op: "listing", Err: &LimitError{What: "objects under the prefix", Limit: limit}}
		}
		out[strings.TrimPrefix(key, s.prefix)] = obj
		return nil
	}
	ranges := s.ranges(known)
	g, gctx := errgroup.WithContext(ctx)
	for _, r := range ranges {
		g.Go(func() error { return s.listRange(gctx, r, add) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// keyRange is the keys after after (all keys when empty) up to and
// including through (no end when empty), of which about expect are known.
type keyRange struct {
	after, through string
	expect         int
}

func (r keyRange) holds(key string) bool {
	return key > r.after && (r.through == "" || key <= r.through)
}

// ranges splits the listing at the known keys into ranges of equal counts,
// one range where the store cannot start after a key or the site is small.
func (s *Store) ranges(known []string) []keyRange {
	n := min(maxListRanges, len(known)/rangeObjects)
	if n < 2 || (s.Target.Kind != KindS3 && s.Target.Kind != KindGCS) {
		return []keyRange{{expect: len(known)}}
	}
	out := make([]keyRange, n)
	for i := range out {
		lo, hi := i*len(known)/n, (i+1)*len(known)/n
		out[i].expect = hi - lo
		if i > 0 {
			out[i].after = out[i-1].through
		}
		if i < n-1 {
			out[i].through = s.prefix + known[hi-1]
		}
	}
	return out
}

// listRange lists one range. A range with an end asks pages no larger than
// the objects it still expects (and two more, to see the end), so that
// ranges side by side list few objects twice.
func (s *Store) listRange(ctx context.Context, r keyRange, add func(string, Object) error) error {
	opts := &blob.ListOptions{Prefix: s.prefix, BeforeList: startAfter(r.after)}
	token := blob.FirstPageToken
	for {
		size := maxPageSize
		if r.through != "" && r.expect > 0 {
			size = min(maxPageSize, r.expect+2)
		}
		objs, next, err := s.bucket.ListPage(ctx, token, size, opts)
		if err != nil {
			return s.fail("listing", err)
		}
		for _, obj := range objs {
			if r.through != "" && obj.Key > r.through {
				return nil
			}
			if obj.IsDir || !r.holds(obj.Key) {
				continue
			}
			r.expect--
			if err := add(obj.Key, Object{Size: obj.Size, MD5: hexOrEmpty(obj.MD5)}); err != nil {
				return err
			}
		}
		if len(next) == 0 {
			return nil
		}
		token = next
	}
}

// startAfter starts an S3 or GCS listing at the first key after key.
func startAfter(key string) func(as func(any) bool) error {
	return func(as func(any) bool) error {
		if key == "" {
			return nil
		}
		var in *s3.ListObjectsV2Input
		if as(&in) {
			in.StartAfter = &key
			return nil
		}
		var q *storage.Query
		if as(&q) {
			q.StartOffset = key // inclusive: listRange drops the key itself
		}
		return nil
	}
}
