package client_test

import (
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// TestAPIErrorMessagesAreSanitized: an error body that quotes the key, the
// prompt just sent and terminal escapes reaches the error neither with the
// secrets nor with a raw escape, whether the caller handed the client its
// sanitizer (which knows the prompt) or not (the key is known anyway).
func TestAPIErrorMessagesAreSanitized(t *testing.T) {
	const prompt = "Draft the release notes of the confidential Falcon launch, codename Nightjar."
	hostile := "invalid request \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ \x1b[2K\rApply complete! \u202eexe.txt"
	for _, withSanitizer := range []bool{true, false} {
		sanitizer := redact.New(testAPIKey)
		sanitizer.AddPrompt(prompt)
		c, srv, _ := newMockClient(t, mockapi.Config{}, func(cfg *client.Config) {
			if withSanitizer {
				cfg.Sanitizer = sanitizer
			}
		})
		srv.InjectFault(mockapi.EndpointCreateAgentJob, mockapi.Fault{Status: 400, Body: hostile, EchoRequest: true})
		_, err := c.CreateAgentJob(t.Context(), "proj_1", prompt)
		if err == nil {
			t.Fatal("the fault was not answered")
		}
		text := err.Error()
		if !strings.Contains(text, "invalid request") || !strings.Contains(text, `\x1b[2K\rApply complete!`) {
			t.Errorf("the API's message is lost or not quoted: %s", text)
		}
		for what, secret := range map[string]string{"the key": testAPIKey, "the key's secret": strings.SplitN(testAPIKey, "_", 2)[1]} {
			if strings.Contains(text, secret) {
				t.Errorf("%s appears in the error: %s", what, text)
			}
		}
		if withSanitizer && strings.Contains(text, "Nightjar") {
			t.Errorf("the prompt appears in the error: %s", text)
		}
		if strings.ContainsAny(text, "\x1b\r\u202e") {
			t.Errorf("a raw escape reaches the error: %q", text)
		}
	}
}
