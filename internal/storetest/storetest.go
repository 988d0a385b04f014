package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/testtools"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// bucketName is the name of the bucket (the Azure container) every server
// starts with.
const bucketName = "site-bucket"

// Server is a real object store serving on loopback for one test, with one
// empty bucket.
type Server struct {
	Name   string             // "s3", "gcs", "azure": the objectstore kind
	Target objectstore.Target // Kind and Bucket set (and Region, Endpoint, PathStyle for S3); Prefix empty
	Env    []string           // KEY=VALUE the store's SDK needs to reach it: credentials, emulator hosts; nothing else
}

// All starts one server of each kind.
func All(t testing.TB) []*Server {
	t.Helper()
	return []*Server{S3(t), GCS(t), Azure(t)}
}

// Setenv sets the servers' Env for the rest of the test, after taking away
// the cloud settings the machine's environment holds, so that the SDKs find
// these servers' credentials and nothing of a developer's own: no inherited
// AWS_, GOOGLE_, AZURE_, CLOUDSDK_ or emulator settings, empty AWS shared
// files and gcloud configuration, and no instance-metadata address that any
// SDK may reach (AWS's switched off, GCP's a loopback stand-in that has no
// credentials, Azure's chain reduced to the environment credential), so
// that a store opened without credentials fails at once. The servers must
// be of different kinds, whose settings never overlap; subtests can then
// use them side by side. Like t.Setenv, it cannot be used in parallel tests.
func Setenv(t testing.TB, servers ...*Server) {
	t.Helper()
	kinds := map[string]bool{}
	for _, s := range servers {
		if kinds[s.Name] {
			t.Fatalf("storetest.Setenv: two %s servers, whose settings would overwrite each other's", s.Name)
		}
		kinds[s.Name] = true
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if inherited(k) {
			t.Setenv(k, "") // restores the value when the test ends
			if err := os.Unsetenv(k); err != nil {
				t.Fatal(err)
			}
		}
	}
	env := isolation(t)
	for _, s := range servers {
		env = append(env, s.Env...)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// inherited reports whether an environment variable configures a cloud SDK.
func inherited(k string) bool {
	for _, p := range []string{"AWS_", "GOOGLE_", "AZURE_", "CLOUDSDK_", "GCE_METADATA_", "STORAGE_EMULATOR_HOST"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// isolation is what keeps each SDK's standard chain from reaching past the
// environment: files in the home directory, instance metadata.
func isolation(t testing.TB) []string {
	gcloud := filepath.Join(t.TempDir(), "gcloud")
	if err := os.Mkdir(gcloud, 0o700); err != nil {
		t.Fatal(err)
	}
	return append(emptyAWSFiles(t),
		"AWS_EC2_METADATA_DISABLED=true",
		"CLOUDSDK_CONFIG="+gcloud,
		"GCE_METADATA_HOST="+noMetadata(t),
		"AZURE_TOKEN_CREDENTIALS=EnvironmentCredential",
	)
}

// noMetadata serves, on loopback, GCP's metadata server for a machine
// that has no credentials: every request is answered 404. The GCP SDK has
// no switch to stop it looking for the metadata server, only
// GCE_METADATA_HOST to say where it is; where nothing listens there, its
// clients retry the refused connections until their deadline.
func noMetadata(t testing.TB) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no instance metadata in tests", http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// emptyAWSFiles points the AWS SDK's shared configuration and credentials
// files at empty files, so that ~/.aws is never read.
func emptyAWSFiles(t testing.TB) []string {
	dir := t.TempDir()
	var env []string
	for k, name := range map[string]string{"AWS_CONFIG_FILE": "config", "AWS_SHARED_CREDENTIALS_FILE": "credentials"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		env = append(env, k+"="+path)
	}
	return env
}

// tool is a pinned tool that a tools/*.sh script builds or installs into
// the tools cache, under a directory named for the tool and a hash of the
// files that pin it.
type tool struct {
	name   string   // the directory's name before the hash
	pins   []string // the files, under tools/, whose contents make the hash, in the script's order
	path   string   // the program's path inside the directory
	script string   // the script under tools/ that puts it there
}

// find is the path of the tool's program, or the end of the test through
// testtools.Missing.
func (tl tool) find(t testing.TB) string {
	t.Helper()
	root, err := tfrunner.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	key := sha256.New()
	for _, pin := range tl.pins {
		content, err := os.ReadFile(filepath.Join(root, "tools", pin))
		if err != nil {
			t.Fatal(err)
		}
		key.Write(content)
	}
	cache, err := tfrunner.ToolsCache()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cache, tl.name+"-"+hex.EncodeToString(key.Sum(nil))[:16], tl.path)
	if _, err := os.Stat(path); err != nil {
		testtools.Missing(t, tl.name+", a store of this test,", "run make tools (tools/"+tl.script+" puts it at "+path+")", err)
	}
	return path
}

// freeAddr is a loopback address no one listens on, for a server to take.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startTimeout bounds a server's start: Azurite takes over 20 seconds to
// listen on a host loaded by parallel builds.
const startTimeout = 90 * time.Second

// serve starts cmd, a server that is to listen on addr, waits until it
// accepts connections, and stops it when the test ends, logging its output
// if the test failed.
func serve(t testing.TB, name string, cmd *exec.Cmd, addr string) {
	t.Helper()
	out := &tail{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	exited := make(chan struct{})
	var waitErr error // read once exited is closed
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("%s's output:\n%s", name, out)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), startTimeout)
	defer cancel()
	for {
		if conn, err := net.Dial("tcp", addr); err == nil {
			conn.Close()
			return
		}
		select {
		case <-exited:
			t.Fatalf("%s stopped before it listened: %v\n%s", name, waitErr, out)
		case <-ctx.Done():
			t.Fatalf("%s did not listen on %s within %s\n%s", name, addr, startTimeout, out)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// setupTimeout bounds the creation of a server's bucket.
const setupTimeout = 30 * time.Second

// tail keeps the last max bytes written to it: a server's log, which a
// long test would otherwise grow without bound.
type tail struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	dropped int
}

func (w *tail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - w.max; over > 0 {
		w.dropped += over
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}

func (w *tail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dropped > 0 {
		return fmt.Sprintf("[%d earlier bytes left out]\n%s", w.dropped, w.buf)
	}
	return string(w.buf)
}
