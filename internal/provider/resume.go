package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
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
	data, _ := json.Marshal(struct {
		BaseURL  string            `json:"b"`
		Domain   string            `json:"d"`
		Version  string            `json:"v"`
		Paths    []string          `json:"p"`
		Triggers map[string]string `json:"t"`
	}{baseURL, domain, version, paths, triggers})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
