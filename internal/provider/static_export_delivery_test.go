package provider

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/sitegen"
)

// An explicit renew_before is honoured as written, even when it is more
// than half the link's lifetime.
func TestStaticExport_explicitRenewBeforeIsHonoured(t *testing.T) {
	clock := &acctest.ShiftedClock{}
	// Minutes rather than seconds, so that a slow machine's seconds between
	// the steps never make a link due that should not be.
	mock := acctest.NewMock(t, mockapi.Config{LinkTTL: 400 * time.Second, Now: clock.Now})
	config := acctest.ExportConfig(mock, `
  domain       = "docs.example.com"
  renew_before = "350s"`)
	var jobID string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{Clock: clock}),
		Steps: []resource.TestStep{
			{Config: config, Check: captureAttr(acctest.ExportAddress, "job_id", &jobID)},
			{
				// 70 s after the link was issued, 330 s remain: inside 350 s.
				PreConfig: func() { clock.Advance(70 * time.Second) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url")),
					},
				},
				Check: func(*terraform.State) error {
					if err := acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") })(nil); err != nil {
						return err
					}
					return acctest.ExpectCount("links generated", 2, func() int { return mock.BundlesGenerated(jobID) })(nil)
				},
			},
		},
	})
}

// Without renew_before, the default window is capped at half a short
// link's lifetime, so such links do not renew on every plan.
func TestStaticExport_defaultRenewalWindowIsCappedForShortLinks(t *testing.T) {
	clock := &acctest.ShiftedClock{}
	mock := acctest.NewMock(t, mockapi.Config{LinkTTL: 400 * time.Second, Now: clock.Now})
	config := acctest.ExportConfig(mock, `domain = "docs.example.com"`)
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{Clock: clock}),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig:        func() { clock.Advance(70 * time.Second) }, // 330 s left: outside half of 400 s
				Config:           config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{
				PreConfig: func() { clock.Advance(150 * time.Second) }, // 180 s left: inside half of 400 s
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate)},
				},
			},
		},
	})
}

// A change of renew_triggers renews the link now, in place, for the same
// export; the content's identity stays and the archive is not downloaded
// again. A renewal is proven by a second link request and a later expiry:
// two links presigned within the same second are identical, as with real
// SigV4 presigning, so the clock moves between the steps.
func TestStaticExport_renewTriggersRenewInPlace(t *testing.T) {
	clock := &acctest.ShiftedClock{}
	mock := acctest.NewMock(t, mockapi.Config{Now: clock.Now})
	config := func(rotation string) string {
		return acctest.ExportConfig(mock, fmt.Sprintf(`
  domain         = "docs.example.com"
  renew_triggers = { rotation = %q }`, rotation))
	}
	var jobID, sha, md5Before, firstExpiry string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{Clock: clock}),
		Steps: []resource.TestStep{
			{
				Config: config("1"),
				Check: resource.ComposeTestCheckFunc(
					captureAttr(acctest.ExportAddress, "job_id", &jobID),
					captureAttr(acctest.ExportAddress, "archive_sha256", &sha),
					captureAttr(acctest.ExportAddress, "archive_md5", &md5Before),
					captureAttr(acctest.ExportAddress, "bundle_expires_at", &firstExpiry),
				),
			},
			{
				PreConfig: func() { clock.Advance(time.Minute) },
				Config:    config("2"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(acctest.ExportAddress, tfjsonpath.New("bundle_url")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(s *terraform.State) error {
					attrs := s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes
					switch {
					case attrs["job_id"] != jobID:
						return fmt.Errorf("renewal changed the job from %s to %s", jobID, attrs["job_id"])
					case attrs["archive_sha256"] != sha:
						return fmt.Errorf("renewal changed archive_sha256 from %s to %s", sha, attrs["archive_sha256"])
					case attrs["archive_md5"] != md5Before:
						return fmt.Errorf("renewal changed archive_md5 from %s to %s", md5Before, attrs["archive_md5"])
					case attrs["bundle_expires_at"] <= firstExpiry:
						return fmt.Errorf("the renewed link expires at %s, not after the first link's %s", attrs["bundle_expires_at"], firstExpiry)
					}
					if err := acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") })(nil); err != nil {
						return err
					}
					if err := acctest.ExpectCount("links generated", 2, func() int { return mock.BundlesGenerated(jobID) })(nil); err != nil {
						return err
					}
					return acctest.ExpectCount("archive downloads", 1, func() int { return mock.Requests(mockapi.EndpointDownload) })(nil)
				},
			},
		},
	})
}

