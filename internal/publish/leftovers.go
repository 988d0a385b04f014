package publish

import (
	"os"
	"strings"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish/confined"
)

// What killed runs leave, told apart from what a living run is making: a
// run's lock is free once its process is gone, however it ended.

// leftByFirstRun reports whether a store holds only what a run killed
// before its first switch leaves: entries of the provider's names and
// kinds, and no other.
func leftByFirstRun(store *os.Root) bool {
	entries, err := confined.ReadDir(store)
	if err != nil {
		return false
	}
	for _, e := range entries {
		want, own := storeEntryKind(e.Name())
		if !own || confined.Check(store, e.Name(), want) != nil {
			return false
		}
	}
	return true
}

// removeLeftovers removes the temporary links and records a killed run
// left in the store. The caller holds the store's lock.
func removeLeftovers(store *os.Root) {
	entries, err := confined.ReadDir(store)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if name == markerName || name == lockName {
			continue
		}
		if want, own := storeEntryKind(name); own && want != confined.Dir {
			_, _ = confined.Remove(store, name, want)
		}
	}
}

// removeNewStores removes the stores being made beside Dir that killed
// runs left: directories of the provider's temporary name that hold only
// a lock, which no run holds, and a marker for Dir or none yet. Never one
// whose lock is missing (its run may be about to make it) or held.
func removeNewStores(parent *os.Root, s Site) {
	entries, err := confined.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), newStorePrefix) {
			continue
		}
		tmp, err := confined.OpenDir(parent, e.Name(), "")
		if err != nil || tmp == nil {
			continue
		}
		if leftNewStore(tmp, s) {
			if lock, err := lockFile(tmp); err == nil {
				lock.BeforeRemoval()
				removeStoreEntries(tmp)
				lock.Close()
				_ = parent.Remove(e.Name())
			}
		}
		tmp.Close()
	}
}

// leftNewStore reports whether tmp is a store being made that its run
// left, lock aside: a lock file, and at most a marker for Dir and its
// temporary copies.
func leftNewStore(tmp *os.Root, s Site) bool {
	entries, err := confined.ReadDir(tmp)
	if err != nil {
		return false
	}
	hasLock := false
	for _, e := range entries {
		n := e.Name()
		if want, own := storeEntryKind(n); !own || want != confined.File || confined.Check(tmp, n, confined.File) != nil {
			return false
		}
		hasLock = hasLock || n == lockName
	}
	if !hasLock {
		return false
	}
	m, err := readMarker(tmp)
	return err != nil || m == nil || m.Directory == s.Dir
}
