package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
)

// downloadBundle fetches the archive behind a presigned link, verifying it as
// a deployment would while it streams in. It only talks to the mock API's own
// address, and its errors never contain the link's signature.
func downloadBundle(ctx context.Context, w io.Writer, link, mockURL string) ([]byte, archive.Summary, error) {
	u, err := url.Parse(link)
	if mock, _ := url.Parse(mockURL); err != nil || u.Scheme != mock.Scheme || u.Host != mock.Host {
		return nil, archive.Summary{}, fmt.Errorf("refusing to download %s: it does not point at the mock API (%s)", bundlelink.Redact(link), mockURL)
	}
	client := &http.Client{
		Transport: &http.Transport{Proxy: nil}, // loopback only, never through a proxy
		Timeout:   time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	fmt.Fprintf(w, "GET %s\n", bundlelink.Redact(link))
	var data bytes.Buffer // the demo's bundle is a few kilobytes
	sum, err := archive.Limits{}.Fetch(ctx, client, link, &data)
	return data.Bytes(), sum, err
}

// printListing lists the files of a verified bundle.
func printListing(w io.Writer, data []byte, sum archive.Summary) error {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nDownloaded bundle (%d bytes, SHA-256 %s), %d files:\n", sum.Size, sum.SHA256, sum.Files)
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeReg {
			fmt.Fprintf(w, "  %8d  %s\n", hdr.Size, hdr.Name)
		}
	}
}
