package provider

import (
	"crypto/md5"
	"crypto/sha256"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	tfjson "github.com/hashicorp/terraform-json"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/objectstore"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/site"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/storetest"
)

const bucketAddress = "docsadmin_static_site_bucket.site"

// storeBlock is the resource's block for the server's store.
func storeBlock(srv *storetest.Server, bucket string) string {
	t := srv.Target
	switch t.Kind {
	case objectstore.KindS3:
		return fmt.Sprintf("  s3 = {\n    bucket = %q\n    region = %q\n    endpoint = %q\n    use_path_style = true\n  }", bucket, t.Region, t.Endpoint)
	case objectstore.KindGCS:
		return fmt.Sprintf("  gcs = {\n    bucket = %q\n  }", bucket)
	}
	return fmt.Sprintf("  azure = {\n    container = %q\n  }", bucket)
}

// bucketConfig is an export of docs.example.com, re-exported for each
// commit, and its site published into the server's bucket under prefix.
func bucketConfig(mock *mockapi.Server, srv *storetest.Server, commit, prefix, extra string) string {
	return acctest.ExportConfig(mock, fmt.Sprintf("  domain = \"docs.example.com\"\n  triggers = { docs_commit = %q }", commit)) + fmt.Sprintf(`
resource "docsadmin_static_site_bucket" "site" {
  job_id          = docsadmin_static_export.site.job_id
  expected_sha256 = docsadmin_static_export.site.archive_sha256
  prefix          = %q
%s
%s
}
`, prefix, storeBlock(srv, srv.Target.Bucket), extra)
}

// bucketObjects reads every object of the server's bucket.
func bucketObjects(t *testing.T, srv *storetest.Server) map[string][]byte {
	t.Helper()
	b, err := objectstore.Open(t.Context(), srv.Target)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	out := map[string][]byte{}
	it := b.List(nil)
	for {
		obj, err := it.Next(t.Context())
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := b.ReadAll(t.Context(), obj.Key)
		if err != nil {
			t.Fatal(err)
		}
		out[obj.Key] = body
	}
}

func putObject(t *testing.T, srv *storetest.Server, key, body string) {
	t.Helper()
	b, err := objectstore.Open(t.Context(), srv.Target)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.WriteAll(t.Context(), key, []byte(body), nil); err != nil {
		t.Fatal(err)
	}
}

func deleteObject(t *testing.T, srv *storetest.Server, key string) {
	t.Helper()
	b, err := objectstore.Open(t.Context(), srv.Target)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Delete(t.Context(), key); err != nil {
		t.Fatal(err)
	}
}

// bucketHoldsArchive checks that the bucket holds, under prefix, exactly
// the files of the archive the mock serves for the job in state, each with
// the manifest's content type and cache policy, besides the record and
// what others put there.
func bucketHoldsArchive(t *testing.T, mock *mockapi.Server, srv *storetest.Server, prefix string, others map[string]string, aliases bool) stateCheck {
	return func(s *tfjson.State) error {
		values, err := valuesOf(s, bucketAddress)
		if err != nil {
			return err
		}
		served, err := acctest.ServedArchive(mock, text(values["job_id"]))
		if err != nil {
			return err
		}
		files, err := archiveFiles(served)
		if err != nil {
			return err
		}
		want := map[string]string{}
		m := site.NewManifest()
		for name, body := range files {
			want[prefix+"/"+name] = string(body)
			if err := m.Add(name, int64(len(body)), sha256.Sum256(body), md5.Sum(body)); err != nil {
				return err
			}
		}
		if aliases {
			// Every page under its extensionless URL too.
			for route, page := range m.Routes() {
				if _, isFile := files[route]; route != "" && !isFile {
					want[prefix+"/"+route] = string(files[page])
				}
			}
		}
		maps.Copy(want, others)
		got := bucketObjects(t, srv)
		delete(got, prefix+"/"+objectstore.RecordKey)
		for key, body := range want {
			if string(got[key]) != body {
				return fmt.Errorf("%s holds %q, want %q", key, got[key], body)
			}
		}
		for key := range got {
			if _, ok := want[key]; !ok {
				return fmt.Errorf("the bucket holds %s, which is neither the site's nor someone else's", key)
			}
		}
		if n := values["file_count"]; fmt.Sprint(n) != fmt.Sprint(len(files)) {
			return fmt.Errorf("file_count = %v, want %d", n, len(files))
		}
		b, err := objectstore.Open(t.Context(), srv.Target)
		if err != nil {
			return err
		}
		defer b.Close()
		for _, name := range []string{"index.html", "sitemap.xml"} {
			attrs, err := b.Attributes(t.Context(), prefix+"/"+name)
			if err != nil {
				return err
			}
			if attrs.ContentType != site.ContentType(name) || attrs.CacheControl != site.CacheControl(name) {
				return fmt.Errorf("%s: Content-Type %q, Cache-Control %q; want %q, %q", name, attrs.ContentType, attrs.CacheControl,
					site.ContentType(name), site.CacheControl(name))
			}
		}
		return nil
	}
}

