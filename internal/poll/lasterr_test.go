package poll

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
)

// A poll that the wait's deadline cuts short says only that the wait ended:
// the failure of the poll before it, when it failed, is the reason the
// timeout reports.
func TestTimeoutKeepsTheFailureBeforeTheCutPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errSlow := errors.New("the answer was still arriving after 30s")
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		calls := 0
		_, err := Until(ctx, Policy{Clock: clock.RealClock, Rand: noJitter}, func(ctx context.Context) (Observation, error) {
			calls++
			if calls == 1 {
				return Observation{}, errSlow
			}
			<-ctx.Done() // cut by the deadline
			return Observation{}, ctx.Err()
		})
		var timeout *TimeoutError
		if !errors.As(err, &timeout) || !errors.Is(timeout.LastErr, errSlow) {
			t.Fatalf("err = %v, want a timeout whose LastErr is the failure before the cut poll", err)
		}
	})
}
