package poll

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPermanent(t *testing.T) {
	if Permanent(nil) != nil {
		t.Error("Permanent(nil) != nil")
	}
	base := errors.New("403 forbidden")
	err := Permanent(base)
	if !IsPermanent(err) || !IsPermanent(fmt.Errorf("ctx: %w", err)) {
		t.Error("IsPermanent misses a permanent error")
	}
	if IsPermanent(base) || IsPermanent(nil) {
		t.Error("IsPermanent reports a plain error")
	}
	if !errors.Is(err, base) || err.Error() != base.Error() {
		t.Errorf("Permanent(err) = %v, want it to wrap and read as err", err)
	}
}

func TestTimeoutErrorUnwrapsContextError(t *testing.T) {
	err := error(&TimeoutError{Cause: context.DeadlineExceeded, Waited: 90 * time.Second, Polls: 3})
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Errorf("errors.Is fails on %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "timed out after 1m30s") || !strings.Contains(msg, "no successful poll") {
		t.Errorf("message %q", msg)
	}
}