// A completed export's archive is downloaded once and its identity recorded:
// the SHA-256, size and file count of exactly what the link serves.
func TestStaticExport_recordsVerifiedArchiveIdentity(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("verify_archive"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_file_count"), knownvalue.Int64Exact(int64(sitegen.FileCount(mockapi.DefaultPageCount)))),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: func(s *terraform.State) error {
					attrs := s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes
					served, err := acctest.HTTPGet(attrs["bundle_url"])
					if err != nil {
						return err
					}
					if sum := acctest.SHA256Hex(served); attrs["archive_sha256"] != sum {
						return fmt.Errorf("archive_sha256 = %s, the link serves %s", attrs["archive_sha256"], sum)
					}
					if attrs["archive_size_bytes"] != fmt.Sprint(len(served)) {
						return fmt.Errorf("archive_size_bytes = %s, the link serves %d bytes", attrs["archive_size_bytes"], len(served))
					}
					digest := md5.Sum(served)
					if attrs["archive_md5"] != hex.EncodeToString(digest[:]) || attrs["archive_md5_base64"] != base64.StdEncoding.EncodeToString(digest[:]) {
						return fmt.Errorf("archive_md5 = %s and archive_md5_base64 = %s, the link serves %x", attrs["archive_md5"], attrs["archive_md5_base64"], digest)
					}
					// One download by the provider, one by this check.
					return acctest.ExpectCount("archive downloads", 2, func() int { return mock.Requests(mockapi.EndpointDownload) })(nil)
				},
			},
		},
	})
}

// verify_archive = false downloads nothing and leaves the identity null.
func TestStaticExport_verificationCanBeTurnedOff(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: acctest.ExportConfig(mock, `
  domain         = "docs.example.com"
  verify_archive = false`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_sha256"), knownvalue.Null()),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_size_bytes"), knownvalue.Null()),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_file_count"), knownvalue.Null()),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_md5"), knownvalue.Null()),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_md5_base64"), knownvalue.Null()),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: acctest.ExpectCount("archive downloads", 0, func() int { return mock.Requests(mockapi.EndpointDownload) }),
			},
			{
				// Turning it on verifies the existing export in place.
				Config: acctest.ExportConfig(mock, `domain = "docs.example.com"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(acctest.ExportAddress, tfjsonpath.New("archive_sha256")),
						plancheck.ExpectUnknownValue(acctest.ExportAddress, tfjsonpath.New("archive_md5")),
						plancheck.ExpectUnknownValue(acctest.ExportAddress, tfjsonpath.New("archive_md5_base64")),
					},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_sha256"), knownvalue.StringRegexp(hexDigest)),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_md5"), knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{32}$`))),
					statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_md5_base64"), knownvalue.StringRegexp(regexp.MustCompile(`^[A-Za-z0-9+/]{22}==$`))),
				},
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
					acctest.ExpectCount("archive downloads", 1, func() int { return mock.Requests(mockapi.EndpointDownload) }),
				),
			},
		},
	})
}

func TestWarnIfEveryPlanRenews(t *testing.T) {
	t.Parallel()
	cases := []struct {
		renewBefore types.String
		lifetime    time.Duration
		warn        bool
	}{
		{types.StringValue("35s"), 40 * time.Second, false},
		{types.StringValue("40s"), 40 * time.Second, true},
		{types.StringValue("2h"), time.Hour, true},
		{types.StringNull(), 10 * time.Second, false}, // the default is capped, never outlasts
		{types.StringValue("2h"), 0, false},           // lifetime unknown
	}
	for _, c := range cases {
		var diags diag.Diagnostics
		warnIfEveryPlanRenews(staticExportModel{RenewBefore: c.renewBefore}, c.lifetime, &diags)
		if got := diags.WarningsCount() > 0; got != c.warn {
			t.Errorf("renew_before %s, lifetime %s: warned %v, want %v (%v)", c.renewBefore, c.lifetime, got, c.warn, diags)
		}
		if c.warn && !strings.Contains(diags[0].Detail(), c.renewBefore.ValueString()) {
			t.Errorf("warning does not name the value: %s", diags[0].Detail())
		}
	}
}

