package provider

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// infoRecords returns the INFO records of a tflogtest log.
func infoRecords(t *testing.T, logs *bytes.Buffer) []map[string]any {
	t.Helper()
	var infos []map[string]any
	sc := bufio.NewScanner(logs)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, sc.Bytes())
		}
		if rec["@level"] == "info" {
			infos = append(infos, rec)
		}
	}
	return infos
}

func testProviderData(t *testing.T, mock *mockapi.Server) *providerData {
	t.Helper()
	c, err := client.New(client.Config{BaseURL: mock.URL, APIKey: mock.APIKey, Backoff: acctest.QuickRetries})
	if err != nil {
		t.Fatal(err)
	}
	return &providerData{client: c, clock: clock.RealClock, policy: acctest.QuickPolls, sanitizer: redact.New(mock.APIKey), baseURL: mock.URL}
}

func TestExportWaitLogsOneInfoLinePerStatusChange(t *testing.T) {
	t.Parallel()
	// Queued 0.5s, then running 1s in many polls, then completed.
	mock := acctest.NewMock(t, mockapi.Config{QueueDuration: 500 * time.Millisecond, ExportDuration: time.Second})
	data := testProviderData(t, mock)
	var logs bytes.Buffer
	ctx := data.maskSecrets(tflogtest.RootLogger(context.Background(), &logs))

	started, err := data.client.StartStaticExport(ctx, client.StartStaticExportRequest{Domain: "docs.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	r := &staticExportResource{data: data}
	job, err := r.waitForCompletion(ctx, started.JobID, started, timeoutCreate, time.Minute)
	if err != nil || job.Status != client.ExportCompleted {
		t.Fatalf("wait: %v, %+v", err, job)
	}
	if n := mock.Requests(mockapi.EndpointGetExport); n < 5 {
		t.Fatalf("only %d polls: the test does not show that unchanged polls stay quiet", n)
	}

	infos := infoRecords(t, &logs)
	var got []string
	for _, rec := range infos {
		got = append(got, rec["@message"].(string))
	}
	id := started.JobID
	want := []string{
		"export job " + id + " is queued",
		"export job " + id + " is now running (was queued)",
		"export job " + id + " is now completed (was running)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("INFO records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	last := infos[len(infos)-1]
	if last["job_id"] != id || last["status"] != "completed" || last["previous_status"] != "running" || last["progress"] != float64(100) {
		t.Errorf("the completed record's fields: %v", last)
	}
	if _, ok := last["waited"].(string); !ok {
		t.Errorf("no waited field: %v", last)
	}
	if strings.Contains(logs.String(), mock.APIKey) {
		t.Error("the log holds the API key")
	}
}

func TestAgentJobWaitLogsOneInfoLinePerStatusChange(t *testing.T) {
	t.Parallel()
	mock := acctest.NewMock(t, mockapi.Config{})
	pr := "https://github.com/example/docs/pull/5"
	mock.SeedAgentJob("proj_1", mockapi.AgentJob{ID: "aj_1"})
	mock.ScheduleAgentJob("proj_1", "aj_1", 300*time.Millisecond, mockapi.AgentJob{Status: "paused-for-review"})
	mock.ScheduleAgentJob("proj_1", "aj_1", 600*time.Millisecond, mockapi.AgentJob{Status: mockapi.AgentCompleted, PRLink: &pr})
	data := testProviderData(t, mock)
	var logs bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &logs)

	job, err := data.waitForAgentJob(ctx, "proj_1", "aj_1", time.Minute, nil, nil, "")
	if err != nil || job.Status != client.AgentCompleted {
		t.Fatalf("wait: %v, %+v", err, job)
	}
	var got []string
	for _, rec := range infoRecords(t, &logs) {
		got = append(got, rec["@message"].(string))
	}
	want := []string{
		"agent job aj_1 is active",
		"agent job aj_1 is now paused-for-review (was active)",
		"agent job aj_1 is now completed (was paused-for-review)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("INFO records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
