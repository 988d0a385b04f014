package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

// maxBundleBytes bounds the download; the demo's bundle is a few kilobytes.
const maxBundleBytes = 256 << 20

// downloadBundle fetches the archive behind a presigned link. It only talks
// to the mock API's own address, and its errors never contain the link's
// signature.
func downloadBundle(ctx context.Context, w io.Writer, link, mockURL string) ([]byte, error) {
	shown := redactLink(link)
	u, err := url.Parse(link)
	if err != nil {
		return nil, errors.New("the bundle link is not a valid URL")
	}
	mock, err := url.Parse(mockURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != mock.Scheme || u.Host != mock.Host {
		return nil, fmt.Errorf("refusing to download %s: it does not point at the mock API (%s)", shown, mockURL)
	}

	client := &http.Client{
		Transport: &http.Transport{Proxy: nil}, // loopback only, never through a proxy
		Timeout:   time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return nil, errors.New("the bundle link is not a valid URL")
	}
	fmt.Fprintf(w, "GET %s\n", shown)
	resp, err := client.Do(req)
	if err != nil {
		// *url.Error quotes the whole URL, signature included: keep only the cause.
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, fmt.Errorf("download %s: %w", shown, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, fmt.Errorf("download %s: HTTP %s%s", shown, resp.Status, storageError(body))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBundleBytes+1))
	if err != nil {
		return nil, fmt.Errorf("download %s: reading the body: %w", shown, err)
	}
	if len(data) > maxBundleBytes {
		return nil, fmt.Errorf("download %s: the bundle is larger than %d bytes", shown, maxBundleBytes)
	}
	if resp.ContentLength >= 0 && resp.ContentLength != int64(len(data)) {
		return nil, fmt.Errorf("download %s: got %d bytes, Content-Length said %d", shown, len(data), resp.ContentLength)
	}
	return data, nil
}

// storageError summarises an object-storage XML error body, if it is one.
func storageError(body []byte) string {
	var e struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	if xml.Unmarshal(body, &e) == nil && e.Code != "" {
		return fmt.Sprintf(" (%s: %s)", e.Code, e.Message)
	}
	if s := strings.TrimSpace(string(body)); s != "" && len(s) <= 200 {
		return fmt.Sprintf(" (%s)", s)
	}
	return ""
}

type bundleFile struct {
	name string
	size int64
}

// inspectBundle checks that data is a gzip'd tar whose entries are safe
// relative paths, reads it to the end (verifying the gzip checksum) and
// returns its files.
func inspectBundle(data []byte) ([]bundleFile, error) {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return nil, errors.New("it does not start with the gzip magic bytes")
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	gz.Multistream(false)
	tr := tar.NewReader(gz)
	var files []bundleFile
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("tar: %w", err)
		}
		name := strings.TrimPrefix(hdr.Name, "./")
		if clean := path.Clean(name); path.IsAbs(name) || clean == ".." || strings.HasPrefix(clean, "../") {
			return nil, fmt.Errorf("tar: entry %q escapes the archive root", hdr.Name)
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeReg:
			n, err := io.Copy(io.Discard, tr)
			if err != nil {
				return nil, fmt.Errorf("tar: reading %s: %w", name, err)
			}
			files = append(files, bundleFile{name: name, size: n})
		default:
			return nil, fmt.Errorf("tar: entry %q has unexpected type %q", hdr.Name, hdr.Typeflag)
		}
	}
	// Read what follows the tar end marker so that gzip checks its CRC.
	if _, err := io.Copy(io.Discard, gz); err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	if len(files) == 0 {
		return nil, errors.New("the archive holds no files")
	}
	return files, nil
}

func printListing(w io.Writer, data []byte, files []bundleFile) {
	width := 1
	for _, f := range files {
		width = max(width, len(fmt.Sprint(f.size)))
	}
	fmt.Fprintf(w, "\nDownloaded bundle (%d bytes), %d files:\n", len(data), len(files))
	for _, f := range files {
		fmt.Fprintf(w, "  %*d  %s\n", width, f.size, f.name)
	}
}