// TestStaticSiteBucket_lifecycle publishes an export's site into each
// real store (versitygw, fake-gcs-server, Azurite) beside a user's object
// and a sibling site: a first publication, drift by hand restored, a new
// export written in place, and a destroy that leaves what others wrote.
// The stores' settings are in the environment, so the test is not
// parallel; its three stores are, to each other.
func TestStaticSiteBucket_lifecycle(t *testing.T) {
	servers := storetest.All(t)
	storetest.Setenv(t, servers...)
	for _, srv := range servers {
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			mock := acctest.NewMock(t, mockapi.Config{StablePages: true})
			others := map[string]string{"docs/notes/mine.txt": "a user's object", "docs-v2/index.html": "a sibling site"}
			for key, body := range others {
				putObject(t, srv, key, body)
			}
			intact := plancheck.ExpectKnownValue(bucketAddress, tfjsonpath.New("objects_intact"), knownvalue.Bool(true))
			// Cloud Storage and Azure websites get pages under their
			// extensionless URLs by default.
			byDefault := srv.Target.Kind != objectstore.KindS3
			test := resource.TestCase{
				IsUnitTest:               true,
				ProtoV6ProviderFactories: testFactories(Options{}),
				CheckDestroy: func(*terraform.State) error {
					got := bucketObjects(t, srv)
					if len(got) != len(others) {
						return fmt.Errorf("destroy left %v, want only %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(others)))
					}
					for key, body := range others {
						if string(got[key]) != body {
							return fmt.Errorf("destroy changed %s", key)
						}
					}
					return nil
				},
				Steps: []resource.TestStep{
					{
						Config: bucketConfig(mock, srv, "1", "docs", ""),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply:             []plancheck.PlanCheck{intact, plancheck.ExpectUnknownValue(bucketAddress, tfjsonpath.New("record_sha256"))},
							PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						ConfigStateChecks: []statecheck.StateCheck{bucketHoldsArchive(t, mock, srv, "docs", others, byDefault),
							statecheck.ExpectKnownValue(bucketAddress, tfjsonpath.New("record_sha256"), knownvalue.StringRegexp(hexDigest))},
					},
					{
						// A page deleted and an asset replaced by hand: drift,
						// restored in place from the same export.
						PreConfig: func() {
							deleteObject(t, srv, "docs/guides/getting-started.html")
							putObject(t, srv, "docs/sitemap.xml", "edited by hand")
						},
						Config: bucketConfig(mock, srv, "1", "docs", ""),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{
								plancheck.ExpectResourceAction(bucketAddress, plancheck.ResourceActionUpdate),
								plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionNoop), intact,
							},
							PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						ConfigStateChecks: []statecheck.StateCheck{bucketHoldsArchive(t, mock, srv, "docs", others, byDefault)},
					},
					{
						// A new export, with a page edited: published in place.
						PreConfig: func() { mock.EditPage("docs.example.com", "guides/getting-started") },
						Config:    bucketConfig(mock, srv, "2", "docs", ""),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(bucketAddress, plancheck.ResourceActionUpdate)},
							PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
						ConfigStateChecks: []statecheck.StateCheck{bucketHoldsArchive(t, mock, srv, "docs", others, byDefault)},
					},
				},
			}
			if byDefault {
				// The copies turned off: deleted, from the same archive.
				// (versitygw keeps objects as files, and cannot hold
				// guides beside guides/index.html, so S3 does not turn
				// them on here.)
				test.Steps = append(test.Steps, resource.TestStep{
					Config: bucketConfig(mock, srv, "2", "docs", "  extensionless_pages = false"),
					ConfigPlanChecks: resource.ConfigPlanChecks{
						PreApply: []plancheck.PlanCheck{
							plancheck.ExpectResourceAction(bucketAddress, plancheck.ResourceActionUpdate),
							plancheck.ExpectResourceAction(acctest.ExportAddress, plancheck.ResourceActionNoop),
						},
						PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
					},
					ConfigStateChecks: []statecheck.StateCheck{bucketHoldsArchive(t, mock, srv, "docs", others, false)},
				})
			}
			resource.Test(t, test)
		})
	}
}

