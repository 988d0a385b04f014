package clocktest

import (
	"sync"
	"time"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
)

var _ clock.Clock = (*FakeClock)(nil)

// FakeClock is a simulated clock for simulations and benchmarks: every wait
// on it moves it forward by its length at once, so code runs through hours
// of simulated waiting in no real time and the time it waited can be read
// off the clock. Otherwise it stands still until Advance, which lets tests
// step a server's clock (mockapi's Config.Now) by hand. Tests that need time
// to stand still while the code under test waits run in a testing/synctest
// bubble on clock.RealClock instead.
type FakeClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewFakeClock returns a FakeClock reading start.
func NewFakeClock(start time.Time) *FakeClock {
	return &FakeClock{now: start}
}

// Now returns the simulated time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After moves the clock forward by d and returns a channel that has
// already received the new time.
func (c *FakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d > 0 {
		c.now = c.now.Add(d)
	}
	ch := make(chan time.Time, 1)
	ch <- c.now
	return ch
}

// Advance moves the clock forward by d, as a wait of d on it does.
func (c *FakeClock) Advance(d time.Duration) { <-c.After(d) }
