package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/resume"
)

// The one resume protocol of the four resources that start work
// (docsadmin_static_export, docsadmin_deployment,
// docsadmin_preview_deployment, docsadmin_agent_job): the registry and the
// rule of what makes work the same are in internal/resume; here are the
// key of this provider's work (resumeKey), Delete's half
// (registerUnfinished) and Create's half (resumeRegistered).

// unfinishedWork is what Delete knows of the work in state.
type unfinishedWork struct {
	work resume.Work
	// unsuccessful: state shows that the work failed, or that it ended with
	// a status the provider does not know (a deployment's end time set): it
	// will never succeed, so the replacement starts afresh. An agent job's
	// state does not record its end: the read of resumeRegistered tells.
	unsuccessful bool
	// completed: the create saw its work through. For a deployment, a
	// preview build and an agent job, the create-completed mark in private
	// state (createCompleted), which Terraform does not keep for a tainted
	// object: a tainted one is always registered, and `apply -replace` of
	// one whose create completed starts anew. For an export, a link in
	// state: its create completes by delivering one, and until then (a
	// timeout, an interrupt, a link that failed) the replacement continues
	// the job.
	completed bool
}

// resumeKey is the key of work of this provider (resume.KeyOf): kind is the
// resource type, project the project whose route holds the work ("" for
// none), inputs everything else that would make it other work, triggers
// included. The API's address is base_url's (client.APIAddress), as every
// comparison of places.
func (d *providerData) resumeKey(kind, project string, inputs any) resume.Key {
	return resume.KeyOf(kind, client.APIAddress(d.baseURL), project, inputs)
}

// resumeNote is the warning of a refresh that finds work the apply that
// started it did not see through (what names it, such as "Export job se_1
// of docs.example.com"). After a create, Terraform marks the resource
// tainted and plans a replacement with a destroy; the apply continues the
// same work all the same.
func resumeNote(what string) (string, string) {
	return "Unfinished work: the next apply continues it",
		what + " was left unfinished by the apply that started it (interrupted, timed out, or its link or archive failed). " +
			"Where the plan shows it replaced (Terraform marks a create that did not finish as tainted: 1 to destroy), the destroy only forgets it, " +
			"nothing is deleted at the API, and the apply continues with the same job rather than starting another, as long as the settings that started it are unchanged."
}

// registerUnfinished is Delete's half of the resume protocol: work in state
// that the create did not see through, and that may still succeed, is
// registered for a create of the same key in this run.
func (d *providerData) registerUnfinished(key resume.Key, u unfinishedWork) {
	if u.resumable() {
		d.resume.Register(key, u.work)
	}
}

// resumable reports whether Delete registers u.
func (u unfinishedWork) resumable() bool {
	return u.work.ID != "" && !u.unsuccessful && !u.completed
}

// resumeRegistered is Create's half of the resume protocol. It takes the
// work registered under key and reads it again with read, which reports
// whether the work is unsuccessful (failed, or ended with a status the
// provider does not know): work that is gone or unsuccessful is dropped (ok
// false: start afresh). Any other failure to read it, such as a passing
// outage, calls saveAgain, which saves the work in state again so that
// Terraform keeps it as a tainted object whose Delete registers it for the
// next apply, and returns an error that says nothing was started: a passing
// outage never costs a second export, deployment or pull request. what
// names the work ("Export job se_..."); the error is one sentence, without
// its period.
func (d *providerData) resumeRegistered(ctx context.Context, key resume.Key, what func(id string) string,
	read func(ctx context.Context, id string) (unsuccessful bool, err error), saveAgain func(resume.Work)) (resume.Work, bool, error) {
	work, ok := d.resume.Take(key)
	if !ok {
		return resume.Work{}, false, nil
	}
	unsuccessful, err := read(ctx, work.ID)
	switch {
	case client.IsNotFound(err):
		tflog.Info(ctx, "the unfinished work an earlier apply left is gone; starting afresh", map[string]any{"id": work.ID})
		return resume.Work{}, false, nil
	case err != nil:
		saveAgain(work)
		return resume.Work{}, false, fmt.Errorf("%s, which an earlier apply left unfinished, could not be read: %s Nothing was started, "+
			"and its id stays in state: the next terraform apply continues the same work", what(work.ID), sentence(withHint(err)))
	case unsuccessful:
		tflog.Info(ctx, "the unfinished work an earlier apply left has failed or ended; starting afresh", map[string]any{"id": work.ID})
		return resume.Work{}, false, nil
	}
	tflog.Info(ctx, "continuing the work an earlier apply left unfinished", map[string]any{"id": work.ID})
	return work, true, nil
}

// triggerValues are the strings of a triggers map, for a resume key.
func triggerValues(triggers types.Map) map[string]string {
	values := map[string]string{}
	for k, v := range triggers.Elements() {
		if s, ok := v.(types.String); ok {
			values[k] = s.ValueString()
		}
	}
	return values
}
