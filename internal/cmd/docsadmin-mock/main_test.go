package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCheckLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.5:8080", "[::1]:0", "localhost:9000"} {
		if err := checkLoopback(addr); err != nil {
			t.Errorf("%s refused: %v", addr, err)
		}
	}
	for _, addr := range []string{"0.0.0.0:0", ":8080", "[::]:0", "192.168.1.10:80", "example.com:80", "127.0.0.1"} {
		if err := checkLoopback(addr); err == nil {
			t.Errorf("%s accepted", addr)
		}
	}
}

func TestRunRefusesNonLoopback(t *testing.T) {
	err := run(context.Background(), []string{"-addr", "0.0.0.0:0"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("err = %v", err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRunServesAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-export-duration", "10ms", "-link-ttl", "5m", "-archive-size", "2000000", "-stable-pages"}, outW, &stderr)
		outW.Close()
	}()

	sc := bufio.NewScanner(outR)
	env := map[string]string{}
	for range 2 {
		if !sc.Scan() {
			t.Fatalf("missing output line: %v", sc.Err())
		}
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			t.Fatalf("line %q is not KEY=value", sc.Text())
		}
		env[k] = v
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	base, key := env["DOCSADMIN_BASE_URL"], env["DOCSADMIN_API_KEY"]
	if !strings.HasPrefix(base, "http://127.0.0.1:") || key == "" {
		t.Fatalf("env = %v", env)
	}

	post := func(path string) (*http.Response, map[string]any) {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(`{"domain":"docs.example.com"}`))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp, m
	}
	resp, job := post("/v1/static-export/jobs")
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("start: %d", resp.StatusCode)
	}
	var b map[string]any
	waitFor(t, "the 10ms export's end", func() bool {
		resp, b = post("/v1/static-export/jobs/" + job["jobId"].(string) + "/bundle")
		return resp.StatusCode != http.StatusConflict
	})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("bundle: %d %v", resp.StatusCode, b)
	}
	link := b["bundleUrl"].(string)
	if !strings.Contains(link, "X-Amz-Expires=300&") {
		t.Fatalf("-link-ttl not applied: %s", link)
	}
	if size := b["sizeBytes"].(float64); size < 2000000 {
		t.Fatalf("-archive-size not applied: sizeBytes %v", size)
	}
	download := func(link string) []byte {
		t.Helper()
		dl, err := http.Get(link)
		if err != nil || dl.StatusCode != http.StatusOK {
			t.Fatalf("download: %v %v", err, dl)
		}
		defer dl.Body.Close()
		body, err := io.ReadAll(dl.Body)
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	first := download(link)
	_, job = post("/v1/static-export/jobs")
	waitFor(t, "the second export's end", func() bool {
		resp, b = post("/v1/static-export/jobs/" + job["jobId"].(string) + "/bundle")
		return resp.StatusCode != http.StatusConflict
	})
	if !bytes.Equal(download(b["bundleUrl"].(string)), first) {
		t.Fatal("-stable-pages not applied: a second export of the same site served other bytes")
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not stop")
	}

	logs := stderr.String()
	if !strings.Contains(logs, "POST /v1/static-export/jobs 202") || !strings.Contains(logs, "GET /bundles/") {
		t.Fatalf("requests not logged:\n%s", logs)
	}
	if strings.Contains(logs, "X-Amz-Signature") || strings.Contains(logs, key) {
		t.Fatalf("log leaks secrets:\n%s", logs)
	}
}

func TestRunRefusesBadScopeAndAgentFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-agent-job-outcome", "archived"}, "invalid -agent-job-outcome"},
		{[]string{"-agent-job-duration", "0s"}, "-agent-job-duration must be positive"},
		{[]string{"-read-only-key", ""}, "non-empty key"},
		{[]string{"-api-key", "dsa_mock_same", "-read-only-key", "dsa_mock_same"}, "must differ from -api-key"},
	} {
		err := run(context.Background(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestRunPlaysReadOnlyKeysAndFinishedAgentJobs(t *testing.T) {
	const readOnly = "dsa_mock_monitoring_only"
	mock := startCommand(t, "-read-only-key", readOnly, "-agent-job-outcome", "completed", "-agent-job-duration", "50ms")
	base, key := mock.base, mock.key

	do := func(key, method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}

	status, m := do(readOnly, "POST", "/v2/agent/proj_0123456789/job", `{"prompt":"Document v2"}`)
	if msg, _ := m["error"].(string); status != http.StatusForbidden || !strings.Contains(msg, "write scope") {
		t.Fatalf("create with the read-only key: %d %v", status, m)
	}
	status, job := do(key, "POST", "/v2/agent/proj_0123456789/job", `{"prompt":"Document v2"}`)
	if status != http.StatusCreated || job["status"] != "active" {
		t.Fatalf("create: %d %v", status, job)
	}
	id := job["id"].(string)
	waitFor(t, "the 50ms agent job's end", func() bool {
		status, job = do(readOnly, "GET", "/v2/agent/proj_0123456789/job/"+id, "")
		return job["status"] != "active"
	})
	if pr, _ := job["prLink"].(string); status != http.StatusOK || job["status"] != "completed" || !strings.HasPrefix(pr, "https://") {
		t.Fatalf("read with the read-only key once the job ended: %d %v", status, job)
	}

	logs := mock.stop(t)
	if !strings.Contains(logs, "POST /v2/agent/proj_0123456789/job 403") || !strings.Contains(logs, "agent jobs end completed after 50ms") {
		t.Fatalf("stderr does not show the 403 or the settings:\n%s", logs)
	}
	if strings.Contains(logs, readOnly) || strings.Contains(logs, key) {
		t.Fatalf("log leaks a key:\n%s", logs)
	}
}

func TestRunPlaysDeploymentsAndPreviewEntitlement(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-deployment-outcome", "cancelled"}, "invalid -deployment-outcome"},
		{[]string{"-deployment-duration", "0s"}, "-deployment-duration must be positive"},
	} {
		err := run(context.Background(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.args, err, tc.want)
		}
	}

	mock := startCommand(t, "-deployment-outcome", "failure", "-deployment-duration", "50ms", "-no-preview-entitlement")
	base, key := mock.base, mock.key
	do := func(method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}

	status, m := do("POST", "/v1/project/update/proj_0123456789", "")
	id, _ := m["statusId"].(string)
	if status != http.StatusAccepted || id == "" {
		t.Fatalf("update: %d %v", status, m)
	}
	waitFor(t, "the 50ms deployment's end", func() bool {
		status, m = do("GET", "/v1/project/update-status/"+id, "")
		return m["status"] != "queued" && m["status"] != "in_progress"
	})
	if status != http.StatusOK || m["status"] != "failure" {
		t.Fatalf("status once the deployment ended: %d %v", status, m)
	}
	status, m = do("POST", "/v1/project/preview/proj_0123456789", `{"branch":"feature/x"}`)
	if msg, _ := m["error"].(string); status != http.StatusForbidden || !strings.Contains(msg, "not available on your current plan") {
		t.Fatalf("preview without the entitlement: %d %v", status, m)
	}

	if logs := mock.stop(t); !strings.Contains(logs, "deployments end failure after 50ms") || !strings.Contains(logs, "previews answer 403") {
		t.Fatalf("stderr does not show the deployment settings:\n%s", logs)
	}
}

func TestRunServesTheChosenAPIRevision(t *testing.T) {
	for _, bad := range []string{"", "v2", "Project", "domain,project"} {
		err := run(context.Background(), []string{"-api-revision", bad}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "invalid -api-revision") || !strings.Contains(err.Error(), "domain, project, both") {
			t.Errorf("-api-revision %q: err = %v", bad, err)
		}
	}
	var usage bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, io.Discard, &usage); err != nil || !strings.Contains(usage.String(), "-api-revision") ||
		!strings.Contains(usage.String(), "domain, project, both") {
		t.Fatalf("usage (%v) does not list the revisions:\n%s", err, usage.String())
	}

	for _, tc := range []struct {
		args                   []string
		domainStart, projStart int
		// crossRead is the status of a read of the domain start's job
		// through the project route, when both are served.
		crossRead int
	}{
		{nil, http.StatusAccepted, http.StatusNotFound, 0},
		{[]string{"-api-revision", "domain"}, http.StatusAccepted, http.StatusNotFound, 0},
		{[]string{"-api-revision", "project"}, http.StatusNotFound, http.StatusAccepted, 0},
		{[]string{"-api-revision", "both"}, http.StatusAccepted, http.StatusAccepted, http.StatusOK},
		{[]string{"-api-revision", "both", "-separate-revisions"}, http.StatusAccepted, http.StatusAccepted, http.StatusNotFound},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		outR, outW := io.Pipe()
		var stderr syncBuffer
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, tc.args, outW, &stderr)
			outW.Close()
		}()
		sc := bufio.NewScanner(outR)
		env := map[string]string{}
		for range 2 {
			if !sc.Scan() {
				t.Fatalf("%q: missing output line: %v", tc.args, sc.Err())
			}
			k, v, _ := strings.Cut(sc.Text(), "=")
			env[k] = v
		}
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		send := func(method, path, body string) (int, map[string]any) {
			t.Helper()
			req, _ := http.NewRequest(method, env["DOCSADMIN_BASE_URL"]+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+env["DOCSADMIN_API_KEY"])
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var answer map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&answer)
			return resp.StatusCode, answer
		}
		domainStart, job := send("POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`)
		projStart, _ := send("POST", "/v1/static-export/proj_0123456789/jobs", "")
		if tc.crossRead != 0 {
			if got, _ := send("GET", fmt.Sprintf("/v1/static-export/proj_0123456789/jobs/%v", job["jobId"]), ""); got != tc.crossRead {
				t.Errorf("%q: the domain job read through the project route: %d, want %d", tc.args, got, tc.crossRead)
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("%q: run: %v", tc.args, err)
		}
		if domainStart != tc.domainStart || projStart != tc.projStart {
			t.Errorf("%q: domain start %d, project start %d; want %d and %d", tc.args, domainStart, projStart, tc.domainStart, tc.projStart)
		}
		want := "static export revision domain"
		if len(tc.args) > 0 {
			want = "static export revision " + tc.args[1]
		}
		if logs := stderr.String(); !strings.Contains(logs, want) {
			t.Errorf("%q: stderr does not say %q:\n%s", tc.args, want, logs)
		}
	}
}

