package mockapi

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"
)

func TestAgentJobSeedingAndRendering(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	created := time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)
	s.SeedAgentJob("proj", AgentJob{
		ID: "full", Status: "completed",
		Repository: new("https://github.com/acme/docs"), Ref: new("agent/fix-typos"),
		Model: new("model-x"), PRLink: new("https://github.com/acme/docs/pull/7"),
		CreatedAt: &created, ArchivedAt: nil,
	})
	s.SeedAgentJob("proj", AgentJob{ID: "nullref", Repository: new("https://github.com/acme/docs")})
	s.SeedAgentJob("proj", AgentJob{ID: "nosource", Status: "paused-for-review"})
	s.SeedAgentJob("proj", AgentJob{ID: "minimal", Status: "active", Model: new("m"), OmitFields: true})

	r := call(t, s, "GET", "/v2/agent/proj/job/full", "")
	wantStatus(t, r, http.StatusOK)
	wantJSON(t, r)
	want := `{"id":"full","status":"completed","source":{"repository":"https://github.com/acme/docs","ref":"agent/fix-typos"},"model":"model-x","prLink":"https://github.com/acme/docs/pull/7","createdAt":"2026-11-01T09:30:00Z","archivedAt":null}`
	if string(r.body) != want {
		t.Fatalf("body =\n%s\nwant\n%s", r.body, want)
	}

	r = call(t, s, "GET", "/v2/agent/proj/job/nullref", "")
	want = `{"id":"nullref","status":"active","source":{"repository":"https://github.com/acme/docs","ref":null},"model":null,"prLink":null,"createdAt":null,"archivedAt":null}`
	if string(r.body) != want {
		t.Fatalf("body =\n%s\nwant\n%s", r.body, want)
	}

	m := call(t, s, "GET", "/v2/agent/proj/job/nosource", "").json(t)
	if _, ok := m["source"]; ok || m["status"] != "paused-for-review" {
		t.Fatalf("nosource = %v", m)
	}

	r = call(t, s, "GET", "/v2/agent/proj/job/minimal", "")
	if string(r.body) != `{"id":"minimal","status":"active"}` {
		t.Fatalf("OmitFields body = %s", r.body)
	}

	r = call(t, s, "GET", "/v2/agent/proj/job/ghost", "")
	wantStatus(t, r, http.StatusNotFound)
	if got := r.errorMessage(t); got != "agent job ghost not found in project proj" {
		t.Fatalf("404 = %q", got)
	}
	// Jobs are scoped by project.
	wantStatus(t, call(t, s, "GET", "/v2/agent/other/job/full", ""), http.StatusNotFound)
}

func TestAgentJobSeedIsCopied(t *testing.T) {
	s, _ := newTestServer(t, Config{})
	model := "before"
	s.SeedAgentJob("p", AgentJob{ID: "j", Model: &model})
	model = "after"
	if m := call(t, s, "GET", "/v2/agent/p/job/j", "").json(t); m["model"] != "before" {
		t.Fatalf("seed aliases caller memory: %v", m["model"])
	}
}

