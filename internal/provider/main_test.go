package provider

import (
	"flag"
	"os"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
)

// defaultParallel is how many of the package's parallel tests run at once
// when go test is given no -parallel: they wait on Terraform and the mock
// more than they compute, so one per core (go test's default) leaves a
// small machine idle. CONTRIBUTING.md says how to time them; make test
// passes -parallel itself (TEST_PARALLEL).
const defaultParallel = "6"

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", defaultParallel); err != nil {
			panic(err)
		}
	}
	os.Exit(acctest.Main(m))
}