// command is the mock command, run in the test's process.
type command struct {
	base, key string
	stderr    *syncBuffer
	cancel    context.CancelFunc
	done      chan error
}

// startCommand runs the command with args and reads the base URL and key it
// prints.
func startCommand(t *testing.T, args ...string) *command {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	outR, outW := io.Pipe()
	c := &command{stderr: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	go func() {
		c.done <- run(ctx, args, outW, c.stderr)
		outW.Close()
	}()
	sc := bufio.NewScanner(outR)
	env := map[string]string{}
	for range 2 {
		if !sc.Scan() {
			t.Fatalf("missing output line: %v", sc.Err())
		}
		k, v, _ := strings.Cut(sc.Text(), "=")
		env[k] = v
	}
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	c.base, c.key = env["DOCSADMIN_BASE_URL"], env["DOCSADMIN_API_KEY"]
	return c
}

// stop stops the command as Ctrl-C does, and returns what it logged.
func (c *command) stop(t *testing.T) string {
	t.Helper()
	c.cancel()
	if err := <-c.done; err != nil {
		t.Fatalf("run: %v", err)
	}
	return c.stderr.String()
}

// waitFor polls cond until it holds, and fails the test when it does not
// within 10 seconds: the command runs on the real clock, so its jobs end
// after real time, which a loaded machine stretches.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not come within 10s", what)
		}
	}
}

// The revision switches while the mock runs, through its control route, and
// the jobs stay: a job started on the domain revision is read on the project
// revision's routes, whose start then answers while the domain's is gone.
func TestRunSwitchesAPIRevisionWhileRunning(t *testing.T) {
	mock := startCommand(t, "-api-revision", "domain", "-export-duration", "1h")
	base, key := mock.base, mock.key
	do := func(key, method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	status, body := do(key, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`)
	var job struct {
		JobID string `json:"jobId"`
	}
	if err := json.Unmarshal([]byte(body), &job); status != http.StatusAccepted || err != nil || job.JobID == "" {
		t.Fatalf("start on the domain revision: %d %s", status, body)
	}
	if status, body := do(key, "GET", "/mock/api-revision", ""); status != http.StatusOK || strings.TrimSpace(body) != "domain" {
		t.Fatalf("GET /mock/api-revision: %d %q, want domain", status, body)
	}
	for _, refused := range []struct {
		key, body string
		want      int
	}{
		{"wrong-key", "project", http.StatusUnauthorized},
		{key, "projects", http.StatusBadRequest},
		{key, "", http.StatusBadRequest},
	} {
		if status, body := do(refused.key, "POST", "/mock/api-revision", refused.body); status != refused.want {
			t.Errorf("POST %q with key %q: %d %s, want %d", refused.body, refused.key, status, body, refused.want)
		}
	}
	if status, body := do(key, "POST", "/mock/api-revision", "project\n"); status != http.StatusOK || strings.TrimSpace(body) != "project" {
		t.Fatalf("switch to project: %d %q", status, body)
	}

	if status, body := do(key, "GET", "/v1/static-export/proj_0123456789/jobs/"+job.JobID, ""); status != http.StatusOK || !strings.Contains(body, job.JobID) {
		t.Errorf("the job started before the switch, read on the project revision: %d %s", status, body)
	}
	if status, body := do(key, "POST", "/v1/static-export/proj_0123456789/jobs", ""); status != http.StatusAccepted {
		t.Errorf("start on the project revision: %d %s", status, body)
	}
	if status, body := do(key, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`); status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
		t.Errorf("the domain revision's start after the switch: %d %s, want an unknown path", status, body)
	}

	if logs := mock.stop(t); !strings.Contains(logs, "static export revision switched to project") || strings.Contains(logs, key) {
		t.Errorf("stderr does not show the switch, or shows the key:\n%s", logs)
	}
}

