package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// Archives that would make verification work without end are refused by
// what they are, not by the create timeout: a sparse file of 2^62 bytes, and
// a file of zeros beyond max_unpacked_bytes.
func TestStaticExport_boundlessArchivesAreRefusedBeforeTheTimeout(t *testing.T) {
	t.Parallel()
	rows := []struct {
		name          string
		kind          mockapi.ArchiveKind
		providerExtra string
		want          string
	}{
		{"sparse file of 2^62 bytes", mockapi.ArchiveSparse, "", `(?s)failed verification.*sparse file`},
		{"zeros beyond max_unpacked_bytes", mockapi.ArchiveBomb, "max_unpacked_bytes = 1048576",
			`(?s)failed verification.*` + wrapped(`would unpack to more than 1048576 bytes.`) + `.*` + wrapped(`The cap is the provider's max_unpacked_bytes (now 1048576 bytes): raise it if the site really is that large`)},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{})
			mock.SetExportBehavior("docs.example.com", mockapi.ExportBehavior{Archive: row.kind})
			config := acctest.BlockConfig(mock, row.providerExtra, `resource "docsadmin_static_export" "site"`, `
  domain = "docs.example.com"
  timeouts { create = "60s" }`)
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps:                    []resource.TestStep{{Config: config, ExpectError: regexp.MustCompile(row.want)}},
			})
		})
	}
}

// A link host that sends nothing fails the download after
// download_idle_timeout, on create and on import, naming the host only.
func TestStaticExport_stalledLinkHostFailsWithinTheIdleTimeout(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	config := acctest.BlockConfig(mock, `download_idle_timeout = "1s"`, `resource "docsadmin_static_export" "site"`, `
  domain = "docs.example.com"
  timeouts { create = "10m" }`)
	stall := func() { mock.InjectFault(mockapi.EndpointDownload, mockapi.Fault{Delay: 10 * time.Minute}) }
	idle := regexp.MustCompile(`download\s+from\s+127\.0\.0\.1:\d+:\s+no\s+data\s+received\s+for\s+1s`)
	var jobID string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{PreConfig: stall, Config: config, ExpectError: idle},
			{
				// The job was kept; the next apply verifies it.
				PreConfig: mock.ClearFaults,
				Config:    config,
				Check:     captureAttr(acctest.ExportAddress, "job_id", &jobID),
			},
			{
				PreConfig:         stall,
				ResourceName:      acctest.ExportAddress,
				ImportState:       true,
				ImportStateIdFunc: func(*terraform.State) (string, error) { return "docs.example.com/" + jobID, nil },
				ExpectError:       regexp.MustCompile(`(?s)no\s+data\s+received\s+for\s+1s.*Nothing\s+was\s+imported`),
			},
		},
	})
}

// A redirect of the download reaches its target without a Referer: the
// presigned link, signature included, would be handed to the next server.
func TestStaticExport_downloadRedirectCarriesNoReferer(t *testing.T) {
	var mu sync.Mutex
	var referers []string
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		referers = append(referers, r.Header.Get("Referer"))
		mu.Unlock()
		_ = sitegen.Archive{Size: 64 << 10, Seed: 1}.Write(w)
	}))
	t.Cleanup(target.Close)
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.InjectFault(mockapi.EndpointDownload, mockapi.Fault{Status: http.StatusFound, Header: map[string]string{"Location": target.URL + "/moved/bundle.tar.gz"}})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`),
			Check: func(*terraform.State) error {
				mu.Lock()
				defer mu.Unlock()
				if len(referers) != 1 {
					return fmt.Errorf("the redirect's target was asked %d times, want once", len(referers))
				}
				if referers[0] != "" {
					return fmt.Errorf("the redirected download sent Referer %q", strings.SplitN(referers[0], "?", 2)[0]+"?…")
				}
				return nil
			},
		}},
	})
}
