package objectstore

import "testing"

// SetRangeObjects sets how many recorded objects make a listing range of
// their own, so that a test ranges a small site; it returns the restore.
func SetRangeObjects(n int) (restore func()) {
	old := rangeObjects
	rangeObjects = n
	return func() { rangeObjects = old }
}

// ListForTest is the store's listing, split at the known keys as a refresh
// splits it.
func (s *Store) ListForTest(t testing.TB, limit int, known []string) map[string]Object {
	t.Helper()
	out, err := s.list(t.Context(), limit, known)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
