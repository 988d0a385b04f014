package publish

import (
	"fmt"
	"path/filepath"
	"time"
)

// The refusals a caller tells apart (besides *EntryError, in store.go).

// ConflictError is a store that another owner publishes with.
type ConflictError struct {
	Site  Site
	Other Marker
}

func (e *ConflictError) Error() string {
	job := ""
	if e.Other.JobID != "" {
		job = " the site of export job " + e.Other.JobID
	}
	since := "publishing its first site now"
	if e.Other.Current != "" {
		since = "publishing" + job
		if job == "" {
			since += " a site"
		}
		if !e.Other.Published.IsZero() {
			since += " since " + e.Other.Published.UTC().Format(time.RFC3339)
		}
	}
	of := ""
	if e.Other.Configuration != "" {
		of = ", of the configuration at " + e.Other.Configuration
	}
	return fmt.Sprintf("%s is published by another docsadmin_static_site (%s, %s%s); two sites cannot share a directory",
		e.Site.Dir, e.Other.Owner, since, of)
}

// BusyError is a store that another run of the same owner is publishing
// with at this moment.
type BusyError struct {
	Site Site
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is being published by another run of the provider right now (it holds the lock %s); two runs cannot "+
		"publish one site at once. Wait for that run to end, then apply again", e.Site.Dir, filepath.Join(e.Site.Store, lockName))
}

// ForeignError is a served path that holds what the provider did not write.
type ForeignError struct {
	Site  Site
	Found string
	// Appeared says it appeared while the site was being switched in,
	// after the path had been checked.
	Appeared bool
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("%s holds %s; the provider replaces only what it wrote itself", e.Site.Dir, e.What())
}

// What says what was found, and when it appeared if it did meanwhile.
func (e *ForeignError) What() string {
	if e.Appeared {
		return e.Found + " (it appeared while the new release was being switched in, and was left as it is)"
	}
	return e.Found
}

// OtherStoreError is a store at a site's name that is not the one the site
// recorded when it published: moved, copied or replaced since. Withdraw
// leaves it as it is.
type OtherStoreError struct {
	Site        Site
	Want, Found StoreID
}

func (e *OtherStoreError) Error() string {
	return fmt.Sprintf("%s is not the store this site published with (that one is %s, this one %s): it was moved, copied or "+
		"replaced since, and the provider removes only the store it recorded", e.Site.Store, e.Want, e.Found)
}
