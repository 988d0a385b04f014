package acctest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// CLI returns the Terraform or OpenTofu binary that acceptance tests run:
// TF_ACC_TERRAFORM_PATH, else terraform on PATH.
func CLI(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("TF_ACC_TERRAFORM_PATH"); path != "" {
		return path
	}
	path, err := exec.LookPath("terraform")
	if err != nil {
		t.Fatalf("terraform is needed on PATH (or TF_ACC_TERRAFORM_PATH): %v", err)
	}
	return path
}

// engines caches, per binary path, which engine it is.
var engines struct {
	sync.Mutex
	byPath map[string]engine
}

// engine is what the first line of `version` says: Terraform or OpenTofu,
// and its minor version of 1.x.
type engine struct {
	openTofu bool
	minor    int
}

// RunningOpenTofu reports whether the acceptance tests run OpenTofu rather
// than Terraform, for the few places where the two engines differ.
func RunningOpenTofu(t *testing.T) bool {
	t.Helper()
	return cliEngine(t).openTofu
}

// OpenTofuBefore reports whether the acceptance tests run OpenTofu older
// than 1.minor.
func OpenTofuBefore(t *testing.T, minor int) bool {
	t.Helper()
	e := cliEngine(t)
	return e.openTofu && e.minor < minor
}

// cliEngine asks the acceptance CLI itself: `version -json` says
// "terraform_version" on both engines, but the first line of `version`
// names the engine ("OpenTofu v1.12.6", "Terraform v1.11.4").
func cliEngine(t *testing.T) engine {
	t.Helper()
	path := CLI(t)
	engines.Lock()
	defer engines.Unlock()
	if e, ok := engines.byPath[path]; ok {
		return e
	}
	cmd := exec.Command(path, "version")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s version: %v", path, err)
	}
	firstLine, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	var e engine
	var name string
	if _, err := fmt.Sscanf(firstLine, "%s v1.%d.", &name, &e.minor); err != nil || name != "OpenTofu" && name != "Terraform" {
		t.Fatalf("%s version printed %q first; want Terraform or OpenTofu v1.x", path, firstLine)
	}
	e.openTofu = name == "OpenTofu"
	if engines.byPath == nil {
		engines.byPath = map[string]engine{}
	}
	engines.byPath[path] = e
	return e
}
