package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// When an export is exported again. A change of triggers exports again, in
// place, as a deployment deploys again: the resource is the latest export
// (a replacement could not be undone into an update when triggers that were
// unknown at plan time turn out unchanged: Terraform lets an update become a
// no-op during apply, never a replacement). So:
//   - triggers known and changed: an update that exports again.
//   - triggers not known until apply (a deployment's commit_sha while the
//     deployment runs): the same update, with a warning that it may export;
//     during apply, once they are known, it exports only if they differ from
//     the state's, and is otherwise a no-op. One published commit, one export.
//   - until the first apply after an import: the imported state has no
//     triggers, so the configuration's are taken over in place
//     (privateImported), and renew_triggers likewise without a renewal.
// An unset map and an empty one ({}, a module's default) are the same.

// noTriggers is an import's triggers and renew_triggers: none, in the form
// the plan gives unset triggers (unsetTriggers).
var noTriggers = types.MapValueMust(types.StringType, map[string]attr.Value{})

// triggersChange is what a plan does about the triggers.
type triggersChange int

const (
	triggersUnchanged triggersChange = iota // nothing: exported with these
	triggersNewExport                       // a new export, in place
	triggersAtApply                         // decided during apply, in place
	triggersImported                        // recorded after an import, in place
)

// planTriggers compares the planned triggers with the state's.
func planTriggers(plan, state staticExportModel, imported bool) triggersChange {
	switch {
	case !knownStrings(plan.Triggers):
		return triggersAtApply
	case !triggersChanged(plan.Triggers, state.Triggers):
		return triggersUnchanged
	case imported && len(state.Triggers.Elements()) == 0:
		return triggersImported
	}
	return triggersNewExport
}

// knownStrings reports a map whose every value is known.
func knownStrings(m types.Map) bool {
	if m.IsUnknown() {
		return false
	}
	for _, v := range m.Elements() {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

// planExportAgain plans an update in place that exports again, or may:
// every attribute of the job is unknown. With triggers unknown, a warning
// says why it may not.
func planExportAgain(plan *staticExportModel, state staticExportModel, change triggersChange, diags *diag.Diagnostics) {
	plan.ID, plan.JobID, plan.APIRevision = types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	plan.Status, plan.CreatedAt = types.StringUnknown(), types.StringUnknown()
	plan.Progress, plan.PageCount = types.Float64Unknown(), types.Int64Unknown()
	plan.planNewLink()
	if plan.verifies() {
		plan.planNewArchive()
	}
	if change != triggersAtApply {
		return
	}
	jobID := state.JobID.ValueString()
	diags.AddAttributeWarning(path.Root("triggers"), "The export may run again",
		fmt.Sprintf("triggers are not known until apply, so whether export job %s is exported again is decided during apply, once they are: "+
			"if they then differ from the current ones, a new export is started in place; if they are the same (for example the same commit "+
			"deployed again), export job %s is kept and nothing is exported.", jobID, jobID))
}
