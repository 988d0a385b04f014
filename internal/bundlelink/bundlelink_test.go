package bundlelink_test

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
)

const (
	amzSignature  = "5d41402abc4b2a76b9719d911017c592ae2f1c6f0e5d4c3b2a19087f6e5d4c3b"
	googSignature = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
	amzCredential = "AKIAIOSFODNN7EXAMPLE%2F20261122%2Fus-east-1%2Fs3%2Faws4_request"
	amzToken      = "IQoJb3JpZ2luX2VjEJr%2F%2F%2F%2F%2Fwartoken"
)

func s3Link(query string) string {
	return "https://bucket.s3.amazonaws.com/se_3f9a2c1b8e7d4a06/bundle.tar.gz?" + query
}

func gcsLink(query string) string {
	return "https://storage.googleapis.com/bucket/se_1/bundle.tar.gz?" + query
}

var (
	fullS3Link = s3Link("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=" + amzCredential +
		"&X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Security-Token=" + amzToken +
		"&X-Amz-Signature=" + amzSignature)
	fullGCSLink = gcsLink("X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=svc%40project.iam.gserviceaccount.com%2F20261122%2Fauto%2Fstorage%2Fgoog4_request" +
		"&X-Goog-Date=20261122T080000Z&X-Goog-Expires=604800&X-Goog-SignedHeaders=host&X-Goog-Signature=" + googSignature)
)

var signed = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

func TestExpiry(t *testing.T) {
	tests := []struct {
		name string
		link string
		want time.Time
	}{
		{"S3", fullS3Link, signed.Add(time.Hour)},
		{"GCS", fullGCSLink, signed.Add(7 * 24 * time.Hour)},
		{"S3 lower-case keys", s3Link("x-amz-date=20261122T080000Z&x-amz-expires=60&x-amz-signature=" + amzSignature), signed.Add(time.Minute)},
		{"GCS mixed-case keys", gcsLink("x-goog-DATE=20261122T080000Z&X-GOOG-expires=900"), signed.Add(15 * time.Minute)},
		{"zero lifetime", s3Link("X-Amz-Date=20261122T080000Z&X-Amz-Expires=0"), signed},
		{"ten years", s3Link("X-Amz-Date=20261122T080000Z&X-Amz-Expires=315360000"), signed.Add(315360000 * time.Second)},
		{"percent-encoded keys", s3Link("X%2DAmz%2DDate=20261122T080000Z&X-Amz-Expires=3600"), signed.Add(time.Hour)},
		{"S3 wins over GCS", s3Link("X-Goog-Date=20261122T080000Z&X-Goog-Expires=60&X-Amz-Date=20261122T080000Z&X-Amz-Expires=120"), signed.Add(2 * time.Minute)},
		{"with a fragment", s3Link("X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600#part"), signed.Add(time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bundlelink.Expiry(tt.link)
			if err != nil {
				t.Fatalf("Expiry: %v", err)
			}
			if !got.Equal(tt.want) || got.Location() != time.UTC {
				t.Errorf("Expiry = %v, want %v (UTC)", got, tt.want)
			}
		})
	}
}

