//go:build unix

package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/tfrunner"
)

// TestSecrets_neverInLogsOrOutput runs apply, plan, refresh, a failing
// refresh (401) and destroy with the most verbose logging of both Terraform
// and the provider, records everything Terraform prints to its user, and
// checks that neither the API key nor a bundle link's signature appears
// anywhere.
func TestSecrets_neverInLogsOrOutput(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "terraform.log")
	outputPath := filepath.Join(dir, "terraform-output.txt")

	realTerraform := acctest.CLI(t)
	// The CLI logs its own version on start, naming the engine.
	cliVersionLine := "Terraform version"
	if acctest.RunningOpenTofu(t) {
		cliVersionLine = "OpenTofu version"
	}
	t.Setenv("TF_ACC_TERRAFORM_PATH", writeRecordingTerraform(t, dir, realTerraform, outputPath))
	// TF_LOG and TF_LOG_PATH drive the provider served in this process;
	// TF_ACC_LOG and TF_ACC_LOG_PATH make the testing framework pass the same
	// to the Terraform CLI, so that both write into one file.
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_LOG_PATH", logPath)
	t.Setenv("TF_ACC_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logPath)
	t.Setenv("TF_LOG_PATH_MASK", "")

	mock := acctest.NewMock(t, mockapi.Config{})
	apiKey := mock.APIKey
	const rotatedKey = "dsa_rotated_9a8b7c6d5e4f3021"
	config := acctest.ProviderConfig(mock, "") + `
resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}

output "bundle_url" {
  value     = docsadmin_static_export.site.bundle_url
  sensitive = true
}
`
	var bundleURL, jobID string
	failure := &stepFailure{step: 4}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		ErrorCheck:               failure.capture,
		Steps: []resource.TestStep{
			{
				PreConfig: failure.enter(1),
				Config:    config,
				Check: resource.ComposeTestCheckFunc(
					captureAttr(acctest.ExportAddress, "bundle_url", &bundleURL),
					captureAttr(acctest.ExportAddress, "job_id", &jobID),
				),
			},
			{PreConfig: failure.enter(2), Config: config, PlanOnly: true},
			{PreConfig: failure.enter(3), RefreshState: true},
			{
				// The key expires: the refresh before the plan fails with a 401.
				PreConfig: func() {
					failure.enter(4)()
					mock.SetAPIKey(rotatedKey)
				},
				Config: config,
			},
			{
				PreConfig: func() {
					failure.enter(5)()
					mock.SetAPIKey(apiKey)
				},
				Config:  config,
				Destroy: true,
			},
		},
	})

	logs, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("reading the log file: %v", err)
	}
	output, err := os.ReadFile(outputPath)
	if err != nil {
		t.Fatalf("reading the recorded Terraform output: %v", err)
	}

	// Without these the checks below would pass on an empty or unrelated file.
	providerAndCLILogs, harnessRecords := withoutHarnessRecords(string(logs))
	for _, line := range []string{"API request", "started static export", "docsadmin_static_export", cliVersionLine} {
		if !strings.Contains(providerAndCLILogs, line) {
			t.Errorf("the log file (%d bytes) has no line with %q: TF_LOG/TF_LOG_PATH did not reach the provider or Terraform", len(logs), line)
		}
	}
	for _, line := range []string{"Apply complete!", "No changes.", "Destruction complete", "(sensitive value)"} {
		if !strings.Contains(string(output), line) {
			t.Errorf("the recorded Terraform output (%d bytes) has no %q: the recording missed a command", len(output), line)
		}
	}
	failure.expect(t, []string{"Cannot read the static export job", "HTTP 401 Unauthorized", "generate a new admin API key"}, nil)

	secrets := map[string]string{"the API key": apiKey, "the rotated API key": rotatedKey}
	for i, sig := range bundlelink.Signature(bundleURL) {
		// The mock signs with the credential "mock", a word too common to
		// look for; the signature itself is 64 hex digits.
		if len(sig) >= 12 {
			secrets[fmt.Sprintf("link signing value %d", i+1)] = sig
		}
	}
	if len(secrets) < 3 {
		t.Fatalf("the bundle link of job %s has no signature to look for", jobID)
	}
	places := map[string]string{
		"the TRACE log file":       providerAndCLILogs,
		"Terraform's output":       string(output),
		"the failing step's error": failure.text,
	}
	for place, text := range places {
		for what, secret := range secrets {
			if n := strings.Count(text, secret); n > 0 {
				t.Errorf("%s appears %d times in %s, for example: %s", what, n, place, secretInContext(text, secret))
			}
		}
	}
	t.Logf("left out %d records of the testing framework, which logs each step's configuration", harnessRecords)
	t.Logf("checked %d bytes of logs, %d bytes of Terraform output, %d secrets", len(logs), len(output), len(secrets))
}

