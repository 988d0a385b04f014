package objectstore

import (
	"context"
	"time"
)

const (
	// CheckTimeout bounds what a plan asks of a store: the check of a new
	// site's store, and a refresh's listing and record. A store that
	// answers slower than this is reported, not waited for.
	CheckTimeout = 10 * time.Minute
	// DefaultMaxDeletes bounds the objects one publication deletes, as
	// hugo deploy's maxDeletes.
	DefaultMaxDeletes = 256
	// DefaultConcurrency and MaxConcurrency are the requests to the store
	// at once.
	DefaultConcurrency = 16
	MaxConcurrency     = 64
)

// MaxListed bounds a listing of the prefix of a site of at most maxFiles
// files: the site's files, what a publication may delete, and room for a
// user's own objects.
func MaxListed(maxFiles int) int { return 2*maxFiles + 100_000 }

// CheckNew checks, within CheckTimeout, that the target's store answers and
// that no other site publishes under its prefix (Inspect), before a first
// publication of a site of at most maxFiles files.
func CheckNew(ctx context.Context, t Target, maxFiles int) error {
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	store, err := OpenStore(ctx, t)
	if err != nil {
		return err
	}
	defer store.Close()
	return store.Inspect(ctx, "", MaxListed(maxFiles))
}
