package provider

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

func TestPromptStartNeverHoldsThePromptWhole(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Update the guides for release 2.4.0. ", 5)
	for _, prompt := range []string{"", "x", "Fix typos", "Écris la documentation de la version 2.4.0", long} {
		got := redact.PromptStart(prompt)
		shown := strings.TrimSuffix(got, "…")
		if !strings.HasSuffix(got, "…") || !strings.HasPrefix(prompt, shown) {
			t.Errorf("redact.PromptStart(%q) = %q; want a prefix and an ellipsis", prompt, got)
		}
		if n := utf8.RuneCountInString(shown); n > 40 || (prompt != "" && n >= utf8.RuneCountInString(prompt)) {
			t.Errorf("redact.PromptStart(%q) shows %d characters", prompt, n)
		}
	}
}

func TestMaskPromptHidesItInEveryRecord(t *testing.T) {
	t.Parallel()
	prompt := "Document the new export options for release 2.4.0"
	var out bytes.Buffer
	ctx := maskPrompt(tflogtest.RootLogger(context.Background(), &out), prompt)
	tflog.Debug(ctx, "sending "+prompt, map[string]any{"body": prompt, "prompt_start": redact.PromptStart(prompt)})
	if strings.Contains(out.String(), prompt) {
		t.Fatalf("the prompt reached the log: %s", out.String())
	}
	if !strings.Contains(out.String(), redact.PromptStart(prompt)) {
		t.Fatalf("the prompt's start is missing from the log: %s", out.String())
	}
}
