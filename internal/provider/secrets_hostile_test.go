//go:build unix

package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestAccSecrets_hostileAPIText plays an API that quotes what it should not,
// through the real CLI as a user runs it: an agent job create answered with
// an error that echoes the key, the prompt and terminal escapes (an OSC-8
// hyperlink, a line erasure and a carriage return that fake a line, a
// right-to-left override); a deployment that fails with a summary of 400 KB
// quoting the key and a presigned link's signature, a commit message holding
// the key and log lines with escapes; a preview whose address is
// javascript:. Neither the apply's output and error, nor the TRACE log, nor
// terraform.tfstate, nor show -json, nor the next plan holds a secret or a
// raw escape; the summary is kept redacted and bounded, and the preview's
// address is null with a warning naming preview_url.
func TestAccSecrets_hostileAPIText(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	mock := newDeployMock(t, mockapi.Config{})
	key := mock.APIKey
	keySecret := key[strings.Index(key, "_")+1:]
	const (
		prompt    = "Rewrite the onboarding guide for the confidential Falcon launch on 2026-12-01, codename Nightjar."
		signature = "5d41402abc4b2a76b9719d911017c592deadbeefcafe0123"
		spoof     = "\x1b[2K\rApply complete! Resources: 0 added, 0 changed, 0 destroyed."
		osc8      = "\x1b]8;;https://evil.example/phish\x1b\\click here\x1b]8;;\x1b\\"
		rlo       = "\u202eexe.txt"
	)
	link := "https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz?X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-Signature=" + signature

	mock.InjectFault(mockapi.EndpointCreateAgentJob, mockapi.Fault{Status: 400, EchoRequest: true,
		Body: "invalid prompt " + osc8 + " " + rlo + spoof})
	mock.PublishCommit(deployProject, mockapi.DefaultDeploymentBranch, mockapi.Commit{SHA: "3333333333333333333333333333333333333333",
		Message: "Rotate the CI key " + key + "\r\n\r\nThe old link was " + link + spoof})
	mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{Fail: true,
		FailSummary: "Build failed: GET " + link + " with Authorization: Bearer " + key + " " + osc8 + spoof + strings.Repeat(" padding", 50_000),
		FailLogs:    []string{"curl -H 'Authorization: Bearer " + key + "' " + link, "Build failed " + osc8 + spoof}})
	mock.InjectFault(mockapi.EndpointPreview, mockapi.Fault{AfterHandling: true, Patch: map[string]any{"previewUrl": "javascript:alert(document.cookie)"}})

	got := applyThatFails(t, runner, mock, cliRequiredProviders+`
provider "docsadmin" {}

resource "docsadmin_agent_job" "docs" {
  prompt = "`+prompt+`"
}

resource "docsadmin_deployment" "docs" {
  triggers = { docs_commit = "v1" }
}

resource "docsadmin_preview_deployment" "feature" {
  project_id = "proj_2"
  branch     = "feature/new-navigation"
  wait       = false
}
`, "the agent job's and the deployment's errors")

	// Without these, the checks below could pass on output that never held
	// the hostile text.
	for what, want := range map[string]string{
		"the agent job's error, quoted":              `invalid prompt \x1b]8;;https://evil.example/phish\x1b\click here`,
		"the echoed prompt, redacted":                "(prompt redacted)",
		"the echoed key, redacted":                   "Bearer (API key redacted)",
		"the failed deployment":                      "Deployment failed",
		"the summary's signature, redacted":          "X-Amz-Signature=REDACTED",
		"the right-to-left override, removed":        `\x1b]8;;\x1b\ exe.txt\x1b[2K\rApply complete!`,
		"the refused preview address's warning":      "Link from the API not stored: preview_url",
		"the reason the preview address was refused": `its scheme is "javascript"`,
	} {
		// Terraform wraps the text of diagnostics.
		if !strings.Contains(flat(got.applied), flat(want)) {
			t.Errorf("the apply's output lacks %s (%q):\n%s", what, want, got.applied)
		}
	}
	// Terraform says "is tainted, so must be replaced", OpenTofu "is tainted, so it must be replaced".
	if !strings.Contains(got.planned, "Build failed: GET") || !taintedReplacement.MatchString(got.planned) {
		t.Errorf("the next plan does not redeploy the failed deployment, showing its summary:\n%s", got.planned)
	}
	for what, want := range map[string]string{
		"the summary, redacted":        `"summary": "Build failed: GET https://bucket.s3.amazonaws.com/se_1/bundle.tar.gz?X-Amz-Date=20261122T080000Z\u0026X-Amz-Expires=3600\u0026X-Amz-Signature=REDACTED with Authorization: Bearer (API key redacted)`,
		"the summary's cut":            `more bytes not shown)"`,
		"the commit message, redacted": `"commit_message": "Rotate the CI key (API key redacted)\n\nThe old link was`,
		"the preview address, null":    `"preview_url": null`,
	} {
		if !strings.Contains(got.state, want) {
			t.Errorf("terraform.tfstate lacks %s (%s)", what, want)
		}
	}
	if n := len(got.state); n > 64<<10 {
		t.Errorf("terraform.tfstate is %d bytes: the 400 KB summary was not bounded", n)
	}

	secrets := map[string]string{
		"the API key":              key,
		"the key's secret part":    keySecret,
		"the link's signature":     signature,
		"a raw escape":             "\x1b",
		"an escape in JSON":        `\u001b`,
		"a raw carriage return":    "\rApply complete",
		"a right-to-left override": "\u202e",
		"the javascript: link":     "javascript:alert",
	}
	places := map[string]string{
		"the apply's output": got.applied,
		"show -json":         got.shown,
		"the next plan":      got.planned,
		"terraform.tfstate":  got.state,
		"the TRACE log":      got.logs,
	}
	for place, text := range places {
		for what, secret := range secrets {
			if n := strings.Count(text, secret); n > 0 {
				t.Errorf("%s appears %d times in %s, for example: %q", what, n, place, secretInContext(text, secret))
			}
		}
	}
	for place, text := range map[string]string{"the apply's output": got.applied, "the next plan": got.planned, "the TRACE log": got.logs} {
		for what, secret := range map[string]string{"the prompt": prompt, "the prompt's second half": prompt[len(prompt)/2:]} {
			if n := strings.Count(text, secret); n > 0 {
				t.Errorf("%s appears %d times in %s, for example: %q", what, n, place, secretInContext(text, secret))
			}
		}
	}
	if got := len(mock.DeploymentIDs("proj_2")); got != 1 {
		t.Errorf("%d previews built, want 1", got)
	}
}

// flat is text with every run of white space made one space.
func flat(text string) string { return strings.Join(strings.Fields(text), " ") }

var taintedReplacement = regexp.MustCompile(`docsadmin_deployment\.docs is tainted, so (it )?must be replaced`)