// Each kind of archive a deployment could not serve fails the apply with an
// error that names the job, the link's host and what is wrong, never the
// link's signature. The job stays in state, and once the server serves a
// good archive the next apply finishes with the same export.
func TestStaticExport_refusesUnservableArchives(t *testing.T) {
	t.Parallel()
	type archiveCase = struct {
		name string
		kind mockapi.ArchiveKind
		want string // in the error, besides the job and the host
	}
	cases := []archiveCase{
		{"truncated", mockapi.ArchiveTruncated, `(?i)truncated|cut off|unexpected end|damaged`},
		{"corrupt", mockapi.ArchiveCorrupt, `(?i)corrupt|damaged`},
		{"html page", mockapi.ArchiveHTML, `(?i)not a gzip|HTML`},
		{"zip", mockapi.ArchiveZip, `(?i)zip`},
		{"no index", mockapi.ArchiveNoIndex, `index\.html`},
		{"absolute path", mockapi.ArchiveAbsolutePath, `/etc/docsadmin/index\.html`},
		{"dot dot", mockapi.ArchiveDotDot, `\.\./\.\./outside\.html`},
		{"symlink out", mockapi.ArchiveSymlinkOut, `assets/shared`},
	}
	acctest.RunSubtests(t, cases, func(c archiveCase) string { return c.name }, func(t *testing.T, c archiveCase) {
		mock := acctest.NewMock(t, mockapi.Config{ExportDuration: 200 * time.Millisecond})
		mock.SetExportBehavior("docs.example.com", mockapi.ExportBehavior{Archive: c.kind})
		host := strings.TrimPrefix(mock.URL, "http://")
		config := acctest.ExportConfig(mock, `domain = "docs.example.com"`)
		var jobID string
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: testFactories(Options{}),
			Steps: []resource.TestStep{
				{
					Config: config,
					ExpectError: regexp.MustCompile(`(?s)failed verification.*export job se_[0-9a-f]+.*` + regexp.QuoteMeta(host) +
						`.*(` + c.want + `).*is\s+kept`),
				},
				{
					// The failed apply kept the job: serve a good archive now,
					// and the replacement takes the same job over.
					PreConfig: func() {
						ids := mock.ExportJobIDs("docs.example.com")
						if len(ids) != 1 {
							t.Fatalf("export jobs: %v, want one", ids)
						}
						jobID = ids[0]
						mock.SetArchive(jobID, mockapi.ArchiveGood)
					},
					Config: config,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("archive_sha256"), knownvalue.StringRegexp(hexDigest)),
					},
					Check: resource.ComposeTestCheckFunc(
						func(s *terraform.State) error {
							if got := s.RootModule().Resources[acctest.ExportAddress].Primary.Attributes["job_id"]; got != jobID {
								return fmt.Errorf("job_id = %s, want the kept job %s", got, jobID)
							}
							return nil
						},
						acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
					),
				},
			},
		})
	})
}

// A link renewal keeps the verified identity and downloads nothing, even
// when the archive the server serves has changed since.
func TestStaticExport_renewalDoesNotDownloadAgain(t *testing.T) {
	clock := &acctest.ShiftedClock{}
	mock := acctest.NewMock(t, mockapi.Config{LinkTTL: 2 * time.Hour, Now: clock.Now})
	config := acctest.ExportConfig(mock, `domain = "docs.example.com"`)
	var jobID, sha string
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{Clock: clock}),
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(
					captureAttr(acctest.ExportAddress, "job_id", &jobID),
					captureAttr(acctest.ExportAddress, "archive_sha256", &sha),
				),
			},
			{
				PreConfig: func() { clock.Advance(90 * time.Minute) },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionUpdate)},
				},
				Check: resource.ComposeTestCheckFunc(
					resource.TestCheckResourceAttrPtr(acctest.ExportAddress, "archive_sha256", &sha),
					func(*terraform.State) error {
						if err := acctest.ExpectCount("links generated", 2, func() int { return mock.BundlesGenerated(jobID) })(nil); err != nil {
							return err
						}
						return acctest.ExpectCount("archive downloads", 1, func() int { return mock.ArchiveDownloads(jobID) })(nil)
					},
				),
			},
		},
	})
}

