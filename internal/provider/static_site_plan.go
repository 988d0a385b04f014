package provider

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/publish"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitetree"
)

// What a static site's plan decides before anything is written: whether it
// publishes again, and why a site cannot be published where it is asked
// for (the refusals, worded here, that ModifyPlan and the operations give).

// republishes says whether the plan publishes another export, or the same
// one with other checks, rather than keeping the site published. A change
// of max_files alone only records it: the site published meets it, or the
// plan is refused (fewerMaxFiles).
func republishes(planJobID, planExpected, stateJobID, stateExpected types.String) bool {
	return !planJobID.Equal(stateJobID) || !planExpected.Equal(stateExpected)
}

// fewerMaxFiles says whether the planned max_files is below the files of
// the site published.
func fewerMaxFiles(plan, state siteScalars) bool {
	return !plan.MaxFiles.IsUnknown() && !state.FileCount.IsNull() && !state.FileCount.IsUnknown() &&
		plan.MaxFiles.ValueInt64() < state.FileCount.ValueInt64()
}

// plannedDigest is the archive's SHA-256 as a plan knows it: the expected
// one when set and well formed, else unknown.
func plannedDigest(expected types.String) types.String {
	if expected.IsNull() || expected.IsUnknown() || sha256Problem(expected.ValueString()) != "" {
		return types.StringUnknown()
	}
	return types.StringValue(strings.ToLower(expected.ValueString())) // as archive_sha256 is written
}

// newSiteProblem says why a new site cannot be published at its
// directory, or "": the path holds what the provider did not write, a site
// that is not in this run's state publishes there, a store whose entries
// are not the provider's, or a path another site of this run claims.
func (r *staticSiteResource) newSiteProblem(plan siteScalars) string {
	site, err := publish.Locate(plan.Directory.ValueString())
	if err != nil {
		return "" // the validator words it
	}
	found, err := site.Inspect()
	if err != nil {
		return err.Error()
	}
	if found.Foreign != "" {
		return foreignProblem(site, found.Foreign)
	}
	if err := site.CheckStore(); err != nil {
		return err.Error()
	}
	if r.data == nil {
		return ""
	}
	if m := found.Marker; m != nil && (m.Current != "" || found.Current != "") && !r.data.sites.InState(m.Owner) && !maybeReplaced(m, plan, r.data.configuration) {
		// Published by a site that this run has not read from its state:
		// another configuration's, or another state's of this working
		// directory (-state=, another backend key). Never an object this
		// plan replaces, which Terraform refreshes and plans first. (One of
		// this state may be: the apply decides.)
		problem := publishProblem(site, plan.JobID.ValueString(), &publish.ConflictError{Site: site, Other: *m})
		if m.Configuration != "" && m.Configuration == r.data.configuration {
			problem += " That site was published from this working directory and workspace, but the state of this run does not " +
				"hold it: it is another state's (another -state file or backend key), or it was removed from this state."
		}
		return problem
	}
	return r.data.sites.Overlap(site, plan.JobID.ValueString())
}

// maybeReplaced says whether the site a marker records may be the object
// that a new one replaces although this run did not read it from its
// state: Terraform neither refreshes nor plans a tainted object under
// -refresh=false before it plans its replacement. Such a site was
// published from this working directory and workspace, of the export the
// replacement publishes (known at plan). The apply then decides; a new
// site of another state publishes a job not yet known at plan, or another.
func maybeReplaced(m *publish.Marker, plan siteScalars, configuration string) bool {
	return m.Configuration == configuration && !plan.JobID.IsUnknown() && m.JobID == plan.JobID.ValueString()
}

// publishedSiteProblem says why the site in state cannot be published
// again at its directory, or "", and what is there.
func (r *staticSiteResource) publishedSiteProblem(state siteScalars) (string, publish.Inspection) {
	site, err := publish.Locate(state.Directory.ValueString())
	if err != nil {
		return err.Error(), publish.Inspection{}
	}
	found, err := site.Inspect()
	switch {
	case err != nil:
		return err.Error(), found
	case found.Foreign != "":
		return foreignProblem(site, found.Foreign) + " " + sitetree.ForeignConsequence, found
	case found.Marker != nil && found.Marker.Owner != state.ID.ValueString():
		return publishProblem(site, state.JobID.ValueString(), &publish.ConflictError{Site: site, Other: *found.Marker}), found
	}
	if err := site.CheckStore(); err != nil {
		return err.Error(), found
	}
	return "", found
}

