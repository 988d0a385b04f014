// Package poll is the single waiting engine of the provider: every wait for a
// job to finish, every retry delay and every sleep goes through it.
//
// It knows nothing of HTTP or Terraform. Callers supply a CheckFunc that
// performs one poll and says whether the observed state is final; Until
// repeats it on a schedule chosen by Scheduler, bounded by the context.
//
// The schedule follows reported progress: once progress rises, Scheduler
// estimates when the job will finish and polls at shrinking fractions of the
// remaining time, so completion is noticed soon after it happens with few
// requests. Without usable progress it falls back to capped exponential
// backoff. Time is read through a Clock so tests and simulations run on
// simulated time.
package poll