// writeRecordingTerraform writes a stand-in for the terraform binary that
// runs the real one and appends what it prints for the commands a user runs
// (plan, apply, refresh, destroy, and show without -json) to outputPath.
// Machine-readable output (show -json, the plan file) holds sensitive values
// by design and is left out.
func writeRecordingTerraform(t *testing.T, dir, realTerraform, outputPath string) string {
	t.Helper()
	script := fmt.Sprintf(`#!/usr/bin/env bash
real=%q
record=%q
case "$1" in
  plan|apply|refresh|destroy) ;;
  show) for arg in "$@"; do [ "$arg" = "-json" ] && exec "$real" "$@"; done ;;
  *) exec "$real" "$@" ;;
esac
out=$(mktemp) err=$(mktemp)
"$real" "$@" >"$out" 2>"$err"
status=$?
{ echo "### terraform $1 (exit $status)"; cat "$out" "$err"; } >>"$record"
cat "$out"
cat "$err" >&2
rm -f "$out" "$err"
exit $status
`, realTerraform, outputPath)
	path := filepath.Join(dir, "terraform")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// withoutHarnessRecords drops the log records of the testing framework
// itself (sdk.helper_resource): it logs each step's configuration, which here
// holds the key literally, and is not part of what a user's run would log.
func withoutHarnessRecords(logs string) (string, int) {
	var kept strings.Builder
	dropped, skipping := 0, false
	for _, line := range strings.SplitAfter(logs, "\n") {
		if startsLogRecord(line) {
			skipping = strings.Contains(line, " sdk.helper_resource: ")
			if skipping {
				dropped++
			}
		}
		if !skipping {
			kept.WriteString(line)
		}
	}
	return kept.String(), dropped
}

// startsLogRecord reports a line that begins a record: it starts with a
// timestamp such as 2026-11-22T08:00:00.000Z.
func startsLogRecord(line string) bool {
	return len(line) > 20 && line[4] == '-' && line[7] == '-' && line[10] == 'T' && line[0] >= '0' && line[0] <= '9'
}

// secretInContext returns the first line holding secret, with the secret
// itself replaced, so that a failure report does not repeat it.
func secretInContext(text, secret string) string {
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, secret); i >= 0 {
			line = strings.ReplaceAll(line, secret, "<SECRET>")
			if len(line) > 300 {
				start := max(0, i-150)
				line = line[start:min(len(line), start+300)]
			}
			return line
		}
	}
	return ""
}

// failedApply is what a terraform CLI run that a secrets test provoked
// left behind, every place a secret could show.
type failedApply struct {
	applied, shown, planned string // the apply's output, show -json after it, and the next plan
	state, logs             string // terraform.tfstate and the TRACE log
}

// applyThatFails writes mainTF as a module of its own and applies it with
// the CLI against mock, with the mock's key and TRACE logging; the apply
// must fail (want says what should have failed it). Then show -json and a
// plan run, and the state and the log are read.
func applyThatFails(t *testing.T, runner *tfrunner.Runner, mock *mockapi.Server, mainTF, want string) failedApply {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "module")
	if _, err := runner.Module(dir, map[string][]byte{"main.tf": []byte(mainTF)}, nil); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "terraform.log")
	env := map[string]string{
		"DOCSADMIN_BASE_URL": mock.URL, "DOCSADMIN_API_KEY": mock.APIKey, "DOCSADMIN_PROJECT_ID": deployProject,
		"TF_LOG": "TRACE", "TF_LOG_PATH": logPath, "TF_IN_AUTOMATION": "1",
	}
	run := func(args ...string) (string, bool) {
		t.Helper()
		cmd, err := runner.Command(t.Context(), dir, env, args...)
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	var got failedApply
	var ok bool
	if got.applied, ok = run("apply", "-auto-approve", "-no-color", "-input=false"); ok {
		t.Fatalf("apply succeeded; want %s:\n%s", want, got.applied)
	}
	if got.shown, ok = run("show", "-json", "-no-color"); !ok {
		t.Fatalf("show -json failed:\n%s", got.shown)
	}
	got.planned, _ = run("plan", "-no-color", "-input=false")
	for _, read := range []struct {
		path string
		to   *string
	}{{filepath.Join(dir, "terraform.tfstate"), &got.state}, {logPath, &got.logs}} {
		data, err := os.ReadFile(read.path)
		if err != nil {
			t.Fatal(err)
		}
		*read.to = string(data)
	}
	return got
}
