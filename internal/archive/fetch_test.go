package archive_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// signature is the secret part of the test links.
const signature = "5d41402abc4b2a76b9719d911017c592feedface"

func presigned(base string) string {
	return base + "/bucket/se_1/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F20261122&X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-Signature=" + signature
}

// checkNoSecret fails when the error holds more of the link than its host.
func checkNoSecret(t *testing.T, err error, link string) {
	t.Helper()
	u, _ := url.Parse(link)
	for _, secret := range []string{signature, "AKIDEXAMPLE", u.RawQuery, u.Path} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error %q holds %q", err, secret)
		}
	}
	if !strings.Contains(err.Error(), u.Host) {
		t.Errorf("error %q does not name the host %s", err, u.Host)
	}
}

func TestFetch(t *testing.T) {
	data := site(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("X-Amz-Signature") != signature {
			http.Error(w, "bad signature", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/gzip")
		_, _ = w.Write(data)
	}))
	defer srv.Close()

	sum, err := (archive.Limits{}).Fetch(context.Background(), srv.Client(), presigned(srv.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.SHA256 != sha(data) || sum.Size != int64(len(data)) || sum.Files != 3 {
		t.Fatalf("Fetch = %+v", sum)
	}
	if err := archive.CheckSHA256(sum, strings.ToUpper(sha(data))); err != nil {
		t.Fatalf("CheckSHA256 of the right digest: %v", err)
	}

	var saved bytes.Buffer
	if _, err := (archive.Limits{}).Fetch(context.Background(), srv.Client(), presigned(srv.URL), &saved); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(saved.Bytes(), data) {
		t.Fatalf("saved %d bytes, want the %d served", saved.Len(), len(data))
	}
}

// TestFetchKeepsContentEncoding: an object uploaded with Content-Encoding:
// gzip is served with it; the archive is still what is verified and hashed.
func TestFetchKeepsContentEncoding(t *testing.T) {
	data := site(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Accept-Encoding"); got != "identity" {
			t.Errorf("Accept-Encoding = %q, want identity", got)
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "application/x-tar")
		_, _ = w.Write(data)
	}))
	defer srv.Close()
	sum, err := (archive.Limits{}).Fetch(context.Background(), &http.Client{}, presigned(srv.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.SHA256 != sha(data) {
		t.Fatalf("SHA-256 %s, want the served archive's %s", sum.SHA256, sha(data))
	}
}

func TestFetchHTTPErrors(t *testing.T) {
	tests := []struct {
		status int
		body   string
		code   string
		words  string
	}{
		{http.StatusForbidden, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message><X-Amz-Expires>3600</X-Amz-Expires><CanonicalQueryString>X-Amz-Credential=AKIDEXAMPLE</CanonicalQueryString><RequestId>1</RequestId></Error>`, "AccessDenied", "expired"},
		{http.StatusForbidden, `<Error><Code>SignatureDoesNotMatch</Code><StringToSign>AWS4-HMAC-SHA256 ` + signature + `</StringToSign></Error>`, "SignatureDoesNotMatch", "refused"},
		{http.StatusNotFound, `<Error><Code>NoSuchKey</Code></Error>`, "NoSuchKey", "deleted"},
		{http.StatusInternalServerError, "internal error: " + signature, "", "500 Internal Server Error"},
		{http.StatusBadRequest, `<Error><Code>` + signature + `<script></Code></Error>`, "", "400 Bad Request"},
	}
	for _, tc := range tests {
		t.Run(strconv.Itoa(tc.status)+tc.code, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			link := presigned(srv.URL)
			_, err := (archive.Limits{}).Fetch(context.Background(), srv.Client(), link, nil)
			var herr *archive.HTTPError
			if !errors.As(err, &herr) {
				t.Fatalf("error %v is not an *HTTPError", err)
			}
			if herr.StatusCode != tc.status || herr.Code != tc.code {
				t.Errorf("HTTPError = %+v, want status %d and code %q", herr, tc.status, tc.code)
			}
			if !strings.Contains(err.Error(), tc.words) {
				t.Errorf("error %q does not say %q", err, tc.words)
			}
			checkNoSecret(t, err, link)
		})
	}
}

func TestFetchFailures(t *testing.T) {
	data := site(t)
	truncating := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		_, _ = w.Write(data[:len(data)/2])
	}))
	defer truncating.Close()
	htmlPage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "<!DOCTYPE html><html><body>Please sign in</body></html>")
	}))
	defer htmlPage.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	redirectLoop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.String(), http.StatusFound)
	}))
	defer redirectLoop.Close()

	tests := []struct {
		name string
		srv  *httptest.Server
		kind error
	}{
		{"body cut short", truncating, archive.ErrCorrupt},
		{"HTML page instead of the archive", htmlPage, archive.ErrNotTarGz},
		{"nothing listening", closed, nil},
		{"redirect loop", redirectLoop, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			link := presigned(tc.srv.URL)
			_, err := (archive.Limits{}).Fetch(context.Background(), http.DefaultClient, link, nil)
			if err == nil {
				t.Fatal("Fetch succeeded")
			}
			if tc.kind != nil && !errors.Is(err, tc.kind) {
				t.Errorf("error %q is not %v", err, tc.kind)
			}
			checkNoSecret(t, err, link)
		})
	}

	for _, link := range []string{"", "::", "/relative/bundle.tar.gz?sig=" + signature, "ftp://host/x?sig=" + signature} {
		_, err := (archive.Limits{}).Fetch(context.Background(), http.DefaultClient, link, nil)
		if err == nil || strings.Contains(err.Error(), signature) {
			t.Errorf("Fetch(%q) = %v, want an error without the link", link, err)
		}
	}
}

func TestFetchStopsWhenCancelled(t *testing.T) {
	// A large archive served slowly: the download is under way when the
	// context is cancelled.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		site := sitegen.Archive{Size: 1 << 30, Seed: 1}.Open()
		defer site.Close()
		buf := make([]byte, 32<<10)
		for r.Context().Err() == nil {
			n, err := site.Read(buf)
			if _, werr := w.Write(buf[:n]); werr != nil || err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(time.Millisecond)
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := (archive.Limits{}).Fetch(ctx, srv.Client(), presigned(srv.URL), io.Discard)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Fetch after the deadline: %v, want context.DeadlineExceeded", err)
	}
	checkNoSecret(t, err, presigned(srv.URL))
}

func TestCheckSHA256(t *testing.T) {
	sum := archive.Summary{SHA256: sha([]byte("a"))}
	other := sha([]byte("b"))
	err := archive.CheckSHA256(sum, other)
	var cerr *archive.ChecksumError
	if !errors.As(err, &cerr) || cerr.Want != other || cerr.Got != sum.SHA256 {
		t.Fatalf("CheckSHA256 mismatch: %v", err)
	}
	if !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), sum.SHA256) {
		t.Errorf("error %q does not name both digests", err)
	}
	for _, bad := range []string{"", "abc", strings.Repeat("g", 64), other + "00"} {
		if err := archive.CheckSHA256(sum, bad); err == nil || errors.As(err, &cerr) {
			t.Errorf("CheckSHA256(%q) = %v, want an invalid-digest error", bad, err)
		}
	}
	if err := archive.CheckSHA256(sum, " "+sum.SHA256+"\n"); err != nil {
		t.Errorf("CheckSHA256 with surrounding space: %v", err)
	}
}

// TestFetchRedirectsWithoutReferer: the presigned link is never handed to
// the server a redirect leads to.
func TestFetchRedirectsWithoutReferer(t *testing.T) {
	data := site(t)
	referers := make(chan string, 1)
	final := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		referers <- r.Header.Get("Referer")
		_, _ = w.Write(data)
	}))
	defer final.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, final.URL+"/mirror/bundle.tar.gz", http.StatusFound)
	}))
	defer first.Close()
	// Go's own client would send the whole link, signature included.
	sum, err := (archive.Limits{}).Fetch(context.Background(), archive.DownloadClient(first.Client().Transport), presigned(first.URL), nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.SHA256 != sha(data) {
		t.Fatalf("Fetch = %+v", sum)
	}
	if ref := <-referers; ref != "" {
		t.Fatalf("the redirect's target was sent Referer %q", ref)
	}
	// The default client (nil) has the same policy.
	if _, err := (archive.Limits{}).Fetch(context.Background(), nil, presigned(first.URL), nil); err != nil {
		t.Fatal(err)
	}
	if ref := <-referers; ref != "" {
		t.Fatalf("with the default client, the redirect's target was sent Referer %q", ref)
	}
}

// TestFetchRefusesDowngrade: a redirect from https to http is refused before
// anything is sent over http, and the error names hosts only.
func TestFetchRefusesDowngrade(t *testing.T) {
	plainHit := false
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		plainHit = true
		_, _ = w.Write(site(t))
	}))
	defer plain.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/bundle.tar.gz?"+r.URL.RawQuery, http.StatusFound)
	}))
	defer secure.Close()
	link := presigned(secure.URL)
	_, err := (archive.Limits{}).Fetch(context.Background(), archive.DownloadClient(secure.Client().Transport), link, nil)
	if err == nil || !strings.Contains(err.Error(), "from https to http") {
		t.Fatalf("Fetch redirected to http: %v", err)
	}
	if plainHit {
		t.Fatal("the http server was asked for the archive")
	}
	checkNoSecret(t, err, link)

	// https to https is followed.
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(site(t))
	}))
	defer other.Close()
	secure.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/bundle.tar.gz", http.StatusFound)
	})
	transport := secure.Client().Transport.(*http.Transport).Clone()
	transport.TLSClientConfig.RootCAs.AddCert(other.Certificate())
	if _, err := (archive.Limits{}).Fetch(context.Background(), archive.DownloadClient(transport), link, nil); err != nil {
		t.Fatalf("https to https: %v", err)
	}
}

// TestFetchIdleTimeout: a server that stops sending, before its headers or
// in the middle of the archive, ends the download after IdleTimeout with an
// error that names the host only.
func TestFetchIdleTimeout(t *testing.T) {
	data := site(t)
	for _, stall := range []string{"headers", "body"} {
		t.Run(stall, func(t *testing.T) {
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if stall == "body" {
					w.Header().Set("Content-Length", strconv.Itoa(len(data)))
					_, _ = w.Write(data[:len(data)/2])
					w.(http.Flusher).Flush()
				}
				select {
				case <-release:
				case <-r.Context().Done():
				}
			}))
			defer srv.Close()
			defer close(release)
			link := presigned(srv.URL)
			start := time.Now()
			_, err := archive.Limits{IdleTimeout: 300 * time.Millisecond}.Fetch(context.Background(), srv.Client(), link, nil)
			elapsed := time.Since(start)
			if !errors.Is(err, archive.ErrRead) || !strings.Contains(err.Error(), "no data received for 300ms") {
				t.Fatalf("Fetch from a stalled server: %v", err)
			}
			if elapsed > 2*time.Second {
				t.Fatalf("Fetch gave up after %s", elapsed)
			}
			checkNoSecret(t, err, link)
		})
	}
}

// TestFetchIdleTimeoutIgnoresSlowWriter: time spent writing the archive is
// not a stall of the server.
func TestFetchIdleTimeoutIgnoresSlowWriter(t *testing.T) {
	data := site(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(data)
	}))
	defer srv.Close()
	slow := writerFunc(func(p []byte) (int, error) {
		time.Sleep(150 * time.Millisecond)
		return len(p), nil
	})
	if _, err := (archive.Limits{IdleTimeout: 100 * time.Millisecond}).Fetch(context.Background(), srv.Client(), presigned(srv.URL), slow); err != nil {
		t.Fatal(err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
