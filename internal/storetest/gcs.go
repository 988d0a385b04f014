package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
)

var fakeGCSServer = tool{
	name:   "fake-gcs-server",
	pins:   []string{"fake-gcs-server/go.mod", "fake-gcs-server/go.sum"},
	path:   "fake-gcs-server",
	script: "fake-gcs-server.sh",
}

// GCS starts fake-gcs-server, serving the JSON API over plain HTTP from
// memory. The SDK finds it through STORAGE_EMULATOR_HOST, and then sends
// no credentials.
func GCS(t testing.TB) *Server {
	t.Helper()
	bin := fakeGCSServer.find(t)
	addr := freeAddr(t)
	host, port, _ := strings.Cut(addr, ":")
	// The public host is the one the SDK's downloads name.
	cmd := exec.Command(bin, "-scheme", "http", "-host", host, "-port", port, "-backend", "memory",
		"-public-host", addr, "-log-level", "warn")
	cmd.Dir = t.TempDir()
	serve(t, "fake-gcs-server", cmd, addr)

	body, err := json.Marshal(map[string]string{"name": bucketName})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), setupTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/storage/v1/b?project=storetest", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if err := expectStatus(req, http.StatusOK); err != nil {
		t.Fatalf("creating the GCS bucket: %v", err)
	}
	return &Server{
		Name:   objectstore.KindGCS,
		Target: objectstore.Target{Kind: objectstore.KindGCS, Bucket: bucketName},
		Env:    []string{"STORAGE_EMULATOR_HOST=" + addr},
	}
}

// expectStatus sends req and returns an error, with the start of the
// body, unless the answer has the status want.
func expectStatus(req *http.Request, want int) error {
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %s, want %d: %s", req.Method, req.URL.Path, resp.Status, want, msg)
	}
	return nil
}
