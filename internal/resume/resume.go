// Package resume is the registry of the resume protocol: work that a create
// started and did not see through (an export, a deployment, a preview
// build, an agent job), which the next create of the same inputs continues
// instead of starting the same work a second time.
//
// When a create times out or is interrupted, the resource is saved with the
// id of the work it started, but Terraform marks it tainted, so the next
// apply plans a replacement: Delete of the old object, then Create of the
// new one, in the same provider process. Delete registers the unfinished
// work under the key of its inputs (KeyOf), and Create takes it. The
// registry lives as long as the provider process, one terraform apply, and
// is shared by every request it serves: what must outlast it is in state,
// never only here.
package resume

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
)

// Work is what an unfinished create left, as state recorded it: what a
// create needs to follow the work, or to save it in state again.
type Work struct {
	ID     string // the job's or the deployment status's id
	Status string // the last status seen
	// URL is a preview build's address, "" for other work.
	URL string
	// Revision is the static export API revision an export was found in,
	// "" for other work.
	Revision string
}

// Key identifies work by what started it.
type Key string

// KeyOf is the one rule of what makes work the same: its kind (the
// resource type), the API's address it runs at, its project ("" where the
// route holds none) and its inputs, triggers included, as JSON. A digest,
// so that the registry never holds an input such as a prompt; inputs that
// JSON cannot encode make no key, and no work is registered under it.
func KeyOf(kind, address, project string, inputs any) Key {
	data, err := json.Marshal(struct {
		Kind    string `json:"kind"`
		Address string `json:"address"`
		Project string `json:"project"`
		Inputs  any    `json:"inputs"`
	}{kind, address, project, inputs})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return Key(hex.EncodeToString(sum[:]))
}

// Registry holds unfinished work by key. It is safe for concurrent use:
// Terraform runs the operations of one apply in parallel.
type Registry struct {
	mu   sync.Mutex
	work map[Key]Work
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{work: map[Key]Work{}}
}

// Register leaves work for the next Take of key; it replaces what was
// registered under key before. Work without an id, or under no key, is
// not registered.
func (r *Registry) Register(key Key, work Work) {
	if key == "" || work.ID == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.work[key] = work
}

// Take returns and forgets the work registered under key: one create
// continues it, never two.
func (r *Registry) Take(key Key) (Work, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	work, ok := r.work[key]
	delete(r.work, key)
	return work, ok
}
