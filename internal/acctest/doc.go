// Package acctest holds what the acceptance tests of the provider and of the
// repository (internal/e2e) share: a mock API per test (NewMock),
// configurations that point at it, checks of state, quick waits, table rows
// run in parallel (RunSubtests), a clock tests move forward (ShiftedClock),
// and which engine (Terraform or OpenTofu, and its version) runs the tests.
// Only tests import it, and it must never import the provider, whose own
// tests import it (depguard: acctest-serves-the-provider-tests).
//
// The one gate of a test that runs the CLI itself is RequireCLI: such a test
// runs only under TF_ACC, and CLIRunner calls it, so no test builds the
// provider without it. Main, a package's TestMain, builds the provider once
// for all the package's CLI tests and gives the processes tests start a
// larger GOGC unless one is set, since the testing framework starts
// thousands of short terraform processes.
package acctest
