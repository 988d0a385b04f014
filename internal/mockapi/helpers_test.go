package mockapi

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
)

var testStart = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

// newTestServer starts a listening server on a fake clock.
func newTestServer(t *testing.T, cfg Config) (*Server, *clocktest.FakeClock) {
	t.Helper()
	clock := clocktest.NewFakeClock(testStart)
	if cfg.Now == nil {
		cfg.Now = clock.Now
	}
	s := NewServer(cfg)
	t.Cleanup(s.Close)
	return s, clock
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %q", err, r.body)
	}
	return m
}

func (r response) errorMessage(t *testing.T) string {
	t.Helper()
	msg, ok := r.json(t)["error"].(string)
	if !ok {
		t.Fatalf("no error string in %s", r.body)
	}
	return msg
}

// call sends an authenticated request (unless key is "-") and reads the answer.
func call(t *testing.T, s *Server, method, path, body string) response {
	t.Helper()
	return callKey(t, s, s.APIKey, method, path, body)
}

func callKey(t *testing.T, s *Server, key, method, path, body string) response {
	t.Helper()
	resp, err := doRequest(http.DefaultClient, s, key, method, path, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

func doRequest(c *http.Client, s *Server, key, method, path, body string) (response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	url := path
	if !strings.HasPrefix(path, "http") {
		url = s.URL + path
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return response{}, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

func wantStatus(t *testing.T, r response, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status = %d, want %d; body: %s", r.status, status, r.body)
	}
}

func wantJSON(t *testing.T, r response) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q, want application/json", ct)
	}
}

// startExport starts a job and returns its id.
func startExport(t *testing.T, s *Server, body string) string {
	t.Helper()
	r := call(t, s, "POST", "/v1/static-export/jobs", body)
	wantStatus(t, r, http.StatusAccepted)
	id, _ := r.json(t)["jobId"].(string)
	if id == "" {
		t.Fatalf("no jobId in %s", r.body)
	}
	return id
}

func getJob(t *testing.T, s *Server, id string) map[string]any {
	t.Helper()
	r := call(t, s, "GET", "/v1/static-export/jobs/"+id, "")
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, r)
	return r.json(t)
}

// tarFiles lists the regular files of a gzip'd tar and their contents.
func tarFiles(t *testing.T, archive []byte) (names []string, contents map[string]string) {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	tr := tar.NewReader(gz)
	contents = map[string]string{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("bad tar: %v", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatalf("read %s: %v", h.Name, err)
		}
		names = append(names, h.Name)
		contents[h.Name] = string(b)
	}
	if err := gz.Close(); err != nil {
		t.Fatalf("gzip trailer: %v", err)
	}
	slices.Sort(names)
	return names, contents
}
