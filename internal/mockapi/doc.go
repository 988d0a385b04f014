// Package mockapi is a stateful in-memory fake of the documentation
// administration API: static export jobs in either revision of the API
// (by domain with a bundle call, or by project with the link on the job),
// bundle links, presigned bundle downloads, agent jobs and deployments.
//
// It is deliberately an independent implementation of the contract (it shares
// no code with the provider's client) so that a misreading of the contract in
// one does not silently hide in the other: it must never import the client or
// the provider. Tests, the demo and the benchmarks script it through
// exported methods: per-domain export behaviour and jobs that progress,
// agent jobs, deployments and previews that progress or fail, sitegen's site
// in archives of any size and every kind of bad archive (SetArchive), queued
// faults (InjectFault: a field of a real answer patched to a wrong type, a
// body trickled a byte at a time, an error that echoes the key), a router's
// generic 404 for unrouted requests, a move between revisions that keeps old
// jobs readable or not (Config.SeparateRevisions), links with a parameter
// added (SetLinkExtra), rate limits (SetLimits: a token bucket or a sliding
// one-second window, Retry-After in each form), read-only keys, a
// controllable clock and a log of the requests received (RequestLog).
package mockapi
