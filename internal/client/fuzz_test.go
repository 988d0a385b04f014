package client

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// Fuzz targets for everything the client reads from the network: job, bundle
// and agent job bodies, Retry-After headers and error bodies. Whatever the
// API (or a proxy in front of it) answers, decoding must not panic and what
// it yields must make sense. Run one with, for example:
//
//	go test -run='^$' -fuzz='^FuzzDecodeStaticExportJob$' -fuzztime=10s ./internal/client/

// jobBodySeeds are realistic answers and the edges of the contract.
var jobBodySeeds = []string{
	`{"jobId":"se_3f9a2c1b8e7d4a06","status":"running","progress":42.5,"pageCount":17,"createdAt":"2026-11-22T08:00:00Z","updatedAt":"2026-11-22T08:01:00Z","error":null}`,
	`{"jobId":"se_1","status":"completed","progress":100,"pageCount":42}`,
	`{"jobId":"se_1","status":"failed","error":"rendering error on page guides/intro"}`,
	`{"status":"queued"}`,
	`{}`,
	`{"status":"paused_for_maintenance","progress":-5,"pageCount":-1}`,
	`{"progress":250,"pageCount":1e19}`,
	`{"progress":1e308,"pageCount":9.3e18}`,
	`{"pageCount":-9.3e18}`,
	`{"pageCount":3.7}`,
	`{"createdAt":"yesterday","updatedAt":"2026-13-40T99:00:00Z"}`,
	`{"createdAt":"2026-11-22T10:00:00+02:00"}`,
	`{"id":"se_legacy","jobId":""}`,
	`{"jobId":"../bundle"}`,
	`{"jobId":"se_1\u202e"}`,
	`{"status":"runn`,
	`null`,
	`[]`,
	`"running"`,
	`{"progress":"50"}`,
	`{"PageCount":7096000000000,"pagecount":1}`,
}

func FuzzDecodeStaticExportJob(f *testing.F) {
	for _, s := range jobBodySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var job StaticExportJob
		if err := json.Unmarshal(data, &job); err != nil {
			return
		}
		if job.Progress != nil && (math.IsNaN(*job.Progress) || math.IsInf(*job.Progress, 0)) {
			t.Fatalf("progress decoded as %v", *job.Progress)
		}
		if raw, ok := exactNumber(data, "pageCount"); ok {
			checkWholeNumber(t, "pageCount", raw, job.PageCount)
		}
		checkUTC(t, "createdAt", job.CreatedAt)
		checkUTC(t, "updatedAt", job.UpdatedAt)
		checkIdentifiers(t, &job)
		if job.Status.Final() != (job.Status == ExportCompleted || job.Status == ExportFailed) {
			t.Fatalf("status %q: Final() = %v", job.Status, job.Status.Final())
		}
	})
}

func FuzzDecodeStaticExportLink(f *testing.F) {
	for _, s := range []string{
		`{"jobId":"se_1","bundleUrl":"https://b.s3.amazonaws.com/se_1/bundle.tar.gz?X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-Signature=abc","sizeBytes":18432000,"expiresAt":"2026-11-22T09:00:00Z"}`,
		`{"bundleUrl":"https://b.example/x"}`,
		`{"bundleUrl":"https://b.example/x","sizeBytes":1e19}`,
		`{"bundleUrl":"https://b.example/x","sizeBytes":-1}`,
		`{"bundleUrl":"https://b.example/x","expiresAt":"not a time"}`,
		`{"bundleUrl":42}`,
		`{}`,
		`{"bundleUrl":"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var bundle StaticExportLink
		if err := json.Unmarshal(data, &bundle); err != nil {
			return
		}
		if raw, ok := exactNumber(data, "sizeBytes"); ok {
			checkWholeNumber(t, "sizeBytes", raw, bundle.SizeBytes)
		}
		checkUTC(t, "expiresAt", bundle.ExpiresAt)
		checkIdentifiers(t, &bundle)
	})
}

func FuzzDecodeAgentJob(f *testing.F) {
	for _, s := range []string{
		`{"id":"job_1","status":"active","source":{"repository":"https://github.com/example/docs","ref":null},"model":"m","prLink":null,"createdAt":"2026-11-20T09:30:00Z","archivedAt":null}`,
		`{"id":"job_1","status":"completed","prLink":"https://github.com/example/docs/pull/7"}`,
		`{"status":"archived","archivedAt":"2026-11-21T17:00:00.123456789Z"}`,
		`{"status":"escalated","source":{}}`,
		`{"source":null}`,
		`{"source":"https://github.com/example/docs"}`,
		`{"createdAt":12}`,
		`{}`,
		`{"id":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var job AgentJob
		if err := json.Unmarshal(data, &job); err != nil {
			return
		}
		checkUTC(t, "createdAt", job.CreatedAt)
		checkUTC(t, "archivedAt", job.ArchivedAt)
		checkIdentifiers(t, &job)
		final := job.Status == AgentCompleted || job.Status == AgentArchived || job.Status == AgentFailed
		if job.Status.Final() != final {
			t.Fatalf("status %q: Final() = %v", job.Status, job.Status.Final())
		}
	})
}