func TestAgentJobSchedule(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	s.SeedAgentJob("p", AgentJob{ID: "j", Status: "active", Repository: new("https://github.com/acme/docs")})
	s.ScheduleAgentJob("p", "j", 20*time.Second, AgentJob{Status: "archived", ArchivedAt: new(testStart.Add(20 * time.Second))})
	s.ScheduleAgentJob("p", "j", 10*time.Second, AgentJob{Status: "completed", PRLink: new("https://github.com/acme/docs/pull/1")})
	// A job that only appears later.
	s.ScheduleAgentJob("p", "late", 5*time.Second, AgentJob{Status: "active"})

	status := func(id string) (int, map[string]any) {
		r := call(t, s, "GET", "/v2/agent/p/job/"+id, "")
		if r.status != http.StatusOK {
			return r.status, nil
		}
		return r.status, r.json(t)
	}
	if _, m := status("j"); m["status"] != "active" || m["prLink"] != nil {
		t.Fatalf("t=0: %v", m)
	}
	if code, _ := status("late"); code != http.StatusNotFound {
		t.Fatalf("late job visible early: %d", code)
	}
	clock.Advance(9 * time.Second)
	if _, m := status("j"); m["status"] != "active" {
		t.Fatalf("t=9s: %v", m)
	}
	if _, m := status("late"); m["status"] != "active" || m["id"] != "late" {
		t.Fatalf("late job at 9s: %v", m)
	}
	clock.Advance(time.Second)
	if _, m := status("j"); m["status"] != "completed" || m["prLink"] != "https://github.com/acme/docs/pull/1" || m["id"] != "j" {
		t.Fatalf("t=10s: %v", m)
	}
	clock.Advance(time.Hour) // both remaining transitions are due: the last one wins
	if _, m := status("j"); m["status"] != "archived" || m["archivedAt"] != "2026-11-22T08:00:20Z" {
		t.Fatalf("t=1h: %v", m)
	}
	if got := s.AgentJobReads("p", "j"); got != 4 {
		t.Fatalf("AgentJobReads(j) = %d, want 4", got)
	}
	if got := s.AgentJobReads("p", "late"); got != 2 {
		t.Fatalf("AgentJobReads(late) = %d, want 2", got)
	}
	if got := s.AgentJobReads("p", "never"); got != 0 {
		t.Fatalf("AgentJobReads(never) = %d", got)
	}
}

func TestAgentCreateAndMessage(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	r := call(t, s, "POST", "/v2/agent/p/job", `{"prompt":"Fix the typos in the quickstart"}`)
	wantStatus(t, r, http.StatusCreated)
	wantJSON(t, r)
	m := r.json(t)
	id, _ := m["id"].(string)
	if !regexp.MustCompile(`^aj_[0-9a-f]{16}$`).MatchString(id) || m["status"] != "active" || m["prLink"] != nil ||
		m["createdAt"] != "2026-11-22T08:00:00Z" {
		t.Fatalf("created job = %v", m)
	}
	if m := call(t, s, "GET", "/v2/agent/p/job/"+id, "").json(t); m["id"] != id {
		t.Fatalf("created job not readable: %v", m)
	}

	for _, body := range []string{`{"prompt":""}`, `{"prompt":"   "}`, `{}`, `nope`, ``} {
		wantStatus(t, call(t, s, "POST", "/v2/agent/p/job", body), http.StatusBadRequest)
		wantStatus(t, call(t, s, "POST", "/v2/agent/p/job/"+id+"/message", body), http.StatusBadRequest)
	}

	r = call(t, s, "POST", "/v2/agent/p/job/ghost/message", `{"prompt":"hi"}`)
	wantStatus(t, r, http.StatusNotFound)
	if got := r.errorMessage(t); got != "agent job ghost not found in project p" {
		t.Fatalf("404 = %q", got)
	}

	s.ScheduleAgentJob("p", id, time.Minute, AgentJob{Status: "completed"})
	clock.Advance(time.Minute)
	r = call(t, s, "POST", "/v2/agent/p/job/"+id+"/message", `{"prompt":"Also update the changelog"}`)
	wantStatus(t, r, http.StatusOK)
	if m := r.json(t); m["status"] != "active" || m["id"] != id {
		t.Fatalf("message answer = %v", m)
	}
	if st, _ := s.AgentJobState("p", id); st.Status != "active" {
		t.Fatalf("state after message = %+v", st)
	}
}

func TestAgentCreationRateLimit(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	for i := range AgentCreationsPerHour {
		wantStatus(t, call(t, s, "POST", "/v2/agent/p/job", fmt.Sprintf(`{"prompt":"job %d"}`, i)), http.StatusCreated)
		clock.Advance(time.Second)
	}
	r := call(t, s, "POST", "/v2/agent/p/job", `{"prompt":"one too many"}`)
	wantStatus(t, r, http.StatusTooManyRequests)
	wantJSON(t, r)
	// The oldest creation (t=0) leaves the window at t=1h; now is t=100s.
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra != 3600-100 {
		t.Fatalf("Retry-After = %q", r.header.Get("Retry-After"))
	}
	// Another project is not affected.
	wantStatus(t, call(t, s, "POST", "/v2/agent/q/job", `{"prompt":"x"}`), http.StatusCreated)

	clock.Advance(testStart.Add(time.Hour).Sub(clock.Now()))
	wantStatus(t, call(t, s, "POST", "/v2/agent/p/job", `{"prompt":"again"}`), http.StatusCreated)
	wantStatus(t, call(t, s, "POST", "/v2/agent/p/job", `{"prompt":"again"}`), http.StatusTooManyRequests)
}

