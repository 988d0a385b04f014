package provider

import (
	"fmt"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// testFactories serves the provider in-process, with the echo provider for
// ephemeral values. opts may override the clock or policies; waits and
// retries are quick unless they do.
func testFactories(opts Options) map[string]func() (tfprotov6.ProviderServer, error) {
	if opts.PollPolicy.MinInterval == 0 {
		opts.PollPolicy = acctest.QuickPolls
	}
	if opts.RetryBackoff.Base == 0 {
		opts.RetryBackoff = acctest.QuickRetries
	}
	if opts.Getenv == nil {
		opts.Getenv = environment(nil) // never the machine's DOCSADMIN_ settings
	}
	return acctest.Factories(providerserver.NewProtocol6WithError(NewWithOptions("test", opts)()))
}

// captureAttr stores an attribute of a resource in state into *dst.
func captureAttr(resourceName, attribute string, dst *string) func(*terraform.State) error {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[resourceName]
		if !ok {
			return fmt.Errorf("%s not in state", resourceName)
		}
		value, ok := rs.Primary.Attributes[attribute]
		if !ok {
			return fmt.Errorf("%s has no attribute %s", resourceName, attribute)
		}
		*dst = value
		return nil
	}
}

// parallelTest is resource.ParallelTest for a test that owns all it
// touches (its own mock from acctest.NewMock, its own temporary directories) and
// changes nothing process-wide: no environment variable, working directory,
// global variable or fixed port, and no measure of time. Like
// resource.UnitTest it runs without TF_ACC, since the provider is served
// in-process against the mock. go test's -parallel bounds how many run at
// once; make test raises it for this package (see GNUmakefile).
func parallelTest(t *testing.T, c resource.TestCase) {
	t.Helper()
	c.IsUnitTest = true
	resource.ParallelTest(t, c)
}

// cliRequiredProviders opens the main.tf of a test that runs a terraform
// CLI of its own: the provider at the address the runner installs it under.
const cliRequiredProviders = `terraform {
  required_providers {
    docsadmin = { source = "docsadmin/docsadmin" }
  }
}
`

// environment is a Getenv that holds vars and nothing else: a test's own
// DOCSADMIN_ settings, which tests that run in parallel cannot set in the
// process's environment.
func environment(vars map[string]string) func(string) string {
	return func(key string) string { return vars[key] }
}
