package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// The long builds of make demo, make mirror and the pinned tools say what
// they do and, while a step runs, that it still runs: tools/progress.sh,
// which they source, run here with a heartbeat every second (PROGRESS_EVERY)
// around a step of three, on stderr, leaving stdout to the command.
func TestLongBuildsSayThatTheyStillRun(t *testing.T) {
	t.Parallel()
	bash := testtools.LookPath(t, "bash", "the tools' scripts run in it: "+testtools.MakeTools)
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "-c", `progress_tool=demo; source tools/progress.sh; step "compiling the demo"; with_heartbeat "compiling the demo" sh -c 'sleep 3; echo built'`)
	cmd.Dir = root
	cmd.Env = append(cmd.Environ(), "PROGRESS_EVERY=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if stdout.String() != "built\n" {
		t.Errorf("stdout holds %q, want the command's output alone", stdout.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) < 2 || !regexp.MustCompile(`^demo: compiling the demo \(0m0\ds\)$`).MatchString(lines[0]) {
		t.Fatalf("stderr does not start with the step:\n%s", stderr.String())
	}
	still := 0
	for _, line := range lines[1:] {
		if regexp.MustCompile(`^demo: still compiling the demo \(0m0\ds\)$`).MatchString(line) {
			still++
		}
	}
	if still == 0 {
		t.Errorf("no line said that the step still runs:\n%s", stderr.String())
	}
	for _, script := range []string{"mirror.sh", "goreleaser.sh", "terraform.sh"} {
		body := readRepoFile(t, root, filepath.Join("tools", script))
		if !strings.Contains(body, "source") || !strings.Contains(body, "progress.sh") || !strings.Contains(body, "with_heartbeat") {
			t.Errorf("tools/%s does not say its progress through tools/progress.sh", script)
		}
	}
	if makefile := readRepoFile(t, root, "GNUmakefile"); !regexp.MustCompile(`(?s)\ndemo:\n[^\n]*progress\.sh.*with_heartbeat`).MatchString(makefile) {
		t.Error("make demo compiles without saying so (tools/progress.sh)")
	}
}

// readRepoFile reads a file of the repository by its path from root.
func readRepoFile(t *testing.T, root, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
