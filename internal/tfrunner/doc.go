// Package tfrunner builds this provider, installs it for Terraform (or
// OpenTofu) through a CLI configuration of its own, and runs the CLI with
// terraform-exec in an environment that nothing inherited can steer: one
// rule for which variables are dropped. The demo, the benchmarks and the
// tests that run the real CLI share it; it must never fetch the provider
// from a registry.
//
// The provider is installed through dev_overrides (a fresh build) or from a
// filesystem mirror, as a user installs a release: a goreleaser snapshot
// (SnapshotMirror), a quick Go build packed in the same layout
// (BuildMirror, MirrorArchivePath), or a build of an earlier revision
// (RevisionMirror, cached by commit). Init first writes a lock file with
// the release's checksums, so that init verifies the archive. What
// terraform-exec has no option for goes through Runner.Command with the
// same environment.
//
// Cancelling the context of a command sends Terraform a single interrupt
// (SIGINT), as one Ctrl-C would: it stops gracefully and saves its state.
package tfrunner
