package e2e

import (
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/provider"
)

// factories serves the provider in-process with quick waits and retries,
// on c when it is not nil.
func factories(c clock.Clock) map[string]func() (tfprotov6.ProviderServer, error) {
	opts := provider.Options{Clock: c, PollPolicy: acctest.QuickPolls, RetryBackoff: acctest.QuickRetries}
	return acctest.Factories(providerserver.NewProtocol6WithError(provider.NewWithOptions("test", opts)()))
}
