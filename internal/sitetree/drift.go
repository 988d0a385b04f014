package sitetree

import (
	"fmt"
	"strings"
)

// driftShown is how many files of each kind a drift report names.
const driftShown = 5

// ForeignConsequence is what a user's entry at a published site's
// directory means for the plans to come.
const ForeignConsequence = "The site is not served there now. Nothing is planned to restore it while that entry is there; an " +
	"apply that must publish (a new job_id) refuses before any download; a destroy removes only the provider's own store " +
	"beside it and leaves the entry."

// Drift is how a release on disk differs from its manifest.
type Drift struct {
	Whole                   string // the site as a whole is not there, in words
	Foreign                 bool   // because the directory holds what the provider did not write
	Missing, Changed, Extra []string
	MissingN, ChangedN      int
	ExtraN                  int
}

// None says whether the release is the one published.
func (d Drift) None() bool {
	return d.Whole == "" && d.MissingN == 0 && d.ChangedN == 0 && d.ExtraN == 0
}

// String says what differs, naming the first files of each kind, and what
// the apply will do.
func (d Drift) String(dir, jobID string) string {
	var b strings.Builder
	if d.Whole != "" {
		b.WriteString(d.Whole)
	} else {
		fmt.Fprintf(&b, "The release %s serves differs from the site of export job %s:", dir, jobID)
		list := func(kind string, names []string, n int) {
			if n == 0 {
				return
			}
			fmt.Fprintf(&b, "\n  %d %s: %s", n, kind, strings.Join(names, ", "))
			if n > len(names) {
				fmt.Fprintf(&b, ", and %d more", n-len(names))
			}
		}
		list("missing", d.Missing, d.MissingN)
		list("changed", d.Changed, d.ChangedN)
		list("extra (not in the export)", d.Extra, d.ExtraN)
	}
	if d.Foreign {
		b.WriteString("\n" + ForeignConsequence)
		return b.String()
	}
	b.WriteString("\nThe next apply downloads the same archive once (no new export) and publishes a fresh copy in a new release, in one " +
		"switch. Files added inside a release are not published: the damaged release is kept as the previous one until the switch after, " +
		"then removed with everything in it.")
	return b.String()
}

func (d *Drift) add(list *[]string, n *int, name string) {
	*n++
	if len(*list) < driftShown {
		*list = append(*list, quoteName(name))
	}
}

// quoteName shows a name from disk, which may hold any byte.
func quoteName(name string) string {
	q := fmt.Sprintf("%q", name)
	if len(q) > 120 {
		q = q[:117] + "...\""
	}
	return q
}
