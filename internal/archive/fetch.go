package archive

import (
	"context"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redirect"
)

// Fetch GETs link and verifies the archive while it streams in, writing every
// byte to w as well when w is not nil (nothing is buffered: the caller
// decides what to keep). Errors name the link's host only, never its path or
// query: a presigned link's query is its secret. A status other than 200 is
// an *HTTPError; an unservable archive is an *Error wrapped with the host;
// cancelling ctx stops the download, and so does a server that sends
// nothing for the Limits' IdleTimeout. A nil client means DownloadClient(nil).
func (l Limits) Fetch(ctx context.Context, client *http.Client, link string, w io.Writer) (Summary, error) {
	return l.fetch(ctx, client, link, func(ctx context.Context, body io.Reader) (Summary, error) {
		return l.verify(ctx, body, w, nil)
	})
}

// FetchFiles is Fetch that tells opts.File the digests of every regular
// file of the archive and opts.Dir every directory, as Files does; nothing
// is written.
func (l Limits) FetchFiles(ctx context.Context, client *http.Client, link string, opts UnpackOptions) (Summary, error) {
	return l.fetch(ctx, client, link, func(ctx context.Context, body io.Reader) (Summary, error) {
		return l.Files(ctx, body, opts)
	})
}

// FetchUnpack is Fetch that unpacks the archive into the empty directory
// dir while it streams in, as unpack does: dir holds the tree only if the
// whole download is verified, and is left empty otherwise.
func (l Limits) FetchUnpack(ctx context.Context, client *http.Client, link string, dir *os.Root, opts UnpackOptions) (Summary, error) {
	return l.fetch(ctx, client, link, func(ctx context.Context, body io.Reader) (Summary, error) {
		return l.unpack(ctx, body, dir, opts)
	})
}

// fetch GETs link and hands the body to consume, with the errors and
// bounds described at Fetch.
func (l Limits) fetch(ctx context.Context, client *http.Client, link string, consume func(context.Context, io.Reader) (Summary, error)) (Summary, error) {
	u, err := url.Parse(link)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Summary{}, errors.New("download: the bundle link is not an absolute http(s) URL")
	}
	host := bundlelink.Host(link) // never the path or the query: a presigned link's query is its secret
	idle := l.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	// A stall cancels the request with its own cause, told apart from the
	// caller's cancellation.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(idle, func() { cancel(errIdle) })
	defer timer.Stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return Summary{}, fmt.Errorf("download from %s: the link cannot be requested", host)
	}
	// The bytes as stored: Go's transport would otherwise ask for gzip and
	// undo a Content-Encoding: gzip that object stores send for .tar.gz
	// objects uploaded with it, hashing the tar instead of the archive.
	req.Header.Set("Accept-Encoding", "identity")
	if client == nil {
		client = defaultClient
	}
	resp, err := client.Do(req)
	timer.Stop()
	if err != nil {
		return Summary{}, fetchFailure(ctx, host, idle, withoutURL(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Summary{}, &HTTPError{StatusCode: resp.StatusCode, Status: resp.Status, Host: host, Code: storeErrorCode(resp.Body)}
	}
	body := &ctxReader{ctx: ctx, r: resp.Body, timer: timer, idle: idle}
	sum, err := consume(ctx, body)
	if err != nil {
		return Summary{}, fetchFailure(ctx, host, idle, withoutURL(err))
	}
	return sum, nil
}

// errIdle is the cause of a download cancelled for want of data.
var errIdle = errors.New("no data received")

// fetchFailure words a failed download, naming the host only.
func fetchFailure(ctx context.Context, host string, idle time.Duration, err error) error {
	if errors.Is(context.Cause(ctx), errIdle) {
		return fmt.Errorf("download from %s: %w", host, &Error{Kind: ErrRead,
			Reason: fmt.Sprintf("no data received for %s: the server or the network stalled; try again later", duration.Written(idle))})
	}
	return fmt.Errorf("download from %s: %w", host, err)
}

// DefaultIdleTimeout is how long a download may receive nothing before it
// is abandoned.
const DefaultIdleTimeout = 60 * time.Second

var defaultClient = DownloadClient(nil)

// DownloadClient returns the HTTP client for archive downloads: transport
// (Go's default transport when nil, which honours HTTPS_PROXY, NO_PROXY and
// SSL_CERT_FILE) and the redirect rule of every client of the provider
// (internal/redirect): up to 10 redirects, none from https to http (the
// archive would travel unprotected), none that changes the method, and
// none carrying a Referer header, which would hand the link and its
// signature to the next server. Whole downloads are bounded by their
// context and IdleTimeout, not by a fixed timeout.
func DownloadClient(transport http.RoundTripper) *http.Client {
	if transport == nil {
		transport = http.DefaultTransport
		if t, ok := transport.(*http.Transport); ok {
			transport = t.Clone()
		}
	}
	return &http.Client{Transport: transport, CheckRedirect: redirect.Check(redirect.Limit, "")}
}

// withoutURL drops the *url.Error layer, whose message quotes the whole link
// with its signature, and keeps its cause. It looks through an *Error's
// cause as well.
func withoutURL(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		var aerr *Error
		if errors.As(err, &aerr) && aerr.Err != nil {
			copied := *aerr
			copied.Err = withoutURL(aerr.Err)
			return &copied
		}
		return uerr.Err
	}
	return err
}

// ctxReader stops a body read once ctx is done, with ctx's error rather than
// the transport's, and keeps the idle timer running only while it waits for
// the network: time spent verifying or writing is not a stall.
type ctxReader struct {
	ctx   context.Context
	r     io.Reader
	timer *time.Timer
	idle  time.Duration
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	c.timer.Reset(c.idle)
	n, err := c.r.Read(p)
	c.timer.Stop()
	if err != nil && err != io.EOF {
		if cerr := c.ctx.Err(); cerr != nil {
			return n, cerr
		}
	}
	return n, err
}

var storeCode = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9.]{0,63}$`)

// storeErrorCode returns the <Code> of an S3 or GCS XML error body. Nothing
// else of the body is shown: some stores echo the signed request in it.
func storeErrorCode(body io.Reader) string {
	var e struct {
		Code string `xml:"Code"`
	}
	if xml.NewDecoder(io.LimitReader(body, 64<<10)).Decode(&e) != nil {
		return ""
	}
	if code := strings.TrimSpace(e.Code); storeCode.MatchString(code) {
		return code
	}
	return ""
}

// CheckSHA256 compares the archive's digest with the expected one (hex, any
// case), returning a *ChecksumError naming both on a mismatch.
func CheckSHA256(s Summary, expected string) error {
	want := strings.ToLower(strings.TrimSpace(expected))
	if raw, err := hex.DecodeString(want); err != nil || len(raw) != 32 {
		return fmt.Errorf("the expected SHA-256 %s is not 64 hexadecimal digits", quoteName(expected))
	}
	if want != s.SHA256 {
		return &ChecksumError{Want: want, Got: s.SHA256}
	}
	return nil
}
