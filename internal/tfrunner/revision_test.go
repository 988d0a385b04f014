package tfrunner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
)

func TestRevisionVersionIsAValidPrerelease(t *testing.T) {
	for rev, want := range map[string]string{
		"4cfad06": "0.0.1-4cfad06",
		"e5b577c": "0.0.1-e5b577c",
		"0123456": "0.0.1-g0123456", // a numeric identifier may not start with 0
		"1234567": "0.0.1-g1234567",
	} {
		if got := RevisionVersion(rev); got != want {
			t.Errorf("RevisionVersion(%q) = %q, want %q", rev, got, want)
		}
	}
}

func TestToolsCacheFollowsTheScripts(t *testing.T) {
	t.Setenv("DOCSADMIN_TOOLS_CACHE", "/cache/docsadmin")
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if got, _ := ToolsCache(); got != "/cache/docsadmin" {
		t.Errorf("with DOCSADMIN_TOOLS_CACHE: %q", got)
	}
	t.Setenv("DOCSADMIN_TOOLS_CACHE", "")
	if got, _ := ToolsCache(); got != filepath.Join("/xdg", "terraform-provider-docsadmin") {
		t.Errorf("with XDG_CACHE_HOME: %q", got)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/dev")
	if got, _ := ToolsCache(); got != filepath.Join("/home/dev", ".cache", "terraform-provider-docsadmin") {
		t.Errorf("from HOME: %q", got)
	}
}

// A clone without the history (CI checks out one commit by default) cannot
// build an earlier revision: the error must say so and how to fetch it,
// rather than leave the tests to skip.
func TestResolveRevisionExplainsAShallowClone(t *testing.T) {
	testtools.LookPath(t, "git", "install git")
	dir := t.TempDir()
	origin := filepath.Join(dir, "origin")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", origin)
	for _, msg := range []string{"first", "second"} {
		if err := os.WriteFile(filepath.Join(origin, "f"), []byte(msg), 0o644); err != nil {
			t.Fatal(err)
		}
		git("-C", origin, "add", "f")
		git("-C", origin, "commit", "-qm", msg)
	}
	first := git("-C", origin, "rev-parse", "HEAD~1")

	got, err := ResolveRevision(t.Context(), origin, first[:7])
	if err != nil || got != first {
		t.Fatalf("in the full repository: %q, %v; want %s", got, err, first)
	}

	shallow := filepath.Join(dir, "shallow")
	git("clone", "-q", "--depth=1", "file://"+origin, shallow)
	_, err = ResolveRevision(t.Context(), shallow, first[:7])
	if err == nil || !strings.Contains(err.Error(), "shallow") || !strings.Contains(err.Error(), "git fetch --unshallow") {
		t.Errorf("in a shallow clone: %v; want an error naming the shallow clone and git fetch --unshallow", err)
	}

	_, err = ResolveRevision(t.Context(), origin, "0000000")
	if err == nil || strings.Contains(err.Error(), "shallow") {
		t.Errorf("an unknown revision in a full clone: %v; want an error that does not blame a shallow clone", err)
	}
}
