package resume_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/resume"
)

// The key changes with each part of what identifies work, and with nothing
// else.
func TestKeyOf(t *testing.T) {
	type inputs struct {
		Domain   string
		Triggers map[string]string
	}
	base := resume.KeyOf("export", "https://api.example.com", "", inputs{"docs.example.com", map[string]string{"v": "1"}})
	if again := resume.KeyOf("export", "https://api.example.com", "", inputs{"docs.example.com", map[string]string{"v": "1"}}); again != base {
		t.Errorf("the same work has two keys: %s, %s", base, again)
	}
	for name, other := range map[string]resume.Key{
		"kind":     resume.KeyOf("deployment", "https://api.example.com", "", inputs{"docs.example.com", map[string]string{"v": "1"}}),
		"address":  resume.KeyOf("export", "https://staging.example.com", "", inputs{"docs.example.com", map[string]string{"v": "1"}}),
		"project":  resume.KeyOf("export", "https://api.example.com", "proj_1", inputs{"docs.example.com", map[string]string{"v": "1"}}),
		"inputs":   resume.KeyOf("export", "https://api.example.com", "", inputs{"api.example.com", map[string]string{"v": "1"}}),
		"triggers": resume.KeyOf("export", "https://api.example.com", "", inputs{"docs.example.com", map[string]string{"v": "2"}}),
	} {
		if other == base {
			t.Errorf("another %s makes the same key", name)
		}
	}
	const prompt = "Rewrite the confidential onboarding guide"
	if key := resume.KeyOf("agent_job", "https://api.example.com", "proj_1", prompt); len(key) != 64 || fmt.Sprint(key) == prompt {
		t.Errorf("the key %q is not a digest", key)
	}
	if key := resume.KeyOf("export", "https://api.example.com", "", func() {}); key != "" {
		t.Errorf("inputs JSON cannot encode make the key %q", key)
	}
}

func TestRegistryTakesOnce(t *testing.T) {
	r := resume.NewRegistry()
	key := resume.KeyOf("export", "https://api.example.com", "", "docs.example.com")
	if _, ok := r.Take(key); ok {
		t.Fatal("an empty registry holds work")
	}
	r.Register(key, resume.Work{ID: "se_1", Status: "running"})
	r.Register("", resume.Work{ID: "se_2"})
	r.Register(resume.KeyOf("export", "https://api.example.com", "", "other"), resume.Work{})
	if work, ok := r.Take(key); !ok || work.ID != "se_1" || work.Status != "running" {
		t.Fatalf("Take = %+v, %v", work, ok)
	}
	if work, ok := r.Take(key); ok {
		t.Fatalf("the work was taken twice: %+v", work)
	}
	if work, ok := r.Take(""); ok {
		t.Fatalf("work registered under no key: %+v", work)
	}
	if work, ok := r.Take(resume.KeyOf("export", "https://api.example.com", "", "other")); ok {
		t.Fatalf("work without an id was registered: %+v", work)
	}
}

// TestRegistryConcurrentTakeHandsWorkToOneCreate runs Delete's and
// Create's halves of many replacements at once, as one apply does: every
// piece of work registered is taken exactly once, whichever create asks
// first. make test runs it under the race detector.
func TestRegistryConcurrentTakeHandsWorkToOneCreate(t *testing.T) {
	r := resume.NewRegistry()
	const keys, takers = 64, 8
	key := func(i int) resume.Key { return resume.KeyOf("deployment", "https://api.example.com", "proj_1", i) }
	var taken [keys]atomic.Int32
	var left atomic.Int32
	left.Store(keys)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() { r.Register(key(i), resume.Work{ID: fmt.Sprint(i)}) })
	}
	for range takers {
		wg.Go(func() {
			for round := 0; left.Load() > 0 && round < 100_000; round++ {
				for i := range keys {
					if work, ok := r.Take(key(i)); ok {
						if work.ID != fmt.Sprint(i) {
							t.Errorf("key %d holds work %s", i, work.ID)
						}
						taken[i].Add(1)
						left.Add(-1)
					}
				}
			}
		})
	}
	wg.Wait()
	for i := range keys {
		if n := taken[i].Load(); n != 1 {
			t.Errorf("work %d was taken %d times", i, n)
		}
	}
}
