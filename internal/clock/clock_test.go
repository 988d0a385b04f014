package clock_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
)

var simEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// within fails the test if f does not return within a second of real time.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatalf("%s did not return promptly", what)
	}
}

// Time is virtual inside a synctest bubble: it moves only when every
// goroutine of the bubble waits on it, and synctest.Wait lets the others run.

func TestSleepWaitsForTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		errc := make(chan error, 1)
		go func() { errc <- clock.Sleep(context.Background(), clock.RealClock, 5*time.Second) }()
		time.Sleep(4 * time.Second)
		synctest.Wait()
		select {
		case err := <-errc:
			t.Fatalf("Sleep returned %v before its time", err)
		default:
		}
		if err := <-errc; err != nil {
			t.Errorf("Sleep = %v, want nil", err)
		}
		if waited := time.Since(start); waited != 5*time.Second {
			t.Errorf("Sleep took %s, want 5s", waited)
		}
	})
}

func TestSleepStopsWhenContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- clock.Sleep(ctx, clock.RealClock, time.Hour) }()
		synctest.Wait()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep = %v, want context.Canceled", err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("Sleep returned after %s, want at once", waited)
		}
	})
}

func TestSleepOnDoneContextReturnsAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, d := range []time.Duration{0, time.Hour} {
		if err := clock.Sleep(ctx, clock.RealClock, d); !errors.Is(err, context.Canceled) {
			t.Errorf("Sleep(%s) = %v, want context.Canceled", d, err)
		}
	}
	if err := clock.Sleep(context.Background(), clocktest.NewFakeClock(simEpoch), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
}

func TestSleepRealClock(t *testing.T) {
	start := time.Now()
	if err := clock.Sleep(context.Background(), clock.RealClock, 2*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < 2*time.Millisecond {
		t.Errorf("slept %s, want at least 2ms", elapsed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Millisecond)
	defer cancel()
	within(t, "Sleep", func() {
		if err := clock.Sleep(ctx, clock.RealClock, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Sleep = %v, want context.DeadlineExceeded", err)
		}
	})
}
