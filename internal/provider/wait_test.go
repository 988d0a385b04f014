package provider

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
)

func TestQuickLookOnlyWhileRequestsAreNotPaced(t *testing.T) {
	for _, tc := range []struct {
		ceiling float64
		want    bool
	}{{0, true}, {20, false}} {
		c, err := client.New(client.Config{BaseURL: "http://127.0.0.1:1", APIKey: "test-key", RequestsPerSecond: tc.ceiling})
		if err != nil {
			t.Fatal(err)
		}
		d := &providerData{client: c, clock: clock.RealClock}
		if got := d.pollPolicy(nil).QuickLook; got != tc.want {
			t.Errorf("requests_per_second %v: QuickLook = %v, want %v", tc.ceiling, got, tc.want)
		}
	}
}

// A failed wait shows its durations as a configuration writes them: 10m,
// 1h30m, never 10m0s.
func TestWaitFailureWritesDurationsAsWritten(t *testing.T) {
	w := waitFailure{subject: "agent job aj_1", timeout: timeoutCreate, limit: 90 * time.Minute, onTimeout: "Raise it."}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&poll.TimeoutError{Cause: context.DeadlineExceeded, Waited: 90*time.Minute + 200*time.Millisecond},
			"timed out after 1h30m (limit timeouts.create = 1h30m)"},
		{&poll.TimeoutError{Cause: context.Canceled, Waited: 10 * time.Minute}, "was interrupted after 10m;"},
		{&poll.ErrorBudgetError{Errors: 5, Waited: time.Hour, Err: errors.New("503")}, "failed 5 times in a row over 1h;"},
	} {
		text, ok := w.explain(tc.err)
		if !ok || !strings.Contains(text, tc.want) {
			t.Errorf("explain(%v) = %q, want it to contain %q", tc.err, text, tc.want)
		}
		if strings.Contains(text, "m0s") || strings.Contains(text, "h0m") {
			t.Errorf("explain(%v) = %q shows a duration as time.Duration.String writes it", tc.err, text)
		}
	}
	if got := durationProblem("0s", time.Minute); !strings.Contains(got, "minimum of 1m. Accepted: a duration of at least 1m,") {
		t.Errorf("durationProblem = %q, want the minimum written as 1m", got)
	}
}

// The start limit's error writes the API's Retry-After and the time to try
// again as a configuration writes them: 1h, never 1h0m0s.
func TestStartQuotaErrorWritesTheHourAs1h(t *testing.T) {
	d := &providerData{clock: clock.RealClock}
	answer := &client.APIError{Endpoint: "POST /v1/static-export/p1/jobs", StatusCode: 429, RetryAfter: time.Hour,
		Message: "Too many export jobs started; try again later."}
	err := poll.Permanent(&startQuotaError{answer: answer, retryPhrase: d.retryPhrase(time.Hour), left: 10 * time.Minute})
	text := d.startFailure("docs.example.com", timeoutCreate, 10*time.Minute, err)
	for _, want := range []string{"(in 1h)", "(Retry-After 1h)", "beyond the 10m this operation has left", "Nothing was started"} {
		if !strings.Contains(text, want) {
			t.Errorf("the error does not say %q: %s", want, text)
		}
	}
	if strings.Contains(text, "m0s") || strings.Contains(text, "h0m") {
		t.Errorf("the error shows a duration as time.Duration.String writes it: %s", text)
	}
}

// A hint ends a sentence; a message that goes on after quoting one never
// shows "..": a wait that timed out after a failed poll, and an agent job
// call that the API may have acted on.
func TestMessagesThatQuoteAHintEndItOnce(t *testing.T) {
	outage := &client.APIError{Endpoint: "GET /v2/agent/proj_1/job/aj_1", StatusCode: 503, Message: "unavailable"}
	if hint(outage) == "" || !strings.HasSuffix(hint(outage), ".") {
		t.Fatalf("the test needs a hint that ends a sentence, got %q", hint(outage))
	}
	w := waitFailure{subject: "agent job aj_1", timeout: timeoutCreate, limit: time.Minute, onTimeout: "Raise it."}
	waited, ok := w.explain(&poll.TimeoutError{Cause: context.DeadlineExceeded, Waited: time.Minute, LastErr: outage})
	if !ok || !strings.Contains(waited, "the last poll failed") {
		t.Fatalf("explain = %q, want the last poll's failure", waited)
	}
	var diags diag.Diagnostics
	d := &providerData{clock: clock.RealClock}
	d.agentJobCallError(&diags, agentJobRun{projectID: "proj_1", rerun: "the next apply"}, &client.APIError{Endpoint: "POST /v2/agent/proj_1/job", StatusCode: 502, Message: "bad gateway."})
	if len(diags) != 1 || !strings.Contains(diags[0].Detail(), "does not tell whether the API acted") {
		t.Fatalf("agentJobCallError = %v, want the error of a call the API may have acted on", diags)
	}
	for _, text := range []string{waited, diags[0].Detail()} {
		if strings.Contains(text, "..") {
			t.Errorf("the message shows \"..\": %s", text)
		}
	}
}
