package poll

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
)

// simEpoch is when simulated time starts.
var simEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

var errFlaky = errors.New("503 service unavailable")

// autoPolicy runs on a fake clock that jumps through every wait at once.
func autoPolicy() (Policy, *clocktest.FakeClock) {
	c := clocktest.NewFakeClock(simEpoch)
	return Policy{Clock: c, Rand: noJitter}, c
}

// script returns a CheckFunc that plays results in order, repeating the last.
func script(results ...func() (Observation, error)) (CheckFunc, *int) {
	calls := 0
	return func(context.Context) (Observation, error) {
		r := results[min(calls, len(results)-1)]
		calls++
		return r()
	}, &calls
}

func running(p float64) func() (Observation, error) {
	return func() (Observation, error) { return Observation{Status: "running", Progress: new(p)}, nil }
}

func completed() (Observation, error) {
	return Observation{Status: "completed", Final: true, Progress: new(100.0)}, nil
}

func failing(err error) func() (Observation, error) {
	return func() (Observation, error) { return Observation{}, err }
}

// logRecorder collects Log calls.
type logRecorder struct {
	mu      sync.Mutex
	entries []string
	fields  []map[string]any
}

func (l *logRecorder) log(_ context.Context, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, msg)
	l.fields = append(l.fields, fields)
}

func (l *logRecorder) count(msg string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.entries {
		if e == msg {
			n++
		}
	}
	return n
}

func TestUntilReturnsFinalObservation(t *testing.T) {
	p, c := autoPolicy()
	var firstAt time.Time
	check, calls := script(
		func() (Observation, error) { firstAt = c.Now(); return running(0)() },
		running(30), running(60), completed,
	)
	obs, err := Until(context.Background(), p, check)
	if err != nil || !obs.Final || obs.Status != "completed" {
		t.Fatalf("Until = %+v, %v", obs, err)
	}
	if *calls != 4 {
		t.Errorf("checks = %d, want 4", *calls)
	}
	if !firstAt.Equal(simEpoch) {
		t.Errorf("first check at %s, want immediately", firstAt.Sub(simEpoch))
	}
}

func TestUntilUnknownStatusIsLoggedOnceAndNotFinal(t *testing.T) {
	p, _ := autoPolicy()
	logs := &logRecorder{}
	p.Log = logs.log
	p.KnownStatuses = []string{"queued", "running", "completed", "failed"}
	unknown := func() (Observation, error) { return Observation{Status: "archiving"}, nil }
	check, calls := script(running(10), unknown, unknown, unknown, completed)
	obs, err := Until(context.Background(), p, check)
	if err != nil || obs.Status != "completed" {
		t.Fatalf("Until = %+v, %v; an unknown status must not end the wait", obs, err)
	}
	if *calls != 5 {
		t.Errorf("checks = %d, want 5", *calls)
	}
	if n := logs.count("unknown status, treated as not final"); n != 1 {
		t.Errorf("unknown status logged %d times, want once", n)
	}
	if n := logs.count("waiting before next poll"); n != 4 {
		t.Errorf("waits logged %d times, want 4", n)
	}
}

func TestUntilCancellationIsPrompt(t *testing.T) {
	synctest.Test(t, testUntilCancellationIsPrompt)
}

func testUntilCancellationIsPrompt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		obs Observation
		err error
	}
	done := make(chan result, 1)
	go func() {
		obs, err := Until(ctx, Policy{}, func(context.Context) (Observation, error) {
			return Observation{Status: "running", Progress: new(42.0)}, nil
		})
		done <- result{obs, err}
	}()
	time.Sleep(3 * time.Second)
	cancel()
	cancelled := time.Now()

	r := <-done
	if waited := time.Since(cancelled); waited != 0 {
		t.Errorf("Until returned %s after the cancellation, want at once", waited)
	}
	var te *TimeoutError
	if !errors.As(r.err, &te) || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("err = %v, want a *TimeoutError wrapping context.Canceled", r.err)
	}
	if !te.Seen || *te.Last.Progress != 42 || te.Polls < 1 || te.Waited < 3*time.Second {
		t.Errorf("TimeoutError = %+v", te)
	}
	if *r.obs.Progress != 42 {
		t.Errorf("returned observation %+v, want the last one seen", r.obs)
	}
	if !strings.Contains(te.Error(), "cancelled") {
		t.Errorf("message %q should say the wait was cancelled", te.Error())
	}
}

// In a synctest bubble the deadline and the wait share one virtual clock, so
// the time waited is exact however loaded the machine is.
func TestUntilDeadlineReportsLastState(t *testing.T) {
	synctest.Test(t, testUntilDeadlineReportsLastState)
}

