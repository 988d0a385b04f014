package sitetest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// TestSiteSwitchNeedsAServerThatResolvesThePathEachTime holds the static
// hosting guide to what it says of servers that resolve the published path
// once: Python's file server started with --directory and the link's path
// serves every export as it is switched in, while one started inside the
// link (cd dir && python3 -m http.server) took the release the link named
// then: it serves the previous export after the next publication, and
// answers 404 once the publication after that removes the release.
func TestSiteSwitchNeedsAServerThatResolvesThePathEachTime(t *testing.T) {
	if testing.Short() {
		t.Skip("publishes three exports through Terraform and serves them with Python: slow; runs in make test")
	}
	python := testtools.LookPath(t, "python3", "the static hosting guide's example serves with it: "+testtools.MakeTools)
	runner := switchRunner(t)
	ctx := t.Context()
	mock := mockapi.NewServer(mockapi.Config{ExportDuration: 200 * time.Millisecond, StablePages: true})
	t.Cleanup(mock.Close)
	dir := filepath.Join(t.TempDir(), "dist", "site")
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	tf, err := runner.Module(work, map[string][]byte{"main.tf": []byte(switchConfig(dir, false))},
		map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	transcript := tfrunner.Record(tf)
	publish := func(commit string) {
		t.Helper()
		if err := tf.Apply(ctx, tfexec.Var("commit="+commit)); err != nil {
			t.Fatalf("apply for commit %s: %v\n%s", commit, err, transcript)
		}
	}
	page := switchEditedPage + ".html"
	current := func() string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	publish("c0")
	byPath := startPythonServer(t, python, filepath.Dir(dir), "--directory", filepath.Base(dir))
	insideLink := startPythonServer(t, python, dir) // cd dist/site && python3 -m http.server
	first := current()
	for _, base := range []string{byPath, insideLink} {
		if status, body := get(t, base+"/"+page); status != http.StatusOK || body != first {
			t.Fatalf("%s serves %s with %d before any switch, want 200 and the published page", base, page, status)
		}
	}

	mock.EditPage(switchDomain, switchEditedPage)
	publish("c1")
	second := current()
	if second == first {
		t.Fatal("the edited page did not change the published file")
	}
	if status, body := get(t, byPath+"/"+page); status != http.StatusOK || body != second {
		t.Errorf("the server started with --directory serves %d and the new page: %v, after the next publication; want 200 and the new page", status, body == second)
	}
	if status, body := get(t, insideLink+"/"+page); status != http.StatusOK || body != first {
		t.Errorf("the server started inside the link serves %d and the previous page: %v, after the next publication; want 200 and the previous page", status, body == first)
	}

	publish("c2")
	if status, body := get(t, byPath+"/"+page); status != http.StatusOK || body != current() {
		t.Errorf("the server started with --directory serves %d after two publications, want 200 and the current page", status)
	}
	if status, _ := get(t, insideLink+"/"+page); status != http.StatusNotFound {
		t.Errorf("the server started inside the link answers %d after two publications, want 404: its release was removed", status)
	}
}

var pythonServing = regexp.MustCompile(`port (\d+)`)

// startPythonServer runs python3 -m http.server in dir, with args, on a
// loopback port it chooses, and returns its address.
func startPythonServer(t *testing.T, python, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, python, append([]string{"-u", "-m", "http.server", "--bind", "127.0.0.1"}, append(args, "0")...)...)
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := pythonServing.FindStringSubmatch(sc.Text()); m != nil {
				port <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case p := <-port:
		return fmt.Sprintf("http://127.0.0.1:%s", p)
	case <-time.After(30 * time.Second):
		t.Fatalf("python3 -m http.server %v in %s did not say its port within 30s", args, dir)
		return ""
	}
}

// get reads url, returning the status and the body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}
