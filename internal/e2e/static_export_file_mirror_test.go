package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// The mirror proof: the archive written by docsadmin_static_export_file,
// served by a plain static HTTP server standing in for a bucket or an
// in-cluster web server, is what the chart rendered by the real helm fetches,
// byte for byte, with no presigned link involved.
// Not parallel: it runs helm, built on first use (go build).
func TestStaticExportFile_mirrorServesWhatTheChartFetches(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches the chart through helm end to end: slow; runs in make test")
	}
	helm := helmBinary(t)
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := t.TempDir()
	filename := filepath.Join(dir, "docs-bundle.tar.gz")
	mirror := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(mirror.Close)
	durableURL := mirror.URL + "/docs-bundle.tar.gz"

	config := acctest.FileConfig(mock, filename, "") + fmt.Sprintf(`
output "values" {
  # The mirror's URL is durable: it does not expire, so nothing renews it.
  value = yamlencode(provider::docsadmin::helm_values(%q, "v2"))
}
`, durableURL)

	check := func(s *terraform.State) error {
		r, err := helmTemplate(t, helm, s, durableURL)
		if err != nil {
			return err
		}
		rendered, err := r.secretBundleURL()
		if err != nil {
			return err
		}
		if rendered != durableURL {
			return fmt.Errorf("the Deployment fetches %q, want the mirror's %q", rendered, durableURL)
		}
		fetched, err := acctest.HTTPGet(rendered)
		if err != nil {
			return fmt.Errorf("a pod's fetch of the rendered URL: %w", err)
		}
		attrs := s.RootModule().Resources[acctest.FileAddress].Primary.Attributes
		served, err := acctest.ServedArchive(mock, attrs["job_id"])
		if err != nil {
			return err
		}
		if got, want := acctest.SHA256Hex(fetched), acctest.SHA256Hex(served); got != want || attrs["sha256"] != want {
			return fmt.Errorf("the mirror serves SHA-256 %s, the export's link %s, state records %s", got, want, attrs["sha256"])
		}
		return nil
	}

	resource.UnitTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: factories(nil),
		Steps: []resource.TestStep{{
			Config: config,
			Check:  check,
		}},
	})
}
