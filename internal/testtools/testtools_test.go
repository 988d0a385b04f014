package testtools

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// recorder keeps what Missing asked of the test instead of ending it.
type recorder struct {
	testing.TB
	failed, skipped string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }
func (r *recorder) Skipf(format string, args ...any)  { r.skipped = fmt.Sprintf(format, args...) }

// TestMissingFailsOnlyWhenRequired reads the variable as make test sets it.
// It sets the environment, so it does not run in parallel.
func TestMissingFailsOnlyWhenRequired(t *testing.T) {
	for value, fails := range map[string]bool{"": false, "0": false, "1": true, "yes": true} {
		t.Setenv(Env, value)
		if got := Required(); got != fails {
			t.Errorf("%s=%q: Required() = %v, want %v", Env, value, got, fails)
		}
		r := &recorder{TB: t}
		Missing(r, "bsdtar", MakeTools, errors.New("not found"))
		said, other := r.skipped, r.failed
		if fails {
			said, other = r.failed, r.skipped
		}
		if !strings.Contains(said, "bsdtar") || !strings.Contains(said, "make tools") || other != "" {
			t.Errorf("%s=%q: failed %q, skipped %q", Env, value, r.failed, r.skipped)
		}
	}
	if err := os.Unsetenv(Env); err != nil {
		t.Fatal(err)
	}
	if Required() {
		t.Errorf("%s unset: Required() = true", Env)
	}
}

// TestLookPathFindsAProgram finds the shell every test machine has.
func TestLookPathFindsAProgram(t *testing.T) {
	t.Parallel()
	if path := LookPath(t, "sh", MakeTools); path == "" {
		t.Fatal("no path for sh")
	}
}
