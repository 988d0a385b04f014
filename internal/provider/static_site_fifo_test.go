//go:build unix

// FIFOs are made with syscall.Mkfifo, which Windows has not.

package provider

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// A FIFO in place of a file is reported as changed without being opened,
// and destroy ends.
func TestStaticSite_specialFilesAreNeverOpened(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	dir := filepath.Join(t.TempDir(), "site")
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{Config: siteConfig(mock, dir, "")},
			{
				PreConfig: func() {
					index := filepath.Join(dir, "index.html")
					removeOrFail(t, index)
					if err := syscall.Mkfifo(index, 0o644); err != nil {
						t.Fatal(err)
					}
				},
				Config:             siteConfig(mock, dir, ""),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}
