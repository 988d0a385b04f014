package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
)

// resumeRegistry carries unfinished work from Delete to Create: exports,
// deployments, preview builds and agent jobs.
//
// When a create times out or is interrupted, the resource is saved with the
// id of the work it started but Terraform marks it tainted, so the next
// apply plans a replacement: Delete of the old object, then Create of the
// new one, in the same provider process. Delete offers the unfinished work
// here (offerUnfinished) under a fingerprint of its inputs, and Create takes
// it over through resumeOffered instead of starting the same work a second
// time. The registry lives only as long as the provider process, one
// terraform apply: what must outlast it is in state, never only here.
type resumeRegistry struct {
	mu   sync.Mutex
	work map[string]offeredWork // inputs fingerprint -> work
}

// offeredWork is what an unfinished create left, as state recorded it: the
// id of the work, its last seen status and, for a preview build, its
// address, for an export the API revision it was found in. It is what a
// create needs to follow the work, or to save it in state again.
type offeredWork struct {
	ID       string
	Status   string
	URL      string
	Revision string
}

func newResumeRegistry() *resumeRegistry {
	return &resumeRegistry{work: map[string]offeredWork{}}
}

func (r *resumeRegistry) offer(fingerprint string, work offeredWork) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.work[fingerprint] = work
}

// take returns and forgets the work offered for these inputs.
func (r *resumeRegistry) take(fingerprint string) (offeredWork, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	work, ok := r.work[fingerprint]
	delete(r.work, fingerprint)
	return work, ok
}

// unfinishedWork is what Delete knows of the work in state, for the offer.
type unfinishedWork struct {
	work offeredWork
	// over: state shows that the work failed, or that it ended with a
	// status the provider does not know (a deployment's end time set): it
	// will never succeed, so the replacement starts afresh. An agent job's
	// state does not record its end: the read of resumeOffered tells.
	over bool
	// finished: the create saw its work through. For a deployment, a preview
	// build and an agent job, the create-finished mark in private state
	// (createFinished), which Terraform does not keep for a tainted object:
	// a tainted one is always offered, and `apply -replace` of one whose
	// create finished starts anew. For an export, a link in state: its
	// create finishes by delivering one, and until then (a timeout, an
	// interrupt, a link that failed) the replacement continues the job.
	finished bool
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

// offerUnfinished is Delete's half of the one resume protocol: work in
// state that the create did not see through, and that is not over, is
// offered to a create of the same inputs in this run.
func (d *providerData) offerUnfinished(key string, u unfinishedWork) {
	if u.offered() {
		d.resume.offer(key, u.work)
	}
}

// offered reports whether Delete offers u.
func (u unfinishedWork) offered() bool {
	return u.work.ID != "" && !u.over && !u.finished
}

// resumeOffered is Create's half of the one resume protocol of every
// resource that starts work. It takes the work offered for key and reads it
// again with read, which reports whether the work is over (failed, or ended
// with a status the provider does not know): work that is gone or over is
// dropped (ok false: start afresh). Any other failure to read it, such as
// a passing outage, calls keep, which saves the work in state again so that
// Terraform keeps it as a tainted object whose Delete offers it to the next
// apply, and returns an error that says nothing was started: a passing
// outage never costs a second export, deployment or pull request. what
// names the work ("export job se_..."); the error is one sentence, without
// its period.
func (d *providerData) resumeOffered(ctx context.Context, key string, what func(id string) string,
	read func(ctx context.Context, id string) (over bool, err error), keep func(offeredWork)) (offeredWork, bool, error) {
	work, ok := d.resume.take(key)
	if !ok {
		return offeredWork{}, false, nil
	}
	over, err := read(ctx, work.ID)
	switch {
	case client.IsNotFound(err):
		tflog.Info(ctx, "the unfinished work an earlier apply left is gone; starting afresh", map[string]any{"id": work.ID})
		return offeredWork{}, false, nil
	case err != nil:
		keep(work)
		return offeredWork{}, false, fmt.Errorf("%s, which an earlier apply left unfinished, could not be read: %s Nothing was started, "+
			"and its id stays in state: the next terraform apply continues the same work", what(work.ID), sentence(withHint(err)))
	case over:
		tflog.Info(ctx, "the unfinished work an earlier apply left has failed or ended; starting afresh", map[string]any{"id": work.ID})
		return offeredWork{}, false, nil
	}
	tflog.Info(ctx, "continuing the work an earlier apply left unfinished", map[string]any{"id": work.ID})
	return work, true, nil
}

// sentence ends text with one period.
func sentence(text string) string {
	return clause(text) + "."
}

// clause is text without the period that ends it, for a sentence that goes
// on after it: withHint's text ends in one, and "outages.. Look" must not
// be shown.
func clause(text string) string {
	return strings.TrimRight(text, ". ")
}

// exportFingerprint digests what identifies an export.
func exportFingerprint(baseURL, domain, version string, paths []string, triggers map[string]string) string {
	return fingerprint(struct {
		BaseURL  string            `json:"b"`
		Domain   string            `json:"d"`
		Version  string            `json:"v"`
		Paths    []string          `json:"p"`
		Triggers map[string]string `json:"t"`
	}{baseURL, domain, version, paths, triggers})
}

// fingerprint digests the JSON of what identifies a piece of work: a
// digest, so that the registry never holds an input such as a prompt.
func fingerprint(identity any) string {
	data, _ := json.Marshal(identity)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// triggerValues are the strings of a triggers map, for a fingerprint.
func triggerValues(triggers types.Map) map[string]string {
	values := map[string]string{}
	for k, v := range triggers.Elements() {
		if s, ok := v.(types.String); ok {
			values[k] = s.ValueString()
		}
	}
	return values
}
