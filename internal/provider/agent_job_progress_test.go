package provider

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

func TestJobProgressReportsChangesAndBreaksLongSilences(t *testing.T) {
	t.Parallel()
	clock := clocktest.NewFakeClock(time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))
	var got []string
	p := newJobProgress(func(msg string) { got = append(got, msg) }, clock.Now, 30*time.Second)
	active := &client.AgentJob{ID: "aj_1", Status: client.AgentActive}
	pr := "https://github.com/example/docs/pull/31"

	p.started(active, false, false)
	p.seen(active) // the create's answer, counted as the first poll
	for _, step := range []struct {
		after time.Duration
		job   *client.AgentJob
	}{
		{10 * time.Second, active},
		{20 * time.Second, active}, // 30s of silence
		{15 * time.Second, active},
		{16 * time.Second, active}, // 31s since the last line
		{9 * time.Second, &client.AgentJob{ID: "aj_1", Status: client.AgentActive, PRLink: &pr}},
		{30 * time.Second, active}, // the link is remembered
		{5 * time.Second, &client.AgentJob{ID: "aj_1", Status: client.AgentCompleted, PRLink: &pr}},
	} {
		clock.Advance(step.after)
		p.seen(step.job)
	}
	want := []string{
		"created agent job aj_1 (status active)",
		"agent job aj_1 is still active after 30s",
		"agent job aj_1 is still active after 1m1s",
		"agent job aj_1 opened pull request " + pr,
		"agent job aj_1 is still active after 1m40s (pull request " + pr + ")",
		"agent job aj_1 is now completed after 1m45s",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("progress:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !p.reportedPR() {
		t.Error("reportedPR is false after the link was sent")
	}
}

func TestJobProgressAfterAMessageToACompletedJob(t *testing.T) {
	t.Parallel()
	clock := clocktest.NewFakeClock(time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))
	var got []string
	p := newJobProgress(func(msg string) { got = append(got, msg) }, clock.Now, time.Minute)
	pr := "https://github.com/example/docs/pull/7"
	p.started(&client.AgentJob{ID: "aj_2", Status: client.AgentActive, PRLink: &pr}, true, false)
	clock.Advance(2 * time.Second)
	p.seen(&client.AgentJob{ID: "aj_2", Status: "paused-for-review", PRLink: &pr})
	want := []string{
		"sent the prompt to agent job aj_2 (status active)",
		"agent job aj_2: pull request " + pr,
		"agent job aj_2 is now paused-for-review after 2s",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("progress:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAgentJobAction_sendsProgressWhileTheJobRuns invokes the action through
// the protocol, as Terraform does, and reads its progress events: Terraform
// 1.11, which runs the acceptance tests, cannot invoke actions.
func TestAgentJobAction_sendsProgressWhileTheJobRuns(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t, mockapi.Config{AgentJobOutcome: mockapi.AgentCompleted, AgentJobDuration: 2 * time.Second})
	prompt := releasePrompt("2.4.0")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	server, err := providerserver.NewProtocol6WithError(NewWithOptions("test", Options{
		PollPolicy: acctest.QuickPolls, RetryBackoff: acctest.QuickRetries, ProgressEvery: 500 * time.Millisecond,
	})())()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		t.Fatalf("schema: %v %v", err, schemas.Diagnostics)
	}
	configured, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{
		Config: dynamicValue(t, schemas.Provider.ValueType(), map[string]tftypes.Value{
			"api_key":    tftypes.NewValue(tftypes.String, mock.APIKey),
			"base_url":   tftypes.NewValue(tftypes.String, mock.URL),
			"project_id": tftypes.NewValue(tftypes.String, "proj_1"),
		}),
		TerraformVersion: "1.14.0",
	})
	if err != nil || len(configured.Diagnostics) > 0 {
		t.Fatalf("configure: %v %v", err, diagnosticsText(configured.Diagnostics))
	}
	actionSchema, ok := schemas.ActionSchemas["docsadmin_agent_job"]
	if !ok {
		t.Fatalf("no docsadmin_agent_job action in %v", schemas.ActionSchemas)
	}
	actions, ok := server.(tfprotov6.ProviderServerWithActions) //nolint:staticcheck // the framework's server implements actions only through it
	if !ok {
		t.Fatalf("%T serves no actions", server)
	}
	stream, err := actions.InvokeAction(ctx, &tfprotov6.InvokeActionRequest{
		ActionType: "docsadmin_agent_job",
		Config: dynamicValue(t, actionSchema.Schema.ValueType(), map[string]tftypes.Value{
			"prompt":  tftypes.NewValue(tftypes.String, prompt),
			"wait":    tftypes.NewValue(tftypes.Bool, true),
			"timeout": tftypes.NewValue(tftypes.String, "30s"),
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	var progress []string
	var completed *tfprotov6.CompletedInvokeActionEventType
	for event := range stream.Events {
		switch e := event.Type.(type) {
		case tfprotov6.ProgressInvokeActionEventType:
			progress = append(progress, e.Message)
		case tfprotov6.CompletedInvokeActionEventType:
			completed = &e
		}
	}
	said := strings.Join(progress, "\n")
	t.Logf("progress:\n%s", said)
	if completed == nil || len(completed.Diagnostics) > 0 {
		t.Fatalf("the action did not complete cleanly: %+v", completed)
	}
	ids := mock.AgentJobsCreated("proj_1")
	if len(ids) != 1 {
		t.Fatalf("jobs created: %v", ids)
	}
	id := ids[0]
	job, _ := mock.AgentJobState("proj_1", id)
	if job.PRLink == nil {
		t.Fatalf("the mock's job has no pull request: %+v", job)
	}

	// The job ran 2s: with a line at least every 0.5s of silence and polls
	// every 0.25s at most, there are 2 to 4 reminders; a line per poll
	// would be about 8.
	var still int
	for _, line := range progress {
		if strings.HasPrefix(line, "agent job "+id+" is still active after ") {
			still++
		}
	}
	if still < 2 || still > 4 {
		t.Errorf("%d reminders that the job is still active in 2s, want 2 to 4", still)
	}
	for _, want := range []string{
		"created agent job " + id + " (status active)",
		"agent job " + id + " is now completed after ",
		"agent job " + id + " opened pull request " + *job.PRLink,
	} {
		if !strings.Contains(said, want) {
			t.Errorf("the progress does not say %q", want)
		}
	}
	if strings.Contains(said, prompt) || strings.Contains(said, redact.PromptStart(prompt)) || strings.Contains(said, mock.APIKey) {
		t.Errorf("the progress shows the prompt or the key")
	}
}