// A refused archive's error names the job and the host, never the link's
// path or signature.
func TestVerifyArchiveErrorsNeverShowTheLink(t *testing.T) {
	t.Parallel()
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "<html>Access denied</html>")
	}))
	defer server.Close()
	link := server.URL + "/se_1/bundle.tar.gz?X-Amz-Signature=0123456789abcdef&X-Amz-Credential=AKIAEXAMPLE"
	_, err := (&providerData{}).verifyArchive(t.Context(), "se_1", link)
	if err == nil {
		t.Fatal("an HTML page was accepted as an archive")
	}
	msg := err.Error()
	for _, secret := range []string{"0123456789abcdef", "AKIAEXAMPLE", "bundle.tar.gz"} {
		if strings.Contains(msg, secret) {
			t.Errorf("error shows %q: %s", secret, msg)
		}
	}
	for _, want := range []string{"se_1", strings.TrimPrefix(server.URL, "http://"), "HTML"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not name %q: %s", want, msg)
		}
	}
}

// link_revision rises with every new link, a renewal or a new export, even
// when the clock steps back, and stays put otherwise.
func TestStaticExport_linkRevisionRisesWithEveryNewLink(t *testing.T) {
	// The provider's clock only: the API's jobs keep their own time.
	clock := &acctest.ShiftedClock{}
	mock := acctest.NewMock(t, mockapi.Config{})
	config := func(commit, rotation string) string {
		return acctest.ExportConfig(mock, fmt.Sprintf(`
  domain         = "docs.example.com"
  triggers       = { docs_commit = %q }
  renew_triggers = { rotation = %q }`, commit, rotation))
	}
	var revisions []int64
	record := func(v int64) error {
		revisions = append(revisions, v)
		return nil
	}
	rose := func(v int64) error {
		if last := revisions[len(revisions)-1]; v <= last {
			return fmt.Errorf("link_revision %d is not higher than %d", v, last)
		}
		return record(v)
	}
	same := func(v int64) error {
		if last := revisions[len(revisions)-1]; v != last {
			return fmt.Errorf("link_revision went from %d to %d with no new link", last, v)
		}
		return nil
	}
	revision := func(check func(int64) error) []statecheck.StateCheck {
		return []statecheck.StateCheck{statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("link_revision"), knownvalue.Int64Func(check))}
	}
	newLink := func(action plancheck.ResourceActionType) resource.ConfigPlanChecks {
		return resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
			plancheck.ExpectResourceAction(acctest.ExportAddress, action),
			plancheck.ExpectUnknownValue(acctest.ExportAddress, tfjsonpath.New("link_revision")),
		}}
	}
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{Clock: clock}),
		Steps: []resource.TestStep{
			{Config: config("a", "r1"), ConfigStateChecks: revision(record)},
			{Config: config("a", "r1"), ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}, ConfigStateChecks: revision(same)},
			{Config: config("a", "r2"), ConfigPlanChecks: newLink(plancheck.ResourceActionUpdate), ConfigStateChecks: revision(rose)},
			{
				// The provider's clock steps back an hour: the next link's
				// revision still rises.
				PreConfig:         func() { clock.Advance(-time.Hour) },
				Config:            config("a", "r3"),
				ConfigPlanChecks:  newLink(plancheck.ResourceActionUpdate),
				ConfigStateChecks: revision(rose),
			},
			{
				// A new export (in place): its link's revision still rises.
				PreConfig:         func() { clock.Advance(time.Hour + time.Second) },
				Config:            config("b", "r3"),
				ConfigPlanChecks:  newLink(plancheck.ResourceActionUpdate),
				ConfigStateChecks: revision(rose),
			},
		},
	})
}

// A link over plain http to another host than loopback draws a warning that
// names the host only.
func TestPlainHTTPLinkWarning(t *testing.T) {
	t.Parallel()
	for link, warned := range map[string]bool{
		"http://bundles.example.com/se_1/bundle.tar.gz?X-Amz-Signature=secret":  true,
		"HTTP://10.0.0.8:9000/se_1/bundle.tar.gz?X-Amz-Signature=secret":        true,
		"https://bundles.example.com/se_1/bundle.tar.gz?X-Amz-Signature=secret": false,
		"http://127.0.0.1:8080/se_1/bundle.tar.gz?X-Amz-Signature=secret":       false,
		"http://localhost/se_1/bundle.tar.gz":                                   false,
		"http://[::1]:8080/se_1/bundle.tar.gz":                                  false,
	} {
		diags := plainHTTPLinkWarning(link)
		if got := diags.WarningsCount() == 1; got != warned {
			t.Errorf("%s: warned %v, want %v", link, got, warned)
		}
		for _, d := range diags {
			if strings.Contains(d.Detail(), "secret") || strings.Contains(d.Detail(), "se_1") {
				t.Errorf("the warning shows the link's path or query: %s", d.Detail())
			}
		}
	}
}