// TestStaticSiteBucket_refusals: bad input is refused at plan, naming
// the attribute and what is accepted, and a store that cannot be used is
// refused at plan, naming the store and what to set; a user's object at a
// key the site needs refuses the apply before anything is written.
func TestStaticSiteBucket_refusals(t *testing.T) {
	srv := storetest.S3(t)
	storetest.Setenv(t, srv)
	mock := acctest.NewMock(t, mockapi.Config{})
	withStore := func(block, prefix string) string {
		return strings.Replace(bucketConfig(mock, srv, "1", prefix, ""), storeBlock(srv, srv.Target.Bucket), block, 1)
	}
	steps := []resource.TestStep{
		{Config: bucketConfig(mock, srv, "1", "/docs", ""), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Invalid prefix.*"/docs".*starts with a slash`)},
		{Config: bucketConfig(mock, srv, "1", "a/../b", ""), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Invalid prefix.*segment "\.\."`)},
		{Config: withStore(storeBlock(srv, srv.Target.Bucket)+"\n  gcs = { bucket = \"x\" }", "docs"), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Invalid Attribute Combination.*only one`)},
		{Config: withStore(storeBlock(srv, "s3://docs"), "docs"), PlanOnly: true, ExpectError: regexp.MustCompile(`(?s)Invalid bucket.*"s3://docs": it is not a bucket's name`)},
		{Config: withStore(strings.Replace(storeBlock(srv, srv.Target.Bucket), srv.Target.Endpoint, "ftp://x", 1), "docs"), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Invalid endpoint.*"ftp://x": its scheme is "ftp"; accepted: https or\s+http`)},
		{Config: withStore(strings.Replace(storeBlock(srv, srv.Target.Bucket), srv.Target.Region, "us-east-1", 1), "docs"), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Cannot publish the site into this store.*s3://site-bucket/docs/\s+\(region\s+us-east-1.*another\s+region`)},
		{Config: withStore(strings.Replace(storeBlock(srv, srv.Target.Bucket), srv.Target.Endpoint, "http://127.0.0.1:1", 1), "docs"), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Cannot publish the site into this store.*endpoint\s+http://127.0.0.1:1.*could\s+not\s+be\s+reached`)},
		{Config: withStore(storeBlock(srv, "no-such-bucket"), "docs"), PlanOnly: true,
			ExpectError: regexp.MustCompile(`(?s)Cannot publish the site into this store.*s3://no-such-bucket/docs/.*NoSuchBucket.*bucket\s+does\s+not\s+exist\s+there`)},
		{
			PreConfig:   func() { putObject(t, srv, "docs/index.html", "the user's page") },
			Config:      bucketConfig(mock, srv, "1", "docs", ""),
			ExpectError: regexp.MustCompile(`(?s)did\s+not\s+write\s+at\s+1\s+keys\s+the\s+site\s+needs:\s+"docs/index.html".*nothing\s+was\s+written`),
		},
	}
	resource.Test(t, resource.TestCase{
		IsUnitTest:               true,
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps:                    steps,
		CheckDestroy: func(*terraform.State) error {
			got := bucketObjects(t, srv)
			if len(got) != 1 || string(got["docs/index.html"]) != "the user's page" {
				return fmt.Errorf("the bucket holds %v, want only the user's page", slices.Sorted(maps.Keys(got)))
			}
			return nil
		},
	})
}

// TestStaticSiteBucket_deniedWrite: credentials that may list and read
// but not write (an Azure SAS of read and list) stop the publication at its
// record, before any file is written, with an error that says what the
// credentials lack.
func TestStaticSiteBucket_deniedWrite(t *testing.T) {
	srv := storetest.Azure(t)
	storetest.Setenv(t, srv)
	cred, err := azblob.NewSharedKeyCredential("devstoreaccount1", storetest.AzuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	query, err := sas.BlobSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour), ContainerName: srv.Target.Bucket,
		Permissions: (&sas.ContainerPermissions{Read: true, List: true}).String(),
	}.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;BlobEndpoint=http://"+os.Getenv("AZURE_STORAGE_DOMAIN")+"/devstoreaccount1;SharedAccessSignature="+query.Encode())
	mock := acctest.NewMock(t, mockapi.Config{})
	resource.Test(t, resource.TestCase{
		IsUnitTest:               true,
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: bucketConfig(mock, srv, "1", "docs", ""),
			ExpectError: regexp.MustCompile(`(?s)Cannot\s+publish\s+the\s+static\s+site.*writing\s+the\s+record\s+docs/.docsadmin/site.json.*` +
				`may\s+not\s+do\s+this:\s+grant\s+them\s+list,\s+read,\s+write\s+and\s+delete`),
		}},
		CheckDestroy: func(*terraform.State) error {
			t.Setenv("AZURE_STORAGE_CONNECTION_STRING", storetest.AzuriteConnectionString(os.Getenv("AZURE_STORAGE_DOMAIN")))
			if got := bucketObjects(t, srv); len(got) != 0 {
				return fmt.Errorf("a denied publication left %v", slices.Sorted(maps.Keys(got)))
			}
			return nil
		},
	})
}

func TestStaticSiteBucket_importIsRefusedInItsOwnWords(t *testing.T) {
	r := &bucketSiteResource{} // as before Configure, or when the provider's settings are unknown
	var resp fwresource.ImportStateResponse
	r.ImportState(t.Context(), fwresource.ImportStateRequest{ID: "s3://docs-site/docs"}, &resp)
	if !resp.Diagnostics.HasError() {
		t.Fatal("import accepted")
	}
	d := resp.Diagnostics.Errors()[0]
	if d.Summary() != "docsadmin_static_site_bucket cannot be imported" || strings.Contains(d.Detail(), "docs-site") ||
		!strings.Contains(d.Detail(), "run terraform apply") {
		t.Errorf("the refusal: %s: %s", d.Summary(), d.Detail())
	}
}
