package provider

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// TestMaskSecretsHidesTheKeyAsTheSanitizerReadsIt: a log record hides the
// key in a spelling the sanitizer reads as the key, not only as it was
// configured, in the message and in every field, and a link's signature.
func TestMaskSecretsHidesTheKeyAsTheSanitizerReadsIt(t *testing.T) {
	const key = "dsa_Live_5F0c1E2d3B4a69788796A5b4"
	d := &providerData{sanitizer: redact.New(key)}
	var logs bytes.Buffer
	ctx := d.maskSecrets(tflogtest.RootLogger(context.Background(), &logs))
	upper := strings.ToUpper(key)
	spaced := strings.Join(strings.Split(key, ""), "\u200b")
	tflog.Info(ctx, "the API answered: key "+upper+" revoked", map[string]any{
		"answer": "invalid key " + spaced,
		"link":   "https://b.example/o?X-Amz-Signature=deadbeefcafe",
	})
	got := logs.String()
	for _, secret := range []string{"5F0C1E2D3B4A", "5F0c1E2d3B4a", "deadbeefcafe"} {
		if strings.Contains(strings.ReplaceAll(got, "\u200b", ""), secret) || strings.Contains(strings.ReplaceAll(got, `\u200b`, ""), secret) {
			t.Errorf("the log shows %q: %s", secret, got)
		}
	}
	if strings.Count(got, "***") < 3 {
		t.Errorf("the log masks fewer than the three secrets: %s", got)
	}
}
