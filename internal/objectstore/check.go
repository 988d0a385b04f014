package objectstore

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"gocloud.dev/blob"
)

// Drift is how the store differs from what the provider published there.
type Drift struct {
	Missing    []string // keys (with the prefix) of the provider's objects that are gone
	Changed    []string // keys of its objects that another write replaced
	Record     string   // why the record cannot be relied on, or ""
	Incomplete bool     // a publication did not end: the next apply completes it
	Files      int      // the objects the record lists
}

// None says whether the store holds the site as published.
func (d Drift) None() bool {
	return len(d.Missing) == 0 && len(d.Changed) == 0 && d.Record == "" && !d.Incomplete
}

// String words the drift for a plan's warning.
func (d Drift) String() string {
	var parts []string
	if d.Record != "" {
		parts = append(parts, d.Record)
	}
	if d.Incomplete {
		parts = append(parts, "a publication into it did not end (an apply stopped partway): the pages it serves still work, and the next apply completes it")
	}
	if len(d.Missing) > 0 {
		parts = append(parts, fmt.Sprintf("%d objects are missing: %s", len(d.Missing), someKeys("", d.Missing)))
	}
	if len(d.Changed) > 0 {
		parts = append(parts, fmt.Sprintf("%d objects were replaced by another write: %s", len(d.Changed), someKeys("", d.Changed)))
	}
	return strings.Join(parts, "; ")
}

// Check compares one listing of the prefix with the trusted record,
// reading no object but the record: an object the provider wrote that is
// missing, or listed with another size or MD5, is drift.
func (s *Store) Check(ctx context.Context, siteID, pinned string, maxListed int) (Drift, error) {
	listing, rec, _, untrusted, err := s.survey(ctx, siteID, pinned, maxListed)
	if err != nil {
		return Drift{}, err
	}
	if rec == nil {
		if untrusted == "" {
			untrusted = fmt.Sprintf("The record %s%s is missing", s.prefix, RecordKey)
		}
		return Drift{Record: untrusted}, nil
	}
	d := Drift{Incomplete: !rec.Complete || len(rec.Pending) > 0, Files: len(rec.Files)}
	for key, e := range rec.Files {
		obj, ok := listing[key]
		switch {
		case !ok:
			d.Missing = append(d.Missing, s.prefix+key)
		case !obj.matches(e):
			d.Changed = append(d.Changed, s.prefix+key)
		}
	}
	slices.Sort(d.Missing)
	slices.Sort(d.Changed)
	return d, nil
}

// Withdrawal is what a destroy did.
type Withdrawal struct {
	Deleted int
	Left    []string // keys of objects it did not delete: changed by another write since the provider wrote them
	Record  string   // why nothing was deleted, when the record could not be relied on
}

// Withdraw deletes every object the trusted record lists that still holds
// what the provider wrote, pages before the files they refer to, then the
// record. With no record to rely on, it deletes nothing. Destroy is not
// bounded by max_deletes: the plan says the whole site goes.
func (s *Store) Withdraw(ctx context.Context, siteID, pinned string, concurrency, maxListed int) (Withdrawal, error) {
	listing, rec, _, untrusted, err := s.survey(ctx, siteID, pinned, maxListed)
	if err != nil {
		return Withdrawal{}, err
	}
	if rec == nil {
		if untrusted == "" {
			untrusted = fmt.Sprintf("The record %s%s is missing, so no object there is known to be the provider's", s.prefix, RecordKey)
		}
		return Withdrawal{Record: untrusted}, nil
	}
	var w Withdrawal
	var pages, assets []string
	for key, e := range rec.Files {
		obj, ok := listing[key]
		switch {
		case !ok:
		case !obj.matches(e) && !slices.Contains(rec.Pending, key):
			w.Left = append(w.Left, s.prefix+key)
		case isPage(key) || path.Ext(key) == "":
			pages = append(pages, key)
		default:
			assets = append(assets, key)
		}
	}
	slices.Sort(w.Left)
	for _, keys := range [][]string{pages, assets} {
		n, err := s.each(ctx, concurrency, keys, s.remove)
		w.Deleted += n
		if err != nil {
			return w, err
		}
	}
	return w, s.remove(ctx, RecordKey)
}

// Inspect checks, before a first publication, that the store answers and
// that no other site publishes under the prefix: one listing request and
// one read of the record.
func (s *Store) Inspect(ctx context.Context, siteID string, maxListed int) error {
	if _, _, err := s.bucket.ListPage(ctx, blob.FirstPageToken, 1, &blob.ListOptions{Prefix: s.prefix}); err != nil {
		return s.fail("listing", err)
	}
	rec, _, untrusted, err := s.trustedRecord(ctx, siteID, "", maxListed)
	if err != nil {
		return err
	}
	if rec == nil && untrusted != "" {
		return fmt.Errorf("%s: %s", s.Target, untrusted)
	}
	return nil
}
