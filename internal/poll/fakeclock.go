package poll

import (
	"sort"
	"sync"
	"time"
)

// FakeClock is a Clock that only moves when told to. It is safe for
// concurrent use, so a test can drive it from one goroutine while the code
// under test waits on it in another.
type FakeClock struct {
	mu      sync.Mutex
	cond    *sync.Cond // signalled whenever a waiter is added
	now     time.Time
	waiters []fakeWaiter
	auto    bool
}

type fakeWaiter struct {
	at time.Time
	ch chan time.Time
}

// NewFakeClock returns a FakeClock reading start.
func NewFakeClock(start time.Time) *FakeClock {
	c := &FakeClock{now: start}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// Now returns the simulated time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that receives once the clock has been advanced by
// at least d. In auto-advance mode the clock jumps forward by d at once.
func (c *FakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1) // buffered: firing never blocks on an abandoned waiter
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, fakeWaiter{at: c.now.Add(d), ch: ch})
	if c.auto {
		c.advanceLocked(d)
	}
	c.cond.Broadcast()
	return ch
}

// SetAutoAdvance makes every After call move the clock forward by its
// duration immediately, so single-goroutine code runs through simulated
// waits without a driver.
func (c *FakeClock) SetAutoAdvance(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.auto = on
}

// Advance moves the clock forward by d and fires every waiter now due.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advanceLocked(d)
}

// AdvanceToNext moves the clock to the earliest pending waiter, fires it and
// returns how far the clock moved; false if nothing is waiting.
func (c *FakeClock) AdvanceToNext() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return 0, false
	}
	next := c.waiters[0].at
	for _, w := range c.waiters[1:] {
		if w.at.Before(next) {
			next = w.at
		}
	}
	d := next.Sub(c.now)
	c.advanceLocked(d)
	return d, true
}

func (c *FakeClock) advanceLocked(d time.Duration) {
	if d > 0 {
		c.now = c.now.Add(d)
	}
	// Fire in deadline order so receivers see a consistent sequence.
	sort.SliceStable(c.waiters, func(i, j int) bool { return c.waiters[i].at.Before(c.waiters[j].at) })
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	clear(c.waiters[len(kept):])
	c.waiters = kept
}

// Waiters reports how many After channels are still pending. A waiter
// abandoned by a cancelled Sleep stays pending until the clock passes it.
func (c *FakeClock) Waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// BlockUntilWaiters blocks until at least n After channels are pending, so a
// test advances the clock only once the code under test is actually waiting.
func (c *FakeClock) BlockUntilWaiters(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.waiters) < n {
		c.cond.Wait()
	}
}
