//go:build unix

package provider

import (
	"net/url"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestAccSecrets_linksHoldingTheKey plays, through the real CLI, an API
// that puts the key in the links it returns: every bundle link carries
// client=<key> after its signature, one preview's address carries it in
// its query and another's in its path, percent-encoded with U+200D between
// its characters. The bundle link is refused before it is stored or
// fetched (the download host never sees it), the previews' addresses are
// null with a warning naming preview_url, and neither the apply's output,
// the TRACE log, terraform.tfstate nor show -json holds the key.
func TestAccSecrets_linksHoldingTheKey(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	mock := newDeployMock(t, mockapi.Config{})
	key := mock.APIKey
	keySecret := key[strings.Index(key, "_")+1:]
	mock.SetLinkExtra("client=" + key)
	var split strings.Builder
	for _, r := range key {
		split.WriteString(url.PathEscape(string(r)) + "%E2%80%8D")
	}
	mock.InjectFault(mockapi.EndpointPreview,
		mockapi.Fault{AfterHandling: true, Patch: map[string]any{"previewUrl": "https://proj-2-feature.preview.example.com/?client=" + key}},
		mockapi.Fault{AfterHandling: true, Patch: map[string]any{"previewUrl": "https://proj-2-docs.preview.example.com/" + split.String() + "/"}})

	got := applyThatFails(t, runner, mock, cliRequiredProviders+`
provider "docsadmin" {}

resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}

resource "docsadmin_preview_deployment" "feature" {
  project_id = "proj_2"
  branch     = "feature/new-navigation"
  wait       = false
}

resource "docsadmin_preview_deployment" "docs" {
  project_id = "proj_2"
  branch     = "docs/rewrite"
  wait       = false
}
`, "the bundle link refused")

	for what, want := range map[string]string{
		"the refused bundle link":     "a bundleUrl that cannot be used as bundle_url: it holds the API key in its query",
		"that it was not fetched":     "neither stored nor fetched",
		"the refused preview address": "Link from the API not stored: preview_url",
	} {
		if !strings.Contains(flat(got.applied), flat(want)) {
			t.Errorf("the apply's output lacks %s (%q):\n%s", what, want, got.applied)
		}
	}
	// Terraform shows the first of two warnings of one summary, the
	// previews' in the order they were answered.
	if !strings.Contains(flat(got.applied), "preview_url is null: it holds the API key in its query") &&
		!strings.Contains(flat(got.applied), "preview_url is null: it holds the API key in its path") {
		t.Errorf("the apply's output does not say why the previews' addresses are refused:\n%s", got.applied)
	}
	if n := strings.Count(got.state, `"preview_url": null`); n != 2 {
		t.Errorf("terraform.tfstate holds %d null preview_url, want 2", n)
	}
	if n := mock.Downloads(); n != 0 {
		t.Errorf("the download host served %d downloads: a link holding the key was fetched", n)
	}
	if n := mock.ExportsStarted("docs.example.com"); n != 1 {
		t.Errorf("%d exports started, want 1 (kept in state without a link)", n)
	}
	secrets := map[string]string{
		"the API key":                 key,
		"the key's secret part":       keySecret,
		"the key, lowered":            strings.ToLower(keySecret),
		"the key, split and encoded":  string(key[0]) + "%E2%80%8D" + string(key[1]) + "%E2%80%8D",
		"the key split by U+200D":     string(key[0]) + "\u200d" + string(key[1]),
		"the key's first characters":  keySecret[:12],
		"the client parameter's name": "client=",
	}
	places := map[string]string{"the apply's output": got.applied, "show -json": got.shown, "the next plan": got.planned, "terraform.tfstate": got.state, "the TRACE log": got.logs}
	for place, text := range places {
		for what, secret := range secrets {
			if n := strings.Count(text, secret); n > 0 {
				t.Errorf("%s appears %d times in %s, for example: %q", what, n, place, secretInContext(text, secret))
			}
		}
	}
}