func TestExpiryErrors(t *testing.T) {
	tests := []struct {
		name      string
		link      string
		noExpiry  bool
		wantInErr []string
	}{
		{name: "no query", link: "https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz", noExpiry: true},
		{name: "empty query", link: "https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz?", noExpiry: true},
		{name: "unrelated query", link: s3Link("versionId=3&X-Amz-Signature=" + amzSignature), noExpiry: true},
		{name: "GCS v2 style", link: gcsLink("GoogleAccessId=svc&Expires=1795334400&Signature=" + amzSignature), noExpiry: true},
		{name: "empty string", link: "", noExpiry: true},
		{name: "S3 date only", link: s3Link("X-Amz-Date=20261122T080000Z&X-Amz-Signature=" + amzSignature),
			wantInErr: []string{"X-Amz-Date", "X-Amz-Expires", "only one"}},
		{name: "S3 expires only", link: s3Link("X-Amz-Expires=3600&X-Amz-Signature=" + amzSignature),
			wantInErr: []string{"X-Amz-Date", "X-Amz-Expires", "only one"}},
		{name: "GCS date only", link: gcsLink("X-Goog-Date=20261122T080000Z&X-Goog-Signature=" + googSignature),
			wantInErr: []string{"X-Goog-Date", "X-Goog-Expires"}},
		{name: "bad date", link: s3Link("X-Amz-Date=2026-11-22T08:00:00Z&X-Amz-Expires=3600&X-Amz-Signature=" + amzSignature),
			wantInErr: []string{"X-Amz-Date", "20060102T150405Z"}},
		{name: "date without zone", link: s3Link("X-Amz-Date=20261122T080000&X-Amz-Expires=3600&X-Amz-Signature=" + amzSignature),
			wantInErr: []string{"X-Amz-Date"}},
		{name: "empty date", link: s3Link("X-Amz-Date=&X-Amz-Expires=3600&X-Amz-Signature=" + amzSignature),
			wantInErr: []string{"X-Amz-Date"}},
		{name: "bad expires", link: s3Link("X-Amz-Date=20261122T080000Z&X-Amz-Expires=1h&X-Amz-Signature=" + amzSignature),
			wantInErr: []string{"X-Amz-Expires", "seconds"}},
		{name: "negative expires", link: s3Link("X-Amz-Date=20261122T080000Z&X-Amz-Expires=-60&X-Amz-Signature=" + amzSignature),
			wantInErr: []string{"X-Amz-Expires"}},
		{name: "absurd expires", link: s3Link("X-Amz-Date=20261122T080000Z&X-Amz-Expires=999999999999&X-Amz-Signature=" + amzSignature),
			wantInErr: []string{"X-Amz-Expires"}},
		{name: "GCS bad expires", link: gcsLink("X-Goog-Date=20261122T080000Z&X-Goog-Expires=soon&X-Goog-Signature=" + googSignature),
			wantInErr: []string{"X-Goog-Expires"}},
		{name: "not a URL", link: "https://bucket.s3.amazonaws.com/%zz?X-Amz-Signature=" + amzSignature,
			wantInErr: []string{"not a valid URL"}},
		{name: "control character", link: "https://bucket\x7f.example.com/?X-Amz-Signature=" + amzSignature,
			wantInErr: []string{"not a valid URL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := bundlelink.Expiry(tt.link)
			if err == nil {
				t.Fatalf("Expiry = %v, want an error", got)
			}
			if !got.IsZero() {
				t.Errorf("Expiry returned %v with its error", got)
			}
			if errors.Is(err, bundlelink.ErrNoExpiry) != tt.noExpiry {
				t.Errorf("errors.Is(err, ErrNoExpiry) = %v, want %v (err %v)", !tt.noExpiry, tt.noExpiry, err)
			}
			msg := err.Error()
			for _, want := range tt.wantInErr {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q lacks %q", msg, want)
				}
			}
			assertNoSecrets(t, msg, tt.link)
		})
	}
}

// assertNoSecrets fails if text holds any signing value of link, or the
// constants used as signatures and credentials in these tests.
func assertNoSecrets(t *testing.T, text, link string) {
	t.Helper()
	secrets := []string{amzSignature, googSignature, "AKIAIOSFODNN7EXAMPLE", "wartoken"}
	secrets = append(secrets, bundlelink.Signature(link)...)
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Errorf("%q reveals the secret %q", text, s)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct {
		name string
		link string
		want string
	}{
		{
			name: "S3 link",
			link: fullS3Link,
			want: s3Link("X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=REDACTED&X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Security-Token=REDACTED&X-Amz-Signature=REDACTED"),
		},
		{
			name: "GCS link",
			link: fullGCSLink,
			want: gcsLink("X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=REDACTED&X-Goog-Date=20261122T080000Z&X-Goog-Expires=604800&X-Goog-SignedHeaders=host&X-Goog-Signature=REDACTED"),
		},
		{
			name: "mixed-case and encoded keys",
			link: s3Link("x-amz-signature=" + amzSignature + "&X%2DAmz%2DSignature=" + amzSignature + "&x-goog-SIGNATURE=" + googSignature),
			want: s3Link("x-amz-signature=REDACTED&X%2DAmz%2DSignature=REDACTED&x-goog-SIGNATURE=REDACTED"),
		},
		{
			name: "other schemes' signatures and tokens",
			link: "https://acct.blob.core.windows.net/c/b.tar.gz?sv=2022-11-02&se=2026-11-22T09%3A00%3A00Z&sig=" + amzSignature + "&token=" + googSignature + "&Signature=abc123def456",
			want: "https://acct.blob.core.windows.net/c/b.tar.gz?sv=2022-11-02&se=2026-11-22T09%3A00%3A00Z&sig=REDACTED&token=REDACTED&Signature=REDACTED",
		},
		{
			name: "repeated signature",
			link: s3Link("X-Amz-Signature=" + amzSignature + "&X-Amz-Signature=" + googSignature),
			want: s3Link("X-Amz-Signature=REDACTED&X-Amz-Signature=REDACTED"),
		},
		{
			name: "signature without a value",
			link: s3Link("X-Amz-Signature&X-Amz-Expires=3600"),
			want: s3Link("X-Amz-Signature=REDACTED&X-Amz-Expires=3600"),
		},
		{
			name: "other parameters kept byte for byte",
			link: s3Link("response-content-disposition=attachment%3B%20filename%3D%22site.tar.gz%22&versionId=a+b&X-Amz-Signature=" + amzSignature),
			want: s3Link("response-content-disposition=attachment%3B%20filename%3D%22site.tar.gz%22&versionId=a+b&X-Amz-Signature=REDACTED"),
		},
		{
			name: "no query",
			link: "https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz",
			want: "https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz",
		},
		{
			name: "no signing parameter",
			link: s3Link("X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600"),
			want: s3Link("X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600"),
		},
		{
			name: "unparseable link",
			link: "https://bucket.s3.amazonaws.com/%zz?X-Amz-Signature=" + amzSignature,
			want: "(unparseable link hidden)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := bundlelink.Redact(tt.link)
			if got != tt.want {
				t.Errorf("Redact =\n  %s\nwant\n  %s", got, tt.want)
			}
			assertNoSecrets(t, got, tt.link)
			// Redacting twice changes nothing more.
			if again := bundlelink.Redact(got); got != "(unparseable link hidden)" && again != got {
				t.Errorf("Redact is not idempotent: %q then %q", got, again)
			}
		})
	}
}

