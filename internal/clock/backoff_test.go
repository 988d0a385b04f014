package clock

import (
	"testing"
	"time"
)

func TestBackoffDelayBounds(t *testing.T) {
	for _, r := range []float64{0, 0.3, 0.999} {
		b := Backoff{Base: 100 * time.Millisecond, Max: 5 * time.Second, Factor: 2, Jitter: 0.2, Rand: func() float64 { return r }}
		for attempt := range 70 {
			full := min(100*time.Millisecond<<min(attempt, 20), 5*time.Second)
			got := b.Delay(attempt)
			lo := time.Duration(float64(full) * 0.8)
			if got < lo || got > full {
				t.Fatalf("rand %.3f: Delay(%d) = %s, want within [%s, %s]", r, attempt, got, lo, full)
			}
		}
	}
}

func TestBackoffDelayFirstAttemptIsBase(t *testing.T) {
	b := Backoff{Base: 300 * time.Millisecond, Jitter: -1}
	if got := b.Delay(0); got != 300*time.Millisecond {
		t.Errorf("Delay(0) = %s, want 300ms", got)
	}
	if got := b.Delay(-3); got != 300*time.Millisecond {
		t.Errorf("Delay(-3) = %s, want 300ms", got)
	}
}

func TestBackoffDefaults(t *testing.T) {
	b := Backoff{Rand: func() float64 { return 0 }}
	if got := b.Delay(0); got != time.Second {
		t.Errorf("Delay(0) = %s, want 1s", got)
	}
	if got := b.Delay(1); got != 2*time.Second {
		t.Errorf("Delay(1) = %s, want 2s (factor 2)", got)
	}
	if got := b.Delay(1 << 20); got != 30*time.Second {
		t.Errorf("Delay(huge) = %s, want the 30s cap", got)
	}
	// Default jitter only shortens, by at most 10%.
	b.Rand = func() float64 { return 0.999 }
	if got := b.Delay(0); got < 900*time.Millisecond || got > time.Second {
		t.Errorf("jittered Delay(0) = %s, want within [900ms, 1s]", got)
	}
}

func TestShortenIgnoresBadRandomValues(t *testing.T) {
	for _, r := range []float64{-1, 1, 7} {
		if got := Shorten(time.Second, 0.5, func() float64 { return r }); got != time.Second {
			t.Errorf("Shorten with rand %v = %s, want 1s", r, got)
		}
	}
}