// The mock plays a site of a chosen number of files, the projects it knows
// (another answers 404), and links that live as long as the examples'
// renewal window expects; -h says each.
func TestRunPlaysSiteSizesProjectsAndLinkLifetime(t *testing.T) {
	var usage bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, io.Discard, &usage); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-site-files", "-project", "default proj_0123456789", "answers 404", "-any-project", "-link-ttl", "(default 24h0m0s)"} {
		if !strings.Contains(usage.String(), want) {
			t.Errorf("-h does not say %q:\n%s", want, usage.String())
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-site-files", "11"}, "a site holds at least 12 files"},
		{[]string{"-project", "proj docs"}, "must be 1 to 64 letters"},
		{[]string{"-any-project", "-project", "proj_docs"}, "exclude each other"},
	} {
		err := run(context.Background(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.args, err, tc.want)
		}
	}

	do := func(c *command, method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, c.base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+c.key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m
	}

	for _, tc := range []struct {
		args          []string
		known, others int
		files         int
		ttl           string
	}{
		{nil, http.StatusAccepted, http.StatusNotFound, 94, "86400"},
		{[]string{"-project", "proj_docs", "-project", "proj_0123456789", "-site-files", "8000", "-link-ttl", "36h"}, http.StatusAccepted, http.StatusNotFound, 8000, "129600"},
		{[]string{"-any-project", "-site-files", "13"}, http.StatusAccepted, http.StatusCreated, 14, "86400"},
	} {
		mock := startCommand(t, append([]string{"-export-duration", "10ms"}, tc.args...)...)
		known := "proj_0123456789"
		if status, m := do(mock, "POST", "/v1/project/update/"+known, ""); status != tc.known {
			t.Errorf("%q: a deployment of %s: %d %v, want %d", tc.args, known, status, m, tc.known)
		}
		status, m := do(mock, "POST", "/v2/agent/proj_dosc/job", `{"prompt":"Document v2"}`)
		if status != tc.others {
			t.Errorf("%q: an agent job of proj_dosc: %d %v, want %d", tc.args, status, m, tc.others)
		}
		if msg, _ := m["error"].(string); status == http.StatusNotFound && !strings.Contains(msg, "does not exist or is not in your organization") {
			t.Errorf("%q: the 404 says %q", tc.args, msg)
		}

		_, job := do(mock, "POST", "/v1/static-export/jobs", `{"domain":"docs.example.com"}`)
		var link map[string]any
		waitFor(t, "the 10ms export's end", func() bool {
			status, link = do(mock, "POST", "/v1/static-export/jobs/"+job["jobId"].(string)+"/bundle", "")
			return status != http.StatusConflict
		})
		url, _ := link["bundleUrl"].(string)
		if !strings.Contains(url, "X-Amz-Expires="+tc.ttl+"&") {
			t.Errorf("%q: the link lives other than %s seconds: %s", tc.args, tc.ttl, url)
		}
		dl, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		files := countTarFiles(t, dl.Body)
		dl.Body.Close()
		if files != tc.files {
			t.Errorf("%q: the export's archive holds %d files, want %d", tc.args, files, tc.files)
		}
		if logs := mock.stop(t); !strings.Contains(logs, fmt.Sprintf("sites of %d files", tc.files)) {
			t.Errorf("%q: the start-up log does not give the site's %d files:\n%s", tc.args, tc.files, logs)
		}
	}
}

// countTarFiles counts the regular files of a gzip'd tar.
func countTarFiles(t *testing.T, r io.Reader) int {
	t.Helper()
	gz, err := gzip.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	n := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			n++
		}
	}
}
