package e2e

import (
	"os"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
)

// TestMain shares one build of the provider among the package's CLI tests.
func TestMain(m *testing.M) {
	os.Exit(acctest.Main(m))
}
