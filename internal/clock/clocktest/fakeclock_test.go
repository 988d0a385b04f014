package clocktest

import (
	"context"
	"testing"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
)

var simEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestFakeClockAutoAdvance(t *testing.T) {
	c := NewFakeClock(simEpoch)
	if err := clock.Sleep(context.Background(), c, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := c.Now().Sub(simEpoch); got != time.Minute {
		t.Errorf("clock moved %s, want 1m", got)
	}
	if err := clock.Sleep(context.Background(), c, time.Second); err != nil || c.Now().Sub(simEpoch) != time.Minute+time.Second {
		t.Errorf("a second Sleep: %v, clock moved %s in all, want 1m1s", err, c.Now().Sub(simEpoch))
	}
}