func TestAgentJSONIsValidForAllShapes(t *testing.T) {
	for _, j := range []AgentJob{{ID: "a"}, {ID: "b", OmitFields: true}, {ID: "c", Ref: new("main")}} {
		b, err := json.Marshal(renderAgentJob(j.clone()))
		if err != nil || !json.Valid(b) {
			t.Fatalf("%+v: %s %v", j, b, err)
		}
	}
}

func TestAgentJobScriptAndPrompts(t *testing.T) {
	s, clock := newTestServer(t, Config{})
	pr := "https://github.com/example/docs/pull/7"
	s.SetAgentJobScript("p",
		AgentStep{After: 2 * time.Second, Job: AgentJob{Status: AgentCompleted, PRLink: &pr}},
		AgentStep{After: time.Second, Job: AgentJob{Status: AgentActive, Model: new("m")}})
	id, _ := call(t, s, "POST", "/v2/agent/p/job", `{"prompt":"Document v2"}`).json(t)["id"].(string)
	other, _ := call(t, s, "POST", "/v2/agent/q/job", `{"prompt":"elsewhere"}`).json(t)["id"].(string)

	clock.Advance(time.Second)
	if st, _ := s.AgentJobState("p", id); st.Status != AgentActive || st.Model == nil || st.ID != id {
		t.Fatalf("after 1s: %+v", st)
	}
	clock.Advance(time.Second)
	if st, _ := s.AgentJobState("p", id); st.Status != AgentCompleted || st.PRLink == nil || *st.PRLink != pr {
		t.Fatalf("after 2s: %+v", st)
	}
	if st, _ := s.AgentJobState("q", other); st.Status != AgentActive {
		t.Fatalf("a job of another project followed the script: %+v", st)
	}

	// A message restarts the script from the message.
	wantStatus(t, call(t, s, "POST", "/v2/agent/p/job/"+id+"/message", `{"prompt":"Also the changelog"}`), http.StatusOK)
	if st, _ := s.AgentJobState("p", id); st.Status != AgentActive {
		t.Fatalf("after the message: %+v", st)
	}
	clock.Advance(2 * time.Second)
	if st, _ := s.AgentJobState("p", id); st.Status != AgentCompleted {
		t.Fatalf("2s after the message: %+v", st)
	}

	if got := s.AgentJobPrompts("p", id); !slices.Equal(got, []string{"Document v2", "Also the changelog"}) {
		t.Fatalf("prompts = %q", got)
	}
	if got := s.AgentJobsCreated("p"); !slices.Equal(got, []string{id}) {
		t.Fatalf("created = %q", got)
	}
	s.SeedAgentJob("p", AgentJob{ID: "seeded"})
	if got := s.AgentJobsCreated("p"); len(got) != 1 || s.AgentJobPrompts("p", "seeded") != nil {
		t.Fatalf("a seeded job counts as created: %q", got)
	}
}

