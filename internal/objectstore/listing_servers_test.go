package objectstore_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/storetest"
)

// On real servers, a listing split into ranges (S3's StartAfter, GCS's
// StartOffset; Azure in one range) finds every object under the prefix,
// known or not, once, and nothing beside it.
func TestListingInRangesOnRealServers(t *testing.T) {
	defer objectstore.SetRangeObjects(4)()
	for _, srv := range storetest.All(t) {
		t.Run(srv.Name, func(t *testing.T) {
			storetest.Setenv(t, srv)
			target := srv.Target
			target.Prefix = "docs-" + srv.Name
			b, err := objectstore.Open(t.Context(), target)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			var known []string
			for i := range 36 {
				known = append(known, fmt.Sprintf("topics/t-%02d.html", i))
			}
			others := []string{"0-first", "topics/t-05.html.bak", "topics/t-17", "zz-last"}
			for _, key := range append(slices.Clone(known), others...) {
				if err := b.WriteAll(t.Context(), target.Prefix+"/"+key, []byte(key), nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.WriteAll(t.Context(), target.Prefix+"-2/topics/t-00.html", []byte("sibling"), nil); err != nil {
				t.Fatal(err)
			}
			s, err := objectstore.OpenStore(t.Context(), target)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			listing := s.ListForTest(t, 100, known)
			want := slices.Sorted(slices.Values(append(slices.Clone(known), others...)))
			if got := slices.Sorted(maps.Keys(listing)); !slices.Equal(got, want) {
				t.Errorf("listed %q\nwant %q", got, want)
			}
			if obj := listing["topics/t-17"]; obj.Size != int64(len("topics/t-17")) {
				t.Errorf("topics/t-17 listed as %+v", obj)
			}
		})
	}
}