// checkIdentifiers checks that an id the client would accept can be kept,
// shown and put in a request path as it is: bounded, one path segment that
// no server cleans away, nothing a sanitizer would quote or hide.
func checkIdentifiers(t *testing.T, out identified) {
	t.Helper()
	for _, id := range out.identifiers() {
		if id.value == "" || !idPattern.MatchString(id.value) {
			continue // refused
		}
		if len(id.value) > 128 || id.value == "." || id.value == ".." || strings.ContainsAny(id.value, "/?#%\\ ") ||
			(*redact.Sanitizer)(nil).Line(id.value, redact.LineBytes) != id.value {
			t.Fatalf("%s %q accepted", id.field, id.value)
		}
	}
}

// retryAfterNow is the fixed "now" of the Retry-After fuzz target.
var retryAfterNow = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{
		"0", "1", "120", " 7 ", "+5", "-1", "1.5", "86400", "86401", "99999999999999999999", "9223372036854775807",
		"Sun, 22 Nov 2026 08:00:30 GMT", "Sunday, 22-Nov-26 08:00:30 GMT", "Sun Nov 22 08:00:30 2026",
		"Sun, 22 Nov 2026 07:59:59 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 0001 00:00:00 GMT",
		"soon", "", "   ", "2s", "0x10",
		// Too many digits for int64, but not a number at all: neither form.
		"18700000000000000000A",
	} {
		f.Add(s, int64(0))
	}
	f.Add("Sun, 22 Nov 2026 08:00:30 GMT", int64(-3600))
	f.Fuzz(func(t *testing.T, value string, offsetSeconds int64) {
		now := retryAfterNow.Add(time.Duration(offsetSeconds%(1<<32)) * time.Second)
		d, ok := ParseRetryAfter(value, now)
		if !ok {
			if d != 0 {
				t.Fatalf("ParseRetryAfter(%q) = %s, false; a rejected value must give 0", value, d)
			}
			return
		}
		if d < 0 {
			t.Fatalf("ParseRetryAfter(%q) = %s: a negative wait", value, d)
		}
		trimmed := strings.TrimSpace(value)
		if isDeltaSeconds(trimmed) {
			if d > 24*time.Hour || d%time.Second != 0 {
				t.Fatalf("ParseRetryAfter(%q) = %s; delta-seconds give whole seconds, at most 24h", value, d)
			}
			return
		}
		when, err := http.ParseTime(trimmed)
		if err != nil {
			t.Fatalf("ParseRetryAfter(%q) = %s, true; the value is neither delta-seconds nor an HTTP date", value, d)
		}
		if want := when.Sub(now); d != want || d <= 0 {
			t.Fatalf("ParseRetryAfter(%q) at %s = %s; want the time until the date, %s", value, now, d, want)
		}
	})
}

