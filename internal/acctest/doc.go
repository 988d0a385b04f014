// Package acctest holds what the acceptance tests of the provider and of the
// repository (internal/e2e) share: a mock API per test, configurations that
// point at it, checks of state, quick waits, a clock tests move forward, and
// which engine (Terraform or OpenTofu, and its version) runs the tests. Only
// tests import it.
package acctest
