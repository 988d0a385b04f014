// Package e2e tests the repository as a user meets it, through the real
// Terraform or OpenTofu CLI: the release installed from a filesystem mirror,
// upgrades from earlier revisions, the examples, the example pipelines run as
// copied, and Helm end to end; and the map a contributor meets first,
// DESIGN.md's table of packages, against the import rules make lint
// enforces. Every test that runs or validates examples/ lives here, since
// what it proves is what users copy; sitetest serves the static-host
// pipeline's web server rules from examples/ where they are. It holds tests only; the tools they run come from make
// tools and make packages.
package e2e
