//go:build unix

package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/devprovider"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// Signals cannot reach an in-process provider, so this test builds the
// provider, installs it with a dev_overrides CLI configuration and runs the
// real terraform binary: Ctrl-C (SIGINT) in the middle of a long export must
// stop the apply promptly, keep the job's id in state, and let the next apply
// finish that same job instead of starting a second export.

const (
	interruptDomain   = "docs.example.com"
	interruptExport   = 10 * time.Second
	interruptLatency  = 5 * time.Second // asserted; about 1s is expected
	interruptSettling = 300 * time.Millisecond
)

const interruptConfig = `terraform {
  required_providers {
    docsadmin = {
      source = "docsadmin/docsadmin"
    }
  }
}

variable "create_timeout" {
  type = string
}

provider "docsadmin" {}

resource "docsadmin_static_export" "site" {
  domain = "` + interruptDomain + `"
  timeouts {
    create = var.create_timeout
  }
}
`

func TestAccInterrupt_applyStopsPromptlyAndResumesTheSameJob(t *testing.T) {
	terraformPath := acceptanceCLI(t)
	binDir := interruptBuildProvider(t)

	mock := newMock(t, mockapi.Config{})
	mock.SetExportBehavior(interruptDomain, mockapi.ExportBehavior{Duration: interruptExport})

	home := t.TempDir()
	workDir := filepath.Join(home, "work")
	cliConfig := filepath.Join(home, "terraform.rc")
	interruptWriteFile(t, cliConfig, devprovider.CLIConfig(binDir))
	if err := os.Mkdir(workDir, 0o700); err != nil {
		t.Fatal(err)
	}
	interruptWriteFile(t, filepath.Join(workDir, "main.tf"), interruptConfig)
	env := append(interruptEnvWithout(os.Environ(), "TF_", "DOCSADMIN_", "PLUGIN_", "CHECKPOINT_"),
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1",
		"DOCSADMIN_BASE_URL="+mock.URL,
		"DOCSADMIN_API_KEY="+mock.APIKey,
	)
	terraform := func(ctx context.Context, output *bytes.Buffer, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, terraformPath, args...)
		cmd.Dir = workDir
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = output, output
		cmd.WaitDelay = 5 * time.Second
		return cmd
	}

	// First apply: interrupted while it waits for the export.
	var firstOutput bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	first := terraform(ctx, &firstOutput, "apply", "-auto-approve", "-input=false", "-no-color", "-var=create_timeout=10m")
	started := time.Now()
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	var firstErr error
	exited := make(chan struct{})
	go func() {
		firstErr = first.Wait()
		close(exited)
	}()

	polling := interruptWaitUntil(ctx, func() bool { return mock.Requests(mockapi.EndpointGetExport) >= 1 }, exited)
	if !polling {
		t.Fatalf("the provider never polled the export job (%s after start); terraform said:\n%s", time.Since(started).Round(time.Millisecond), firstOutput.String())
	}
	// Let it settle into its wait between polls, as a user's Ctrl-C would find it.
	time.Sleep(interruptSettling)
	sent := time.Now()
	if err := first.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("sending SIGINT to terraform: %v", err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		_ = first.Process.Kill()
		t.Fatalf("terraform had not exited 30s after SIGINT; it said:\n%s", firstOutput.String())
	}
	latency := time.Since(sent)
	t.Logf("terraform exited %s after SIGINT, sent %s after it started",
		latency.Round(time.Millisecond), sent.Sub(started).Round(time.Millisecond))
	if latency > interruptLatency {
		t.Errorf("terraform took %s to exit after SIGINT; want under %s", latency.Round(time.Millisecond), interruptLatency)
	}
	var exitErr *exec.ExitError
	if !errors.As(firstErr, &exitErr) || exitErr.ExitCode() == 0 {
		t.Errorf("the interrupted apply ended with %v; want a non-zero exit status", firstErr)
	}
	ids := mock.ExportJobIDs(interruptDomain)
	if len(ids) != 1 {
		t.Fatalf("the API has jobs %v for %s; want exactly one", ids, interruptDomain)
	}
	jobID := ids[0]
	said := flattenWhitespace(firstOutput.String())
	for _, want := range []string{"Interrupt received", "export job " + jobID + " was interrupted", "saved in state", "next terraform apply continues with the same job"} {
		if !strings.Contains(said, want) {
			t.Errorf("the interrupted apply does not say %q; it said:\n%s", want, firstOutput.String())
		}
	}
	snap, _ := mock.ExportJob(jobID)
	if snap.Status != mockapi.StatusRunning {
		t.Fatalf("job %s is %q after the interrupt; the test needs it still running", jobID, snap.Status)
	}
	t.Logf("the interrupt came %s into the job's %s", sent.Sub(snap.CreatedAt).Round(time.Millisecond), interruptExport)
	state := interruptReadState(t, workDir)
	if state.JobID != jobID || state.Status == "completed" {
		t.Fatalf("after the interrupt, state holds job %q with status %q; want job %s, not completed", state.JobID, state.Status, jobID)
	}
	t.Logf("state after the interrupt: job %s, status %q, instance %s", state.JobID, state.Status, state.InstanceStatus)

	// Second apply, with more time: it continues with the same job.
	var secondOutput bytes.Buffer
	resumed := time.Now()
	second := terraform(ctx, &secondOutput, "apply", "-auto-approve", "-input=false", "-no-color", "-var=create_timeout=2m")
	if err := second.Run(); err != nil {
		t.Fatalf("the second apply failed: %v\n%s", err, secondOutput.String())
	}
	t.Logf("the second apply took %s", time.Since(resumed).Round(time.Millisecond))
	if n := mock.ExportsStarted(interruptDomain); n != 1 {
		t.Errorf("exports started: %d, want 1: the second apply started a new export instead of continuing %s", n, jobID)
	}
	state = interruptReadState(t, workDir)
	if state.JobID != jobID || state.Status != "completed" || state.BundleURL == "" || state.InstanceStatus != "" {
		t.Errorf("after the second apply, state holds job %q status %q (instance %q, link set: %v); want job %s completed with a link",
			state.JobID, state.Status, state.InstanceStatus, state.BundleURL != "", jobID)
	}
	if n := mock.BundlesGenerated(jobID); n != 1 {
		t.Errorf("bundles generated for %s: %d, want 1", jobID, n)
	}
}

