package testtools

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// Env is the variable that make test, and so CI, sets to 1.
const Env = "DOCSADMIN_TEST_TOOLS"

// MakeTools is how to install what make tools installs: Debian's packages
// (tools/debian-packages.sh) and the pinned tools it builds.
const MakeTools = "run make tools (Debian's packages: tools/debian-packages.sh; pinned builds: tools/*.sh)"

// Required reports whether a missing program fails the test: Env is set to
// anything but "" or "0".
func Required() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0"
}

// Missing ends a test that cannot run what, because of err: it fails when
// Required and skips otherwise. install says how to install what.
func Missing(t testing.TB, what, install string, err error) {
	t.Helper()
	msg := fmt.Sprintf("%s is needed and not available (%v): %s", what, err, install)
	if Required() {
		t.Fatalf("%s; %s is set, so a missing program fails the test", msg, Env)
	} else {
		t.Skipf("%s; %s=1 (as make test sets it) makes this a failure", msg, Env)
	}
}

// LookPath is the path of the program name on PATH, as exec.LookPath finds
// it; when there is none, Missing ends the test with install as the way to
// install it.
func LookPath(t testing.TB, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name, install, err)
	}
	return path
}
