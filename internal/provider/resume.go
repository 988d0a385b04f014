package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/types"
)

// resumeRegistry carries unfinished export jobs from Delete to Create.
//
// When a create times out or is interrupted, the resource is saved with its
// job id but Terraform marks it tainted, so the next apply plans a
// replacement: Delete of the old object, then Create of the new one, in the
// same provider process. Delete files the unfinished job here under the
// export's inputs, and Create continues it instead of starting a second
// export for the same inputs.
type resumeRegistry struct {
	mu   sync.Mutex
	jobs map[string]string // inputs fingerprint -> job id
}

func newResumeRegistry() *resumeRegistry {
	return &resumeRegistry{jobs: map[string]string{}}
}

func (r *resumeRegistry) offer(fingerprint, jobID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jobs[fingerprint] = jobID
}

// take returns and forgets the job filed for these inputs.
func (r *resumeRegistry) take(fingerprint string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	jobID, ok := r.jobs[fingerprint]
	delete(r.jobs, fingerprint)
	return jobID, ok
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
