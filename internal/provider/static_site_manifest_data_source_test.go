package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/config"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// handedOver is a configuration variable read when a step writes its
// configuration, not when the test is defined: the job id a pipeline's
// export stage hands to its upload stage.
type handedOver struct{ value *string }

func (v handedOver) MarshalJSON() ([]byte, error) { return json.Marshal(*v.value) }

// uploadsPlanned is a plan check over the uploads of every file of the
// site: the files named are planned for an update, every other for no
// change, and there is one upload for each of the site's files.
type uploadsPlanned struct{ changed []string }

func (c uploadsPlanned) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var changed, unexpected []string
	uploads := 0
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Type != "terraform_data" || rc.Name != "upload" {
			continue
		}
		uploads++
		key := fmt.Sprint(rc.Index)
		switch {
		case rc.Change.Actions.NoOp():
		case rc.Change.Actions.Update() && slices.Contains(c.changed, key):
			changed = append(changed, key)
		default:
			unexpected = append(unexpected, fmt.Sprintf("%s (%v)", key, rc.Change.Actions))
		}
	}
	if want := sitegen.FileCount(mockapi.DefaultPageCount); uploads != want {
		resp.Error = fmt.Errorf("%d uploads planned, want one for each of the site's %d files", uploads, want)
		return
	}
	slices.Sort(unexpected)
	if len(unexpected) > 0 || len(changed) != len(c.changed) {
		resp.Error = fmt.Errorf("uploads updated: %v; other uploads planned to change: %d %v; want exactly %v updated, every other no-op",
			changed, len(unexpected), unexpected[:min(len(unexpected), 5)], c.changed)
	}
}

// An export in which one page changed re-uploads that page's file alone,
// when the uploads are keyed by the manifest's digests and the export's
// pages depend on their content, not on the export. The export stage hands
// its job id to the upload stage, as the data source's documentation says:
// a new export's files are unknown while planning the export itself.
func TestStaticSiteManifest_anEditedPageReuploadsOneFile(t *testing.T) {
	const edited = "guides/getting-started"
	mock := acctest.NewMock(t, mockapi.Config{StablePages: true})
	var jobID string
	export := func(content string) string {
		return acctest.ExportConfig(mock, fmt.Sprintf("  domain   = \"docs.example.com\"\n  triggers = { content = %q }", content))
	}
	withUploads := func(content string) string {
		return export(content) + `
variable "job_id" {
  type = string
}

data "docsadmin_static_site_manifest" "site" {
  job_id = var.job_id
}

resource "terraform_data" "upload" {
  for_each = data.docsadmin_static_site_manifest.site.files
  input = {
    key    = each.key
    sha256 = each.value.sha256
  }
}
`
	}
	jobIDVar := config.Variables{"job_id": handedOver{&jobID}}
	// A state check rather than a Check: the legacy state Check functions
	// read cannot hold for_each instances.
	captureJobID := []statecheck.StateCheck{stateCheck(func(s *tfjson.State) error {
		values, err := valuesOf(s, acctest.ExportAddress)
		jobID = text(values["job_id"])
		return err
	})}
	uploadAddress := func(file string) string { return fmt.Sprintf("terraform_data.upload[%q]", file) }

	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				// The export stage.
				Config:            export("v1"),
				ConfigStateChecks: captureJobID,
			},
			{
				// The upload stage: every file uploaded once.
				Config:          withUploads("v1"),
				ConfigVariables: jobIDVar,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(uploadAddress("index.html"), plancheck.ResourceActionCreate),
						plancheck.ExpectResourceAction(uploadAddress(edited+".html"), plancheck.ResourceActionCreate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// A page edited, then exported anew; the uploads still read
				// the previous export.
				PreConfig:       func() { mock.EditPage("docs.example.com", edited) },
				Config:          withUploads("v2"),
				ConfigVariables: jobIDVar,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
						uploadsPlanned{},
					},
				},
				ConfigStateChecks: captureJobID,
			},
			{
				// The upload stage of the new export: its one changed file.
				Config:          withUploads("v2"),
				ConfigVariables: jobIDVar,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionNoop),
						plancheck.ExpectResourceAction(uploadAddress(edited+".html"), plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction(uploadAddress(edited+".txt"), plancheck.ResourceActionNoop),
						uploadsPlanned{changed: []string{edited + ".html"}},
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				// Without the uploads again, as the legacy state that the
				// destroy at the end reads cannot hold for_each instances.
				Config: export("v2"),
			},
		},
	})
}