func TestAgentJobOutcome(t *testing.T) {
	for _, tc := range []struct {
		outcome  string
		duration time.Duration
		want     string // status once the duration has passed
	}{
		{AgentCompleted, 5 * time.Second, AgentCompleted},
		{AgentFailed, 0, AgentFailed}, // the default duration
		{AgentActive, time.Second, AgentActive},
		{"", time.Second, AgentActive},
	} {
		t.Run(cmp.Or(tc.outcome, "unset"), func(t *testing.T) {
			s, clock := newTestServer(t, Config{AgentJobOutcome: tc.outcome, AgentJobDuration: tc.duration})
			after := cmp.Or(tc.duration, DefaultAgentJobDuration)
			created := call(t, s, "POST", "/v2/agent/p/job", `{"prompt":"Document v2"}`).json(t)
			id, _ := created["id"].(string)

			clock.Advance(after - time.Millisecond)
			before := call(t, s, "GET", "/v2/agent/p/job/"+id, "").json(t)
			if before["status"] != AgentActive || before["prLink"] != nil {
				t.Fatalf("just before %s: %v", after, before)
			}
			clock.Advance(time.Millisecond)
			got := call(t, s, "GET", "/v2/agent/p/job/"+id, "").json(t)
			if got["status"] != tc.want {
				t.Fatalf("after %s: status %v, want %s", after, got["status"], tc.want)
			}
			// The job keeps what it had: only status and prLink change.
			for _, k := range []string{"id", "source", "model", "createdAt"} {
				if fmt.Sprint(got[k]) != fmt.Sprint(created[k]) {
					t.Errorf("%s changed from %v to %v", k, created[k], got[k])
				}
			}
			pr, _ := got["prLink"].(string)
			if wantPR := tc.want == AgentCompleted; wantPR != regexp.MustCompile(`^https://github\.com/example/docs/pull/\d+$`).MatchString(pr) {
				t.Errorf("prLink = %v with status %s", got["prLink"], tc.want)
			}
		})
	}
}

func TestAgentJobOutcomeAfterAMessage(t *testing.T) {
	s, clock := newTestServer(t, Config{AgentJobOutcome: AgentCompleted, AgentJobDuration: 10 * time.Second})
	id, _ := call(t, s, "POST", "/v2/agent/p/job", `{"prompt":"Document v2"}`).json(t)["id"].(string)
	clock.Advance(5 * time.Second)
	// A message to an active job restarts its countdown.
	wantStatus(t, call(t, s, "POST", "/v2/agent/p/job/"+id+"/message", `{"prompt":"Also the changelog"}`), http.StatusOK)
	clock.Advance(5 * time.Second)
	if st, _ := s.AgentJobState("p", id); st.Status != AgentActive {
		t.Fatalf("10s after creation, 5s after the message: %s", st.Status)
	}
	clock.Advance(5 * time.Second)
	st, _ := s.AgentJobState("p", id)
	if st.Status != AgentCompleted || st.PRLink == nil {
		t.Fatalf("10s after the message: %+v", st)
	}
	pr := *st.PRLink
	// A message to the completed job makes it work again, on the same pull request.
	wantStatus(t, call(t, s, "POST", "/v2/agent/p/job/"+id+"/message", `{"prompt":"And the index"}`), http.StatusOK)
	if st, _ := s.AgentJobState("p", id); st.Status != AgentActive {
		t.Fatalf("after a message to the completed job: %s", st.Status)
	}
	clock.Advance(10 * time.Second)
	if st, _ := s.AgentJobState("p", id); st.Status != AgentCompleted || st.PRLink == nil || *st.PRLink != pr {
		t.Fatalf("second completion: %+v, want pull request %s", st, pr)
	}

	// A project script wins over the outcome.
	s.SetAgentJobScript("scripted", AgentStep{After: time.Second, Job: AgentJob{Status: AgentFailed}})
	other, _ := call(t, s, "POST", "/v2/agent/scripted/job", `{"prompt":"x"}`).json(t)["id"].(string)
	clock.Advance(time.Second)
	if st, _ := s.AgentJobState("scripted", other); st.Status != AgentFailed {
		t.Fatalf("scripted job: %s, want failed", st.Status)
	}
	// A failed job stays failed after a message: the outcome is for active jobs.
	s.SeedAgentJob("p", AgentJob{ID: "aj_failed", Status: AgentFailed})
	wantStatus(t, call(t, s, "POST", "/v2/agent/p/job/aj_failed/message", `{"prompt":"retry"}`), http.StatusOK)
	clock.Advance(time.Minute)
	if st, _ := s.AgentJobState("p", "aj_failed"); st.Status != AgentFailed {
		t.Fatalf("failed job after a message: %s", st.Status)
	}
}

func TestAgentJobOutcomeRefusesUnknownValues(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NewHandler accepted AgentJobOutcome \"archived\"")
		}
	}()
	NewHandler(Config{AgentJobOutcome: AgentArchived})
}
