package objectstore

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"gocloud.dev/blob/memblob"
)

// A listing split into ranges finds what one listing finds: the known keys,
// objects of others between them and at either end, and nothing of a
// sibling prefix, even from a store that ignores where a range starts.
func TestListingInRangesFindsWhatOneListingFinds(t *testing.T) {
	defer SetRangeObjects(4)()
	ctx := t.Context()
	b := memblob.OpenBucket(nil)
	var known []string
	for i := range 30 {
		known = append(known, fmt.Sprintf("topics/t-%02d.html", i))
	}
	others := []string{"0-first", "topics/t-05.html.bak", "topics/t-17", "topics/t-29.html~", "zz-last"}
	for _, key := range append(slices.Clone(known), others...) {
		if err := b.WriteAll(ctx, "p/"+key, []byte(key), nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, sibling := range []string{"p2/x", "q", "p"} {
		if err := b.WriteAll(ctx, sibling, []byte(sibling), nil); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := memStore(t, b, "p")
	ranges := s.ranges(known)
	if len(ranges) != len(known)/4 || ranges[0].after != "" || ranges[len(ranges)-1].through != "" {
		t.Fatalf("ranges = %+v, want %d that cover every key", ranges, len(known)/4)
	}
	for i := 1; i < len(ranges); i++ {
		if ranges[i].after != ranges[i-1].through {
			t.Fatalf("range %d starts after %q, the one before ends at %q", i, ranges[i].after, ranges[i-1].through)
		}
	}
	ranged, err := s.list(ctx, 100, known)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := s.list(ctx, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(slices.Values(append(slices.Clone(known), others...)))
	if got := slices.Sorted(maps.Keys(ranged)); !slices.Equal(got, want) {
		t.Errorf("listed in ranges: %q\nwant %q", got, want)
	}
	if !maps.Equal(ranged, whole) {
		t.Errorf("listed in ranges %v, in one listing %v", ranged, whole)
	}
	if _, err := s.list(ctx, len(want)-1, known); err == nil {
		t.Errorf("ranges listed %d objects under a bound of %d", len(want), len(want)-1)
	}
}

// Only a store that can start a listing after a key is listed in ranges:
// elsewhere each range would list the prefix again from its start.
func TestListingInRangesOnlyWhereAStoreStartsAfterAKey(t *testing.T) {
	defer SetRangeObjects(4)()
	known := make([]string, 40)
	for i := range known {
		known[i] = fmt.Sprintf("k%02d", i)
	}
	for kind, want := range map[string]int{KindS3: maxListRanges, KindGCS: maxListRanges, KindAzure: 1} {
		s := &Store{Target: Target{Kind: kind}}
		if got := len(s.ranges(known)); got != want {
			t.Errorf("%s: %d ranges, want %d", kind, got, want)
		}
	}
	if got := len((&Store{Target: Target{Kind: KindS3}}).ranges(known[:7])); got != 1 {
		t.Errorf("7 known keys: %d ranges, want 1", got)
	}
}