// movedStoreProblem says, when the store found at the site's name is not
// the one the site published from (moved, copied or replaced since), what
// that means, or "": its records are not trusted and a destroy leaves it.
// A refresh then finds the site not intact, and the publication that
// restores it takes the store over (one of the same owner, which only the
// user who runs Terraform can have made: Inspect refuses another user's).
func movedStoreProblem(site publish.Site, found publish.Inspection, pins sitePins) string {
	if pins.Store.IsZero() || found.Marker == nil || found.Store == pins.Store {
		return ""
	}
	return fmt.Sprintf("%s is not the store this site published from (it is %s, and the site published from %s): it was moved, "+
		"copied or replaced since, so nothing in it is trusted, and a destroy would leave it as it is.", site.Store, found.Store, pins.Store)
}

// rememberSite records a site in state as this run sees it.
func (r *staticSiteResource) rememberSite(state siteScalars) {
	if r.data == nil {
		return
	}
	if site, err := publish.Locate(state.Directory.ValueString()); err == nil {
		r.data.sites.Remember(site, state.ID.ValueString(), state.JobID.ValueString())
	}
}

const siteDirectoryAccepted = "Accepted: a path of the site's own that does not exist yet, such as \"${path.module}/dist/site\", " +
	"or one this provider published; the provider makes it a symbolic link to the current release."

// siteDirectoryProblem refuses at plan a path that can never be the site's
// own.
func siteDirectoryProblem(s string) string {
	if problem := publish.PathProblem(s); problem != "" {
		return fmt.Sprintf("%q: %s. %s", s, problem, siteDirectoryAccepted)
	}
	return ""
}

// foreignProblem words a served path that holds what the provider did not
// write.
func foreignProblem(site publish.Site, found string) string {
	return fmt.Sprintf("%s holds %s. The provider publishes only at a path that does not exist yet or that it published itself, and "+
		"never replaces or deletes anything else. Move it away or choose another directory. %s", site.Dir, found, siteDirectoryAccepted)
}

// publishProblem words a refusal of Stage or Switch for the site of export
// job jobID.
func publishProblem(site publish.Site, jobID string, err error) string {
	var foreign *publish.ForeignError
	var conflict *publish.ConflictError
	var busy *publish.BusyError
	switch {
	case errors.As(err, &foreign):
		return foreignProblem(site, foreign.What())
	case errors.As(err, &busy):
		return busy.Error() + "."
	case errors.As(err, &conflict):
		likely := ""
		if conflict.Other.JobID != "" && conflict.Other.JobID == jobID {
			likely = " It publishes the export job this resource publishes: it is most likely the object this resource replaces."
		}
		return conflict.Error() + "." + likely + " Give each docsadmin_static_site a directory of its own. A replacement of a site " +
			"(`-replace`, `replace_triggered_by`, a tainted resource) under create_before_destroy cannot take the directory over while " +
			"the old object still publishes there, and nothing was changed: remove create_before_destroy, so that the old site is " +
			"removed first (the directory is then missing until the new site is switched in), or do not replace: a new job_id " +
			"updates the site in place, and a damaged site is restored in place by a plain apply. If no resource publishes there any " +
			"more (it was removed from state), delete " + site.Dir + " and " + filepath.Base(site.Store) + " beside it."
	}
	return fmt.Sprintf("Publishing at %s failed: %s", site.Dir, err)
}

// maxFilesError is the refusal of an archive with more files than
// max_files, or, for a tree on disk, more files and directories;
// consequence says what its reader did not do, such as "nothing was
// published".
type maxFilesError struct {
	limit, files int
	dirs         int // -1 where directories do not count
	consequence  string
}

func (e *maxFilesError) Error() string {
	if e.dirs < 0 {
		return fmt.Sprintf("the archive holds more than max_files = %d files; %s. Raise max_files (up to %d) "+
			"if the site is meant to be this large", e.limit, e.consequence, maxSiteMaxFiles)
	}
	return fmt.Sprintf("the archive holds more than max_files = %d files and directories (%d files and %d directories when it was "+
		"stopped: every refresh walks each directory as it checks each file, so directories count); %s. Raise "+
		"max_files (up to %d) if the site is meant to be this large", e.limit, e.files, e.dirs, e.consequence, maxSiteMaxFiles)
}
