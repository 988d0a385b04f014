package mockapi

import (
	"strings"
	"testing"
)

// TestFaultEchoRequest: the error quotes the fault's text, the request's
// Authorization header and its body, escapes included.
func TestFaultEchoRequest(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	s.InjectFault(EndpointCreateAgentJob, Fault{Status: 400, Body: "bad \x1b[2K\rprompt", EchoRequest: true})
	resp := call(t, s, "POST", "/v2/agent/proj_1/job", `{"prompt":"the secret plan"}`)
	if resp.status != 400 {
		t.Fatalf("status %d, want 400", resp.status)
	}
	msg := resp.errorMessage(t)
	for _, want := range []string{"bad \x1b[2K\rprompt", "Authorization: Bearer " + s.APIKey, `{"prompt":"the secret plan"}`} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message %q does not quote %q", msg, want)
		}
	}
}