func testUntilDeadlineReportsLastState(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	obs, err := Until(ctx, Policy{}, func(context.Context) (Observation, error) {
		return Observation{Status: "running", Progress: new(12.5), Counts: []Count{{"page", 7}}}, nil
	})
	var te *TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a *TimeoutError wrapping context.DeadlineExceeded", err)
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("Until took %s past a 20ms deadline", elapsed)
	}
	if obs.Status != "running" || te.Last.Status != "running" || !te.Seen || te.Polls != 1 {
		t.Errorf("obs %+v, TimeoutError %+v", obs, te)
	}
	if te.Waited < 20*time.Millisecond {
		t.Errorf("Waited = %s, want at least the 20ms deadline", te.Waited)
	}
	msg := te.Error()
	for _, want := range []string{"timed out", `"running"`, "12.5%", "7 pages", "(1 poll)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

func TestUntilContextDoneBeforeFirstPoll(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	called := false
	_, err := Until(ctx, Policy{}, func(context.Context) (Observation, error) {
		called = true
		return Observation{}, nil
	})
	var te *TimeoutError
	if !errors.As(err, &te) || te.Seen || te.Polls != 0 || called {
		t.Errorf("err = %v, called = %v; want a TimeoutError without polling", err, called)
	}
	if !strings.Contains(err.Error(), "no successful poll") {
		t.Errorf("message %q", err.Error())
	}
}

func TestUntilCheckFailingBecauseContextEnded(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p, _ := autoPolicy()
	check, calls := script(running(5), func() (Observation, error) {
		cancel()
		return Observation{}, fmt.Errorf("GET job: %w", context.Canceled)
	})
	_, err := Until(ctx, p, check)
	var te *TimeoutError
	if !errors.As(err, &te) || te.LastErr == nil || *calls != 2 {
		t.Fatalf("err = %v after %d checks, want a TimeoutError carrying the failed poll", err, *calls)
	}
	if !strings.Contains(err.Error(), "last poll failed") {
		t.Errorf("message %q", err.Error())
	}
}

func TestUntilErrorBudget(t *testing.T) {
	p, _ := autoPolicy()
	p.MaxConsecutiveErrors = 4
	logs := &logRecorder{}
	p.Log = logs.log
	check, calls := script(running(10), failing(errFlaky))
	obs, err := Until(context.Background(), p, check)
	var be *ErrorBudgetError
	if !errors.As(err, &be) || !errors.Is(err, errFlaky) {
		t.Fatalf("err = %v, want an *ErrorBudgetError wrapping the last error", err)
	}
	if be.Errors != 4 || *calls != 5 || !be.Seen || *be.Last.Progress != 10 || *obs.Progress != 10 {
		t.Errorf("after %d checks: %+v, obs %+v", *calls, be, obs)
	}
	if be.Waited <= 0 {
		t.Errorf("Waited = %s", be.Waited)
	}
	if n := logs.count("poll failed"); n != 4 {
		t.Errorf("errors logged %d times, want 4", n)
	}
	if !strings.Contains(err.Error(), "4 consecutive failed polls") || !strings.Contains(err.Error(), errFlaky.Error()) {
		t.Errorf("message %q", err.Error())
	}
}

func TestUntilSuccessResetsErrorBudget(t *testing.T) {
	p, _ := autoPolicy()
	p.MaxConsecutiveErrors = 3
	f := failing(errFlaky)
	check, calls := script(f, f, running(10), f, f, running(20), f, f, running(30), completed)
	obs, err := Until(context.Background(), p, check)
	if err != nil || !obs.Final {
		t.Fatalf("Until = %+v, %v; errors interleaved with successes must not exhaust the budget", obs, err)
	}
	if *calls != 10 {
		t.Errorf("checks = %d, want 10", *calls)
	}
}

func TestUntilPermanentErrorStopsAtOnce(t *testing.T) {
	p, c := autoPolicy()
	notFound := errors.New("404 no such job")
	check, calls := script(running(10), failing(Permanent(notFound)))
	_, err := Until(context.Background(), p, check)
	if err != notFound {
		t.Fatalf("err = %v, want the original error", err)
	}
	if *calls != 2 {
		t.Errorf("checks = %d, want 2", *calls)
	}
	// One wait, after the first observation, and none after the error.
	if waited := c.Now().Sub(simEpoch); waited != DefaultInitialInterval {
		t.Errorf("waited %s, want only the initial %s", waited, DefaultInitialInterval)
	}
}

func TestUntilWrappedPermanentErrorIsReturnedAsIs(t *testing.T) {
	p, _ := autoPolicy()
	wrapped := fmt.Errorf("GET job: %w", Permanent(errors.New("401")))
	_, err := Until(context.Background(), p, func(context.Context) (Observation, error) { return Observation{}, wrapped })
	if err != wrapped || !IsPermanent(err) {
		t.Errorf("err = %v, want the wrapped error unchanged", err)
	}
}

func TestUntilLogsChosenWaits(t *testing.T) {
	p, _ := autoPolicy()
	logs := &logRecorder{}
	p.Log = logs.log
	check, _ := script(running(0), running(10), running(20), completed)
	if _, err := Until(context.Background(), p, check); err != nil {
		t.Fatal(err)
	}
	last := logs.fields[len(logs.fields)-1]
	for _, key := range []string{"poll", "status", "mode", "wait", "progress", "rate_percent_per_second", "estimated_completion_in"} {
		if _, ok := last[key]; !ok {
			t.Errorf("log fields %v lack %q", last, key)
		}
	}
}

func TestUntilFromStartsFromTheObservationInHand(t *testing.T) {
	p, c := autoPolicy()
	var checkedAt []time.Duration
	check, calls := script(running(50), completed)
	obs, err := UntilFrom(context.Background(), p, Observation{Status: "queued", Progress: new(0.0)}, func(ctx context.Context) (Observation, error) {
		checkedAt = append(checkedAt, c.Now().Sub(simEpoch))
		return check(ctx)
	})
	if err != nil || !obs.Final {
		t.Fatalf("UntilFrom = %+v, %v", obs, err)
	}
	if *calls != 2 {
		t.Errorf("checks = %d, want 2: the observation in hand replaces the first", *calls)
	}
	if len(checkedAt) == 0 || checkedAt[0] != DefaultInitialInterval {
		t.Errorf("checks at %v, want the first after the initial interval", checkedAt)
	}

	// A final observation in hand ends the wait without a check.
	done, _ := completed()
	check, calls = script(running(50))
	if obs, err := UntilFrom(context.Background(), p, done, check); err != nil || !obs.Final || *calls != 0 {
		t.Errorf("UntilFrom(final) = %+v, %v after %d checks, want it back at once", obs, err, *calls)
	}
}

func TestQuickLookNoticesAShortJobAndLeavesTheScheduleAsItWas(t *testing.T) {
	inHand := Observation{Status: "queued", Progress: new(0.0)}
	checks := func(quick bool, results ...func() (Observation, error)) []time.Duration {
		p, c := autoPolicy()
		p.QuickLook = quick
		var at []time.Duration
		check, _ := script(results...)
		if _, err := UntilFrom(context.Background(), p, inHand, func(ctx context.Context) (Observation, error) {
			at = append(at, c.Now().Sub(simEpoch))
			return check(ctx)
		}); err != nil {
			t.Fatal(err)
		}
		return at
	}

	// A job done within MinInterval is seen at MinInterval, not after the
	// initial interval.
	if at := checks(true, completed); !slices.Equal(at, []time.Duration{DefaultMinInterval}) {
		t.Errorf("short job checked at %v, want once at %s", at, DefaultMinInterval)
	}
	// A longer job costs the one look more; every later check is where it
	// would be without it.
	without := checks(false, running(40), running(80), completed)
	with := checks(true, running(20), running(40), running(80), completed)
	if len(with) != len(without)+1 || with[0] != DefaultMinInterval || !slices.Equal(with[1:], without) {
		t.Errorf("checks with the quick look at %v, without at %v: want one more at %s and the rest unchanged", with, without, DefaultMinInterval)
	}
	// A slow or failed look moves no later check.
	p, c := autoPolicy()
	p.QuickLook = true
	var at []time.Duration
	check, _ := script(failing(errFlaky), running(40), running(80), completed)
	if _, err := UntilFrom(context.Background(), p, inHand, func(ctx context.Context) (Observation, error) {
		at = append(at, c.Now().Sub(simEpoch))
		if len(at) == 1 {
			c.Advance(200 * time.Millisecond) // the look's answer is slow
		}
		return check(ctx)
	}); err != nil {
		t.Fatalf("a transient error at the quick look ended the wait: %v", err)
	}
	if !slices.Equal(at[1:], without) {
		t.Errorf("checks after a slow, failed quick look at %v, want %v as without it", at[1:], without)
	}
	// A permanent error at the quick look ends the wait.
	p, _ = autoPolicy()
	p.QuickLook = true
	check, _ = script(failing(Permanent(errors.New("gone"))))
	if _, err := UntilFrom(context.Background(), p, inHand, check); err == nil || err.Error() != "gone" {
		t.Errorf("permanent error at the quick look: %v, want it returned", err)
	}
}