// An export's files never change: after one download, the manifest data
// source plans from its cache with no link and no download, also with a
// read-scoped key; a damaged cache entry is downloaded again.
func TestStaticSiteManifest_unchangedPlansDownloadNothing(t *testing.T) {
	const readOnly = "dak_readonly_0123456789"
	mock := acctest.NewMock(t, mockapi.Config{ReadOnlyAPIKeys: []string{readOnly}})
	cache := t.TempDir()
	traffic := &linkTraffic{mock: mock}
	config := func(key string) string {
		return fmt.Sprintf(`
provider "docsadmin" {
  base_url = %q
  api_key  = %q
}

resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}

data "docsadmin_static_site_manifest" "site" {
  job_id          = docsadmin_static_export.site.job_id
  cache_directory = %q
}
`, mock.URL, key, cache)
	}
	damage := func() {
		entries, err := os.ReadDir(cache)
		if err != nil || len(entries) != 1 {
			t.Fatalf("the cache holds %v (%v), want one entry", entries, err)
		}
		name := filepath.Join(cache, entries[0].Name())
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// One file's size changed: the entry's own digest no longer matches.
		damaged := strings.Replace(string(body), `"s":`, `"s":1`, 1)
		if damaged == string(body) {
			t.Fatal("nothing to damage in the cache entry")
		}
		if err := os.WriteFile(name, []byte(damaged), 0o644); err != nil {
			t.Fatal(err)
		}
		traffic.reset()
	}
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				// The export's verification and the data source's first
				// read download once each.
				PreConfig: traffic.reset,
				Config:    config(mock.APIKey),
				Check:     traffic.expect(2, 2, 0),
			},
			{
				// Every later plan and refresh: no link, no download, and a
				// key that may not generate links is enough.
				Config: config(readOnly),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: traffic.expect(0, 0, 0),
			},
			{
				PreConfig: damage,
				Config:    config(mock.APIKey),
				Check:     traffic.expect(1, 1, 0),
			},
		},
	})
	if got := mock.ExportsStarted("docs.example.com"); got != 1 {
		t.Errorf("%d exports, want 1", got)
	}
}

// The data source refuses the names the resource refuses, directories'
// included: its manifest is the one a publication would record.
// maxFilesLine sets max_files in a block, when not 0.
func maxFilesLine(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("  max_files       = %d\n", n)
}

func TestStaticSiteManifest_refusesDirectoryNames(t *testing.T) {
	for _, c := range []struct {
		name     string
		kind     mockapi.ArchiveKind
		want     string
		maxFiles int
	}{
		{"dot directory", mockapi.ArchiveDotDir, `"\.git".*starts\s+with\s+a\s+dot`, 0},
		{"file and directory collision", mockapi.ArchiveFileDirCollision, `"Manual/x\.html".*directory\s+"Manual"\s+is\s+the\s+same\s+name\s+as\s+the\s+file\s+"manual"`, 0},
		// A data source publishes nothing: it says what it did not do.
		{"more files than max_files", mockapi.ArchiveManyFiles, `more\s+than\s+max_files\s+=\s+8000\s+files;\s+no\s+manifest\s+was\s+read\.\s+Raise`, 8000},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{})
			var jobID string
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{
					{Config: acctest.ExportConfig(mock, `  domain = "docs.example.com"`), Check: captureAttr(acctest.ExportAddress, "job_id", &jobID)},
					{
						PreConfig: func() { mock.SetArchive(jobID, c.kind) },
						Config: acctest.ExportConfig(mock, `  domain = "docs.example.com"`) + fmt.Sprintf(`
data "docsadmin_static_site_manifest" "site" {
  job_id          = docsadmin_static_export.site.job_id
  cache_directory = %q
%s}
`, t.TempDir(), maxFilesLine(c.maxFiles)),
						ExpectError: regexp.MustCompile(`(?s)` + c.want),
					},
				},
			})
		})
	}
}