// isDeltaSeconds reports an optional sign followed by digits only.
func isDeltaSeconds(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "+"), "-")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// FuzzErrorMessage checks what becomes of an error body: the API's message
// when it sent one, otherwise a description that never pastes the body (a
// proxy's HTML page, say) into the user's diagnostics.
func FuzzErrorMessage(f *testing.F) {
	for _, s := range []struct{ body, contentType string }{
		{`{"error":"job not found"}`, "application/json"},
		{`{"error":{"message":"nested"}}`, "application/json"},
		{`{"message":"from a gateway"}`, "application/json"},
		{`{"error":""}`, "application/json"},
		{"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>", "text/html"},
		{"upstream connect error or disconnect/reset before headers", "text/plain"},
		{"", ""},
		{`{"error":`, "application/json"},
		{`{"error":"static export job se_1 not found"}`, "application/json"},
		{`{"error":"Cannot GET /v1/static-export/jobs/se_1"}`, "application/json"},
	} {
		f.Add([]byte(s.body), s.contentType)
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		resp := &http.Response{Header: http.Header{}}
		if contentType != "" {
			resp.Header.Set("Content-Type", contentType)
		}
		msg := errorMessage(resp, body)
		if msg == "" {
			t.Fatalf("errorMessage(%q) is empty", body)
		}
		// Only the API's own JSON error says that an object is gone, and
		// only when it names it or is a documented message for a missing one.
		if said, _, ok := errorBody(body); saysGone(body, "se_1") && (!ok || !strings.Contains(said, "se_1") && !saysGone(body, "")) {
			t.Fatalf("saysGone(%q) without the API's error naming the object", body)
		}
		trimmed := string(bytes.TrimSpace(body))
		if json.Valid(body) || len(trimmed) < 16 || !utf8.ValidString(trimmed) ||
			strings.Contains(contentType, trimmed) || strings.Contains(errorMessageWording, trimmed) {
			return
		}
		if strings.Contains(msg, trimmed) {
			t.Fatalf("errorMessage pasted a non-JSON body into the message: %q", msg)
		}
	})
}

// errorMessageWording is the fixed text of errorMessage's descriptions; a
// body that happens to be part of it proves nothing.
const errorMessageWording = "the answer is not an API error (unknown content type, 0123456789 bytes); a proxy or gateway may have answered. no error message in the answer"

// exactNumber is the number under the key spelled exactly as the API spells
// it (nil when absent, null or not a number); false when data is not an
// object. The decoder matches keys exactly, unlike a struct tag, which also
// takes "PageCount" or "PAGECOUNT".
func exactNumber(data []byte, key string) (*float64, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return nil, false
	}
	var n *float64
	if json.Unmarshal(fields[key], &n) != nil {
		return nil, true
	}
	return n, true
}

// checkWholeNumber checks that a count decoded from a JSON number keeps its
// sign: a large positive value must not come out negative, whatever the
// platform does with out-of-range conversions.
func checkWholeNumber(t *testing.T, field string, raw *float64, got *int64) {
	t.Helper()
	if (raw == nil) != (got == nil) {
		t.Fatalf("%s: JSON value %v decoded as %v", field, raw, got)
	}
	if raw == nil {
		return
	}
	if (*raw >= 1 && *got <= 0) || (*raw <= -1 && *got >= 0) {
		t.Fatalf("%s: JSON value %v decoded as %d, with the wrong sign", field, *raw, *got)
	}
}

func checkUTC(t *testing.T, field string, ts *time.Time) {
	t.Helper()
	if ts != nil && ts.Location() != time.UTC {
		t.Fatalf("%s decoded in %s; timestamps are kept in UTC", field, ts.Location())
	}
}

func FuzzDecodeDeployment(f *testing.F) {
	for _, s := range []string{
		`{"_id":"6743a1f0c2b4e5d6a7b8c9d0","projectId":"p","createdAt":"2026-11-22T08:00:00Z","endedAt":null,"status":"in_progress","summary":"","logs":["a"],` +
			`"subdomain":"docs","author":{"name":"Ada","avatarUrl":null,"githubUserId":42},"commit":{"sha":"abc","ref":"main","message":"m",` +
			`"filesChanged":{"added":["x"],"modified":[],"removed":null}},"source":"api"}`,
		`{"status":"success","endedAt":"2026-11-22T08:01:00.5+01:00","logs":[1,null,"b"],"commit":{"filesChanged":{"added":[{"path":"x"}]}}}`,
		`{"status":"failure","author":{"githubUserId":"77"},"commit":null}`,
		`{"logs":"not a list"}`,
		`{"commit":"abc"}`,
		`{}`,
		`{"_id":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Deployment
		if err := json.Unmarshal(data, &d); err != nil {
			return
		}
		checkUTC(t, "createdAt", d.CreatedAt)
		checkUTC(t, "endedAt", d.EndedAt)
		if d.Status.Final() != (d.Status == DeploymentSuccess || d.Status == DeploymentFailure) {
			t.Fatalf("status %q: Final() = %v", d.Status, d.Status.Final())
		}
		for _, s := range []*string{d.Summary, d.Subdomain, d.Source} {
			if s != nil && *s == "" {
				t.Fatal("an empty string decoded as present")
			}
		}
	})
}
