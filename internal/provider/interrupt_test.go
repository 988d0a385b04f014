//go:build unix

package provider

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// Signals cannot reach an in-process provider, so this test builds the
// provider, installs it with a dev_overrides CLI configuration and runs the
// real terraform binary through internal/tfrunner: Ctrl-C (SIGINT) in the
// middle of a long export must stop the apply promptly, keep the job's id in
// state, and let the next apply finish that same job instead of starting a
// second export.

const (
	interruptDomain  = "docs.example.com"
	interruptExport  = 10 * time.Second
	interruptLatency = 5 * time.Second // asserted; about 1s is expected
)

const interruptConfig = cliRequiredProviders + `
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
	runner := acctest.CLIRunner(t)

	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SetExportBehavior(interruptDomain, mockapi.ExportBehavior{Duration: interruptExport})

	workDir := t.TempDir()
	acctest.WriteFile(t, filepath.Join(workDir, "main.tf"), interruptConfig)
	tf, err := runner.Workdir(workDir, map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey})
	if err != nil {
		t.Fatal(err)
	}

	// First apply: interrupted while it waits for the export.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	firstOutput := tfrunner.Record(tf)
	// Cancelling the apply's context sends terraform one SIGINT, as Ctrl-C would.
	applyCtx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	var firstErr error
	exited := make(chan struct{})
	started := time.Now()
	go func() {
		firstErr = tf.Apply(applyCtx, tfexec.Var("create_timeout=10m"))
		close(exited)
	}()

	polling := interruptWaitUntil(ctx, func() bool { return mock.Requests(mockapi.EndpointGetExport) >= 1 }, exited)
	if !polling {
		t.Fatalf("the provider never polled the export job (%s after start); terraform said:\n%s", time.Since(started).Round(time.Millisecond), firstOutput)
	}
	// Once the first poll is answered the provider waits between polls, as a
	// user's Ctrl-C would find it.
	if !interruptWaitUntil(ctx, func() bool { return answered(mock, mockapi.EndpointGetExport) }, exited) {
		t.Fatalf("the mock never answered the provider's poll; terraform said:\n%s", firstOutput)
	}
	sent := time.Now()
	interrupt()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("terraform had not exited 30s after SIGINT; it said:\n%s", firstOutput)
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
	said := acctest.FlattenWhitespace(firstOutput.String())
	for _, want := range []string{"Interrupt received", "export job " + jobID + " was interrupted", "saved in state", "next terraform apply continues with the same job"} {
		if !strings.Contains(said, want) {
			t.Errorf("the interrupted apply does not say %q; it said:\n%s", want, firstOutput)
		}
	}
	if strings.Contains(said, providerBugText) {
		t.Errorf("the interrupted apply reports a provider bug; it said:\n%s", firstOutput)
	}
	snap, _ := mock.ExportJob(jobID)
	if snap.Status != mockapi.StatusRunning {
		t.Fatalf("job %s is %q after the interrupt; the test needs it still running", jobID, snap.Status)
	}
	t.Logf("the interrupt came %s into the job's %s", sent.Sub(snap.CreatedAt).Round(time.Millisecond), interruptExport)
	state := interruptReadState(ctx, t, tf)
	if state.JobID != jobID || state.Status == "completed" {
		t.Fatalf("after the interrupt, state holds job %q with status %q; want job %s, not completed", state.JobID, state.Status, jobID)
	}
	t.Logf("state after the interrupt: job %s, status %q, tainted %v", state.JobID, state.Status, state.Tainted)

	// The plan shows the tainted resource replaced, and says that the apply
	// continues the job rather than destroying anything.
	planOutput := tfrunner.Record(tf)
	if _, err := tf.Plan(ctx, tfexec.Var("create_timeout=2m")); err != nil {
		t.Fatalf("the plan after the interrupt failed: %v\n%s", err, planOutput)
	}
	said = acctest.FlattenWhitespace(planOutput.String())
	for _, want := range []string{"Unfinished work: the next apply continues it", "Export job " + jobID + " of " + interruptDomain + " was left unfinished",
		"nothing is deleted at the API", "continues with the same job"} {
		if !strings.Contains(said, want) {
			t.Errorf("the plan after the interrupt does not say %q; it said:\n%s", want, planOutput)
		}
	}

	// Second apply, with more time: it continues with the same job.
	secondOutput := tfrunner.Record(tf)
	resumed := time.Now()
	if err := tf.Apply(ctx, tfexec.Var("create_timeout=2m")); err != nil {
		t.Fatalf("the second apply failed: %v\n%s", err, secondOutput)
	}
	t.Logf("the second apply took %s", time.Since(resumed).Round(time.Millisecond))
	if n := mock.ExportsStarted(interruptDomain); n != 1 {
		t.Errorf("exports started: %d, want 1: the second apply started a new export instead of continuing %s", n, jobID)
	}
	state = interruptReadState(ctx, t, tf)
	if state.JobID != jobID || state.Status != "completed" || state.BundleURL == "" || state.Tainted {
		t.Errorf("after the second apply, state holds job %q status %q (tainted %v, link set: %v); want job %s completed with a link",
			state.JobID, state.Status, state.Tainted, state.BundleURL != "", jobID)
	}
	if n := mock.BundlesGenerated(jobID); n != 1 {
		t.Errorf("bundles generated for %s: %d, want 1", jobID, n)
	}
}

// answered reports whether the mock answered a request to e.
func answered(mock *mockapi.Server, e mockapi.Endpoint) bool {
	return slices.ContainsFunc(mock.RequestLog(), func(r mockapi.LoggedRequest) bool { return r.Endpoint == e && r.Status != 0 })
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
	Tainted                  bool // after a failed or interrupted create
}

var interruptJobIDShape = regexp.MustCompile(`^se_[0-9a-f]+$`)

// interruptReadState reads the export from terraform show -json.
func interruptReadState(ctx context.Context, t *testing.T, tf *tfexec.Terraform) interruptState {
	t.Helper()
	state, err := tf.Show(ctx)
	if err != nil {
		t.Fatalf("terraform show: %v", err)
	}
	if state.Values != nil && state.Values.RootModule != nil {
		for _, r := range state.Values.RootModule.Resources {
			if r.Type != "docsadmin_static_export" {
				continue
			}
			str := func(name string) string { s, _ := r.AttributeValues[name].(string); return s }
			if !interruptJobIDShape.MatchString(str("job_id")) {
				t.Fatalf("the state's job_id %q is not a job id", str("job_id"))
			}
			return interruptState{JobID: str("job_id"), Status: str("status"), BundleURL: str("bundle_url"), Tainted: r.Tainted}
		}
	}
	t.Fatalf("the state holds no docsadmin_static_export: %+v", state.Values)
	return interruptState{}
}

// Ctrl-C while the archive is being downloaded and verified ends the apply
// at once, whatever the link's host does: here it sends nothing, and the
// idle timeout (60s by default) is far away.
func TestAccInterrupt_verificationStopsAtOnce(t *testing.T) {
	runner := acctest.CLIRunner(t)
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.InjectFault(mockapi.EndpointDownload, mockapi.Fault{Delay: 10 * time.Minute})

	workDir := t.TempDir()
	acctest.WriteFile(t, filepath.Join(workDir, "main.tf"), interruptConfig)
	tf, err := runner.Workdir(workDir, map[string]string{"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	output := tfrunner.Record(tf)
	applyCtx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	var applyErr error
	exited := make(chan struct{})
	go func() {
		applyErr = tf.Apply(applyCtx, tfexec.Var("create_timeout=10m"))
		close(exited)
	}()
	if !interruptWaitUntil(ctx, func() bool { return mock.Requests(mockapi.EndpointDownload) >= 1 }, exited) {
		t.Fatalf("the provider never started the download; terraform said:\n%s", output)
	}
	// The provider waits for the download's answer, which the fault holds.
	sent := time.Now()
	interrupt()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("terraform had not exited 30s after SIGINT during verification; it said:\n%s", output)
	}
	if latency := time.Since(sent); latency > interruptLatency {
		t.Errorf("terraform took %s to exit after SIGINT during verification; want under %s", latency.Round(time.Millisecond), interruptLatency)
	}
	var exitErr *exec.ExitError
	if !errors.As(applyErr, &exitErr) || exitErr.ExitCode() == 0 {
		t.Errorf("the interrupted apply ended with %v; want a non-zero exit status", applyErr)
	}
	said := acctest.FlattenWhitespace(output.String())
	for _, bad := range []string{providerBugText, "panic", "Plugin did not respond"} {
		if strings.Contains(said, bad) {
			t.Errorf("the interrupted apply says %q:\n%s", bad, output)
		}
	}
	if n := mock.ExportsStarted(interruptDomain); n != 1 {
		t.Errorf("exports started: %d, want 1", n)
	}
}
