// Package clocktest provides FakeClock, a simulated clock.Clock for tests,
// simulations and benchmarks. It is a package of its own so that only they
// import it and the provider binary does not link it: nothing shipped may
// import it.
package clocktest
