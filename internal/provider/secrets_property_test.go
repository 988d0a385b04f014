//go:build unix

package provider

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestAccSecrets_spellingsByProperty plays, through the real CLI, a server
// that quotes the key split by U+200D (as JSON's \u200d escapes), U+200C
// and U+200E, and the prompt with no-break spaces, doubled spaces, line
// breaks and in upper case: in an agent job's error, and in a deployment's
// failure summary and commit message, which state keeps (the deployment
// follows the agent job, so the provider knows the prompt when the
// deployment's texts arrive). No spelling is readable in the apply's
// output, the TRACE log, terraform.tfstate, show -json or the next plan.
func TestAccSecrets_spellingsByProperty(t *testing.T) {
	t.Parallel()
	runner := acctest.CLIRunner(t)
	mock := newDeployMock(t, mockapi.Config{})
	key := mock.APIKey
	keySecret := key[strings.Index(key, "_")+1:]
	const prompt = "Rewrite the onboarding guide for the Falcon launch, codename Nightjar, and add the release notes of 2.4"
	split := func(text, with string) string {
		var b strings.Builder
		for _, r := range text {
			b.WriteRune(r)
			b.WriteString(with)
		}
		return b.String()
	}
	spaced := func(with string) string { return strings.ReplaceAll(prompt, " ", with) }
	spellings := []string{
		"no-break: " + spaced("\u00a0"),
		"doubled: " + spaced("  "),
		"wrapped: " + strings.Replace(strings.Replace(prompt, " launch, ", " launch,\n", 1), " add ", "\r\nadd ", 1),
		"upper: " + strings.ToUpper(prompt),
		"upper, wrapped: " + strings.ToUpper(spaced("\n")),
	}
	// The agent job's error arrives with the key split by JSON's \u200d
	// escapes, and the prompt's no-break spaces as \u00a0 escapes.
	echo, err := json.Marshal(map[string]string{"error": "invalid body | " + strings.Join(spellings, " | ") + " | key " + split(key, "\u200d")})
	if err != nil {
		t.Fatal(err)
	}
	escaped := strings.NewReplacer("\u200d", `\u200d`, "\u00a0", `\u00a0`).Replace(string(echo))
	// The first create (the job the deployment follows) is answered as the
	// API does; the second, the job that follows it, with the echo.
	mock.InjectFault(mockapi.EndpointCreateAgentJob, mockapi.Fault{}, mockapi.Fault{Status: 400, Body: escaped})
	mock.PublishCommit(deployProject, mockapi.DefaultDeploymentBranch, mockapi.Commit{SHA: "4444444444444444444444444444444444444444",
		Message: "Merge pull request #7 from docs/rewrite\n\n" + strings.Join(spellings, "\n\n")})
	mock.SetDeploymentBehavior(deployProject, mockapi.DeploymentBehavior{Fail: true,
		FailSummary: "Build failed: " + spellings[1] + " with key " + split(key, "\u200c") + " and " + split(key, "\u200e")})

	got := applyThatFails(t, runner, mock, fmt.Sprintf(cliRequiredProviders+`
provider "docsadmin" {}

resource "docsadmin_agent_job" "docs" {
  prompt = %q
}

resource "docsadmin_agent_job" "echo" {
  prompt     = %q
  depends_on = [docsadmin_agent_job.docs]
}

resource "docsadmin_deployment" "docs" {
  triggers   = { docs_commit = "v1" }
  depends_on = [docsadmin_agent_job.docs]
}
`, prompt, prompt), "the agent job's and the deployment's errors")

	for what, want := range map[string]string{
		"the agent job's error":       "invalid body | no-break: (prompt redacted)",
		"the key in the error":        "key (API key redacted)",
		"the failed deployment":       "Deployment failed",
		"the summary's key":           "with key (API key redacted) and (API key redacted)",
		"the upper-cased prompt":      "upper: (prompt redacted)",
		"the doubled spaces' prompt":  "Build failed: doubled: (prompt redacted)",
		"the wrapped prompt's marker": "wrapped: (prompt redacted)",
		"the upper, wrapped's marker": "upper, wrapped: (prompt redacted)",
	} {
		if !strings.Contains(flat(got.applied), flat(want)) {
			t.Errorf("the apply's output lacks %s (%q):\n%s", what, want, got.applied)
		}
	}
	for what, want := range map[string]string{
		"the commit message, redacted": `"commit_message": "Merge pull request #7 from docs/rewrite\n\nno-break: (prompt redacted)`,
		"the summary, redacted":        "with key (API key redacted) and (API key redacted)",
	} {
		if !strings.Contains(got.state, want) {
			t.Errorf("terraform.tfstate lacks %s (%s)", what, want)
		}
	}

	secrets := map[string]string{
		"the key's secret part":    keySecret,
		"the prompt's start":       prompt[:24],
		"the prompt's middle":      prompt[30:56],
		"the prompt's end":         prompt[len(prompt)-24:],
		"the prompt's code name":   "codename nightjar",
		"the prompt's launch line": "falcon launch,",
	}
	places := map[string]string{"the apply's output": got.applied, "show -json": got.shown, "the next plan": got.planned,
		"terraform.tfstate": got.state, "the TRACE log": got.logs}
	// The agent job's own prompt attribute is sensitive: state and show
	// -json keep it, and only there.
	for _, place := range []string{"terraform.tfstate", "show -json"} {
		kept := places[place]
		for _, attr := range []string{`"prompt": "` + prompt + `"`, `"prompt":"` + prompt + `"`} {
			kept = strings.Replace(kept, attr, `"prompt": (sensitive)`, 1)
		}
		if kept == places[place] {
			t.Errorf("%s does not keep the agent job's prompt as its sensitive attribute", place)
		}
		places[place] = kept
	}
	for place, text := range places {
		seen := readableText(text)
		for what, secret := range secrets {
			if n := strings.Count(seen, readableText(secret)); n > 0 {
				t.Errorf("%s is readable %d times in %s, for example: %q", what, n, place, secretInContext(seen, readableText(secret)))
			}
		}
	}
}

// readableText is what a reader takes a text for, wherever it is written:
// JSON's and Go's escapes resolved, format and default-ignorable
// characters unseen, compatibility forms as what they stand for, case and
// white space of any kind and length alike.
func readableText(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == '\\' && i+1 < len(text) {
			switch text[i+1] {
			case 'n', 'r', 't':
				b.WriteByte(' ')
				i++
				continue
			case 'u':
				if i+6 <= len(text) {
					if v, err := strconv.ParseUint(text[i+2:i+6], 16, 32); err == nil {
						b.WriteRune(rune(v))
						i += 5
						continue
					}
				}
			}
		}
		b.WriteByte(text[i])
	}
	seen := strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) {
			return -1
		}
		return r
	}, b.String())
	seen = cases.Fold().String(norm.NFKC.String(seen))
	return strings.Join(strings.FieldsFunc(seen, unicode.IsSpace), " ")
}
