package storetest

import (
	"bytes"
	"context"
	"crypto/md5"
	"io"
	"os"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
)

// TestRoundTrip starts each store and sends an object through it with the
// code that publishes sites, from an environment that holds wrong
// settings for every SDK before Setenv takes them away: the object comes
// back whole and its listing carries its MD5.
func TestRoundTrip(t *testing.T) {
	for name, start := range map[string]func(testing.TB) *Server{"s3": S3, "gcs": GCS, "azure": Azure} {
		t.Run(name, func(t *testing.T) {
			// Each would send the SDK elsewhere, or with other
			// credentials, if it stayed.
			t.Setenv("AWS_PROFILE", "no-such-profile")
			t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/no/such/file.json")
			t.Setenv("AZURE_STORAGE_ACCOUNT", azureAccount)
			t.Setenv("AZURE_STORAGE_KEY", "d3Jvbmcga2V5")

			s := start(t)
			if s.Name != name || s.Target.Kind != name || s.Target.Bucket != bucketName || s.Target.Prefix != "" {
				t.Fatalf("server %+v: want name and kind %q, bucket %q, no prefix", s, name, bucketName)
			}
			Setenv(t, s)
			if v, ok := os.LookupEnv("AWS_PROFILE"); ok {
				t.Fatalf("AWS_PROFILE=%q is still set", v)
			}
			if got := os.Getenv("AWS_EC2_METADATA_DISABLED"); got != "true" {
				t.Fatalf("AWS_EC2_METADATA_DISABLED=%q, want true", got)
			}

			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			b, err := objectstore.Open(ctx, s.Target)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()

			const key = "docs/index.html"
			content := bytes.Repeat([]byte("<p>round trip</p>\n"), 1000)
			sum := md5.Sum(content)
			if err := b.WriteAll(ctx, key, content, &blob.WriterOptions{ContentType: "text/html", ContentMD5: sum[:]}); err != nil {
				t.Fatalf("writing %s: %v", key, err)
			}
			got, err := b.ReadAll(ctx, key)
			if err != nil {
				t.Fatalf("reading %s: %v", key, err)
			}
			if !bytes.Equal(got, content) {
				t.Fatalf("read %d bytes that differ from the %d written", len(got), len(content))
			}

			it := b.List(&blob.ListOptions{Prefix: "docs/"})
			var listed []*blob.ListObject
			for {
				obj, err := it.Next(ctx)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("listing: %v", err)
				}
				listed = append(listed, obj)
			}
			if len(listed) != 1 || listed[0].Key != key {
				t.Fatalf("listed %d objects, want just %s: %+v", len(listed), key, listed)
			}
			if !bytes.Equal(listed[0].MD5, sum[:]) || listed[0].Size != int64(len(content)) {
				t.Fatalf("listed %s with MD5 %x and size %d, want %x and %d", key, listed[0].MD5, listed[0].Size, sum, len(content))
			}
		})
	}
}

// TestSetenvLeavesNoCredentials opens each kind of store, in the cloud,
// after Setenv: with no credentials to find, and no metadata server to ask
// for some, each fails at once, before a request leaves the host.
func TestSetenvLeavesNoCredentials(t *testing.T) {
	Setenv(t)
	for _, target := range []objectstore.Target{
		{Kind: objectstore.KindS3, Bucket: "docsadmin-storetest", Region: "eu-west-1"},
		{Kind: objectstore.KindGCS, Bucket: "docsadmin-storetest"},
		{Kind: objectstore.KindAzure, Bucket: "docsadmin-storetest", Account: "docsadminstoretest"},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		start := time.Now()
		b, err := objectstore.Open(ctx, target)
		if err == nil {
			_, err = b.List(nil).Next(ctx)
			b.Close()
		}
		took, expired := time.Since(start), ctx.Err() != nil
		cancel()
		if err == nil || expired || took > 10*time.Second {
			t.Errorf("%s: listing without credentials took %s and returned %v; want an error at once", target, took, err)
		}
	}
}

// TestTail keeps the end of what a server writes, and says how much it
// left out.
func TestTail(t *testing.T) {
	w := &tail{max: 8}
	for _, s := range []string{"0123", "456789", "abc"} {
		if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got, want := w.String(), "[5 earlier bytes left out]\n56789abc"; got != want {
		t.Fatalf("tail holds %q, want %q", got, want)
	}
}
