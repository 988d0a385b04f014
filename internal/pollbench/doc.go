// Package pollbench measures ways of waiting for an export job against the
// mock API's job model (mockapi.ExportBehavior.StateAt) on simulated time:
// the provider's poller, run through poll.UntilFrom exactly as the provider
// runs it, and the two waits users script today (a shell loop and the
// Terraform SDK's default waiter). For each it records how many GETs a job
// costs and how late its completion is noticed. Targets are reported, not
// asserted; the figures belong to the performance guide, never here.
package pollbench
