package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
// here under a fingerprint of its inputs, and Create takes it over through
// resumeOffered instead of starting the same work a second time.
type resumeRegistry struct {
	mu   sync.Mutex
	work map[string]offeredWork // inputs fingerprint -> work
}

// offeredWork is what an unfinished create left: the id of the work and,
// for a preview build, its address.
type offeredWork struct {
	ID  string
	URL string
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

// resumeOffered is the one resume protocol of every resource that starts
// work. It takes the work offered for key and reads it again with read,
// which reports whether the work failed: work that is gone or failed is
// dropped (ok false: start afresh); any other failure to read it puts it
// back on offer and returns an error that says nothing was started, so a
// passing outage never costs a second export, deployment or pull request.
// what names the work ("export job se_...").
func (d *providerData) resumeOffered(ctx context.Context, key string, what func(id string) string,
	read func(ctx context.Context, id string) (failed bool, err error)) (offeredWork, bool, error) {
	work, ok := d.resume.take(key)
	if !ok {
		return offeredWork{}, false, nil
	}
	failed, err := read(ctx, work.ID)
	switch {
	case client.IsNotFound(err):
		tflog.Info(ctx, "the unfinished work an earlier apply left is gone; starting afresh", map[string]any{"id": work.ID})
		return offeredWork{}, false, nil
	case err != nil:
		d.resume.offer(key, work)
		return offeredWork{}, false, fmt.Errorf("%s, which an earlier apply left unfinished, could not be read: %s. Nothing was started: "+
			"run terraform apply again to continue it", what(work.ID), withHint(err))
	case failed:
		tflog.Info(ctx, "the unfinished work an earlier apply left has failed; starting afresh", map[string]any{"id": work.ID})
		return offeredWork{}, false, nil
	}
	tflog.Info(ctx, "continuing the work an earlier apply left unfinished", map[string]any{"id": work.ID})
	return work, true, nil
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
