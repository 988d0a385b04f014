package provider

import (
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// TestStaticExport_unusableBundleLinkRefused: a bundle link that is not
// http(s), or that carries a user and password, is neither stored nor
// fetched, and the error names why without quoting it.
func TestStaticExport_unusableBundleLinkRefused(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ link, why string }{
		"javascript": {"javascript:alert(document.cookie)", `its scheme is "javascript"`},
		"userinfo":   {"https://deploy:s3cr3tpassw0rd@exports.s3.amazonaws.com/site/bundle.tar.gz", "carries a user name or password"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{})
			mock.InjectFault(mockapi.EndpointBundle, mockapi.Fault{Status: 200, AfterHandling: true, Body: `{"bundleUrl":"` + c.link + `"}`})
			config := acctest.ProviderConfig(mock, "") + `
resource "docsadmin_static_export" "site" {
  domain         = "docs.example.com"
  verify_archive = false
}
`
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{{
					Config: config,
					ExpectError: regexp.MustCompile(`(?s)bundleUrl\s+that\s+cannot\s+be\s+used\s+as\s+bundle_url:.*?` +
						strings.Join(strings.Fields(regexp.QuoteMeta(c.why)), `\s+`)),
				}},
			})
		})
	}
}