// interruptBuildProvider builds the provider binary into a new directory and returns it.
func interruptBuildProvider(t *testing.T) string {
	t.Helper()
	binDir := t.TempDir()
	start := time.Now()
	if _, err := devprovider.Build(t.Context(), repoRoot(t), binDir, "test"); err != nil {
		t.Fatal(err)
	}
	t.Logf("built the provider in %s", time.Since(start).Round(time.Millisecond))
	return binDir
}

// interruptWaitUntil polls cond until it holds, ctx ends or the process exits.
func interruptWaitUntil(ctx context.Context, cond func() bool, exited <-chan struct{}) bool {
	for !cond() {
		select {
		case <-ctx.Done():
			return false
		case <-exited:
			return cond()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}

type interruptState struct {
	JobID, Status, BundleURL string
	InstanceStatus           string // "tainted" after a failed or interrupted create
}

var interruptJobIDShape = regexp.MustCompile(`^se_[0-9a-f]+$`)

func interruptReadState(t *testing.T, workDir string) interruptState {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(workDir, "terraform.tfstate"))
	if err != nil {
		t.Fatalf("reading the state file: %v", err)
	}
	var state struct {
		Resources []struct {
			Type      string `json:"type"`
			Instances []struct {
				Status     string `json:"status"`
				Attributes struct {
					JobID     string `json:"job_id"`
					Status    string `json:"status"`
					BundleURL string `json:"bundle_url"`
				} `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(raw, &state); err != nil {
		t.Fatalf("the state file is not JSON: %v", err)
	}
	for _, r := range state.Resources {
		if r.Type != "docsadmin_static_export" || len(r.Instances) != 1 {
			continue
		}
		in := r.Instances[0]
		if !interruptJobIDShape.MatchString(in.Attributes.JobID) {
			t.Fatalf("the state's job_id %q is not a job id", in.Attributes.JobID)
		}
		return interruptState{JobID: in.Attributes.JobID, Status: in.Attributes.Status, BundleURL: in.Attributes.BundleURL, InstanceStatus: in.Status}
	}
	t.Fatalf("the state file holds no docsadmin_static_export:\n%s", raw)
	return interruptState{}
}

func interruptWriteFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// interruptEnvWithout drops the variables whose names start with any of prefixes.
func interruptEnvWithout(env []string, prefixes ...string) []string {
	var kept []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, p := range prefixes {
			if strings.HasPrefix(strings.ToUpper(name), p) {
				drop = true
				break
			}
		}
		if !drop {
			kept = append(kept, kv)
		}
	}
	return kept
}
