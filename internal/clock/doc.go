// Package clock holds the provider's time utilities: the Clock every wait
// reads time through, the real clock, a context-aware Sleep, and the capped
// exponential Backoff with its jitter, which only shortens a wait so that
// callers that failed together do not come back together (Shorten, which
// the poller's scheduler uses too). They live apart from the polling engine
// because the HTTP client's retries need them too, and the client has no
// other use for the poller. A simulated clock for tests and benchmarks is in
// clocktest, so that the provider binary never links it.
//
// Production code reads time through a Clock, never behind the tests' back.
// Wall time is read directly only where the other side counts in it or no
// decision depends on it: a context's deadline, the ephemeral resource's
// RenewAt, file times, a download's idle timeout, the names of a site's
// releases, the time a site's marker says it was published, and the
// manifest cache's file times.
package clock
