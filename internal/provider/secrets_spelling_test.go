//go:build unix

package provider

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestAccSecrets_otherSpellings plays, through the real CLI, a server that
// quotes the prompt and the key in the spellings servers use: the prompt
// escaped as Python's json.dumps writes non-ASCII text (\uXXXX), composed
// when it was typed decomposed, decomposed, cut to its first 18
// characters; the key with U+034F between its characters, in the agent
// job's error and in a failed deployment's summary kept in state. None is
// readable in the apply's output, the TRACE log or terraform.tfstate.
func TestAccSecrets_otherSpellings(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	mock := newDeployMock(t, mockapi.Config{})
	key := mock.APIKey
	keySecret := key[strings.Index(key, "_")+1:]
	// Typed decomposed, as macOS may give it; Terraform composes it.
	typed := norm.NFD.String("Réécris le guide d'intégration, オンボーディングガイドを書き直して, codename Nightjar")
	prompt := norm.NFC.String(typed)
	first18 := string([]rune(prompt)[:18])
	japanese := "オンボーディングガイドを書き直して"
	interleaved := func(text string, with rune) string {
		var b strings.Builder
		for _, r := range text {
			b.WriteRune(r)
			b.WriteRune(with)
		}
		return b.String()
	}
	echo := strings.Join([]string{
		"invalid body {\"prompt\": \"" + pythonEscaped(prompt) + "\"}",
		"normalized: " + prompt,
		"decomposed: " + typed,
		"first characters: " + first18,
		"with key " + interleaved(key, 0x034F),
	}, " | ")
	body, err := json.Marshal(map[string]string{"error": echo})
	if err != nil {
		t.Fatal(err)
	}
	mock.InjectFault(mockapi.EndpointCreateAgentJob, mockapi.Fault{Status: 400, Body: string(body)})
	mock.PublishCommit(deployProject, mockapi.DefaultDeploymentBranch, mockapi.Commit{SHA: "3333333333333333333333333333333333333333", Message: "docs"})
	mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{Fail: true, FailSummary: "Build failed with key " + interleaved(key, 0x034F)})

	got := applyThatFails(t, runner, mock, fmt.Sprintf(cliRequiredProviders+`
provider "docsadmin" {}

resource "docsadmin_agent_job" "docs" {
  prompt = %q
}

resource "docsadmin_deployment" "docs" {
  triggers = { docs_commit = "v1" }
}
`, typed), "the agent job's and the deployment's errors")
	for what, want := range map[string]string{
		"the echo, redacted":      "invalid body {\"prompt\": \"(prompt redacted)",
		"the cut prompt, hidden":  "first characters: (prompt redacted)",
		"the key, redacted":       "with key (API key redacted)",
		"the failed deployment":   "Deployment failed",
		"the summary, redacted":   "Build failed with key (API key redacted)",
		"the decomposed, hidden":  "decomposed: (prompt redacted)",
		"the normalized, hidden:": "normalized: (prompt redacted)",
	} {
		if !strings.Contains(flat(got.applied), flat(want)) {
			t.Errorf("the apply's output lacks %s (%q):\n%s", what, want, got.applied)
		}
	}
	if !strings.Contains(got.state, "Build failed with key (API key redacted)") {
		t.Error("terraform.tfstate does not keep the summary, redacted")
	}
	// What a reader sees: invisible characters and their escapes dropped,
	// every spelling composed.
	readable := func(text string) string {
		text = strings.NewReplacer("\u034f", "", `\u034f`, "", `\\u034f`, "").Replace(text)
		return norm.NFC.String(text)
	}
	secrets := map[string]string{
		"the key's secret part":         keySecret,
		"the prompt's Japanese":         japanese[:len(japanese)/2],
		"the prompt's Japanese escaped": pythonEscaped(japanese)[:30],
		"the prompt's first words":      "Réécris le guide",
		"the prompt's first 18":         first18,
	}
	for place, text := range map[string]string{"the apply's output": got.applied, "show -json": got.shown, "the next plan": got.planned, "the TRACE log": got.logs, "terraform.tfstate": got.state} {
		for what, secret := range secrets {
			if n := strings.Count(readable(text), secret); n > 0 {
				t.Errorf("%s appears %d times in %s, for example: %q", what, n, place, secretInContext(readable(text), secret))
			}
		}
	}
}

// pythonEscaped is text as Python's json.dumps writes it by default: every
// non-ASCII character as a \uXXXX escape, in UTF-16.
func pythonEscaped(text string) string {
	var b strings.Builder
	for _, r := range text {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return b.String()
}
