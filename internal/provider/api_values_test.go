package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// TestAPILinkValue: a link state may keep is kept; any other is null with a
// warning that names the attribute and never quotes the link.
func TestAPILinkValue(t *testing.T) {
	t.Parallel()
	https := &providerData{baseURL: "https://api.example.com", sanitizer: redact.New("dsa_test_0123456789abcdef")}
	plain := &providerData{baseURL: "http://127.0.0.1:8080"}
	for _, c := range []struct {
		d    *providerData
		link string
		kept bool
	}{
		{https, "https://github.com/example/docs/pull/7", true},
		{https, "http://github.com/example/docs/pull/7", false},
		{plain, "http://127.0.0.1:8080/preview/main", true},
		{https, "javascript:alert(1)", false},
		{https, "https://user:s3cr3t@github.com/example/docs/pull/7", false},
		{https, "https://github.com/pull/7?X-Amz-Signature=0a1b2c3d4e5f", false},
	} {
		var diags diag.Diagnostics
		got := c.d.apiLinkValue("pr_link", &c.link, &diags)
		if c.kept {
			if got.ValueString() != c.link || diags.WarningsCount() != 0 {
				t.Errorf("%q: got %s with %d warnings, want it kept", c.link, got, diags.WarningsCount())
			}
			continue
		}
		if !got.IsNull() || diags.WarningsCount() != 1 {
			t.Fatalf("%q: got %s with %d warnings, want null and a warning", c.link, got, diags.WarningsCount())
		}
		w := diags.Warnings()[0]
		if !strings.Contains(w.Summary(), "pr_link") || strings.Contains(w.Detail(), "s3cr3t") || strings.Contains(w.Detail(), "0a1b2c3d4e5f") {
			t.Errorf("%q: warning %q / %q should name pr_link and not quote the link", c.link, w.Summary(), w.Detail())
		}
	}
}