func TestRedactKeepsTheLinkUsableForExpiry(t *testing.T) {
	for _, link := range []string{fullS3Link, fullGCSLink} {
		want, err := bundlelink.Expiry(link)
		if err != nil {
			t.Fatalf("Expiry: %v", err)
		}
		got, err := bundlelink.Expiry(bundlelink.Redact(link))
		if err != nil || !got.Equal(want) {
			t.Errorf("Expiry of the redacted link = %v, %v; want %v", got, err, want)
		}
	}
}

func TestSignature(t *testing.T) {
	decoded := func(s string) string {
		v, err := url.QueryUnescape(s)
		if err != nil {
			t.Fatalf("unescape %q: %v", s, err)
		}
		return v
	}
	tests := []struct {
		name string
		link string
		want []string
	}{
		{"S3", fullS3Link, []string{amzSignature, decoded(amzCredential), decoded(amzToken)}},
		{"GCS", fullGCSLink, []string{googSignature, "svc@project.iam.gserviceaccount.com/20261122/auto/storage/goog4_request"}},
		{"mixed case", s3Link("x-AMZ-signature=abc&SIG=def&Token=ghi"), []string{"abc", "def", "ghi"}},
		{"repeated", s3Link("X-Amz-Signature=one&X-Amz-Signature=two"), []string{"one", "two"}},
		{"none", s3Link("X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600"), nil},
		{"no query", "https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz", nil},
		{"unparseable", "https://bucket.s3.amazonaws.com/%zz?X-Amz-Signature=abc", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := bundlelink.Signature(tt.link)
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("Signature = %q, want %q", got, want)
			}
			redacted := bundlelink.Redact(tt.link)
			for _, v := range got {
				if strings.Contains(redacted, v) || strings.Contains(redacted, url.QueryEscape(v)) {
					t.Errorf("Redact output %q still holds %q", redacted, v)
				}
			}
		})
	}
}

func TestHostShowsNeitherPathNorQuery(t *testing.T) {
	for link, want := range map[string]string{
		"https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz?X-Amz-Signature=abc": "bucket.s3.amazonaws.com",
		"http://127.0.0.1:8080/b?sig=1":                                          "127.0.0.1:8080",
		"not a link ?sig=secret":                                                 "the bundle link's host",
	} {
		if got := bundlelink.Host(link); got != want {
			t.Errorf("Host(%q) = %q, want %q", link, got, want)
		}
	}
}

func TestSignatureInTextFindsEverySigningValue(t *testing.T) {
	link := "https://b.example.com/x?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=deadbeef&X-Goog-Signature=cafe&sig=s1&token=t1"
	text := "GET " + link + " failed"
	masked := bundlelink.SignatureInText.ReplaceAllString(text, "***")
	for _, secret := range bundlelink.Signature(link) {
		if strings.Contains(masked, secret) {
			t.Errorf("%q still holds %q", masked, secret)
		}
	}
	if !strings.Contains(masked, "b.example.com/x?") {
		t.Errorf("masking took more than the values: %q", masked)
	}
}

func TestWithoutLink(t *testing.T) {
	link := "https://b.s3.amazonaws.com/se_1/bundle.tar.gz?X-Amz-Date=20261122T080000Z&X-Amz-Signature=abc123"
	quoting := fmt.Errorf(`Get "%s": connection reset`, link)
	if got := bundlelink.WithoutLink(link, quoting).Error(); strings.Contains(got, "abc123") || !strings.Contains(got, "b.s3.amazonaws.com") {
		t.Errorf("WithoutLink(an error quoting the link) = %q: want the host and no signature", got)
	}
	plain := errors.New("the archive is larger than the 10 bytes the API reported for it")
	if got := bundlelink.WithoutLink(link, plain); got != plain {
		t.Errorf("WithoutLink changed an error that does not quote the link: %v", got)
	}
}
