package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

const (
	s3Link  = "https://docs-bundles.s3.amazonaws.com/se_3f9a2c1b8e7d4a06/bundle.tar.gz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20261122%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261122T080000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=5e1c0ffee5e1c0ffee"
	gcsLink = "https://storage.googleapis.com/docs-bundles/se_1/bundle.tar.gz?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=svc%40example.iam.gserviceaccount.com%2F20261122%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261122T080000Z&X-Goog-Expires=604800&X-Goog-SignedHeaders=host&X-Goog-Signature=a11ce5ec12e7"
)

// runFunction calls a function's Run directly, as Terraform would.
func runFunction(t *testing.T, f function.Function, result attr.Value, args ...attr.Value) *function.RunResponse {
	t.Helper()
	resp := &function.RunResponse{Result: function.NewResultData(result)}
	f.Run(context.Background(), function.RunRequest{Arguments: function.NewArgumentsData(args)}, resp)
	return resp
}

func TestPresignedURLExpiryFunction_run(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, link, want string
	}{
		{"S3", s3Link, "2026-11-22T09:00:00Z"},
		{"GCS", gcsLink, "2026-11-29T08:00:00Z"},
		{"S3 parameters in lower case", "https://b.s3.amazonaws.com/k?x-amz-date=20261122T080000Z&x-amz-expires=90&x-amz-signature=abc", "2026-11-22T08:01:30Z"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := runFunction(t, NewPresignedURLExpiryFunction(), types.StringUnknown(), types.StringValue(tc.link))
			if resp.Error != nil {
				t.Fatalf("unexpected error: %s", resp.Error)
			}
			if got := resp.Result.Value(); !got.Equal(types.StringValue(tc.want)) {
				t.Fatalf("got %s, want %q", got, tc.want)
			}
		})
	}
}

func TestPresignedURLExpiryFunction_runErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, link, want string
	}{
		{"no expiry", "https://docs-bundles.s3.amazonaws.com/se_1/bundle.tar.gz?X-Amz-Signature=topsecretsig", "carries no expiry"},
		{"no query", "https://example.com/bundle.tar.gz", "carries no expiry"},
		{"only a date", "https://b.s3.amazonaws.com/k?X-Amz-Date=20261122T080000Z&X-Amz-Signature=topsecretsig", "only one of X-Amz-Date and X-Amz-Expires"},
		{"bad date", "https://b.s3.amazonaws.com/k?X-Amz-Date=yesterday&X-Amz-Expires=60&X-Amz-Signature=topsecretsig", "not in the form 20060102T150405Z"},
		{"bad lifetime", "https://b.s3.amazonaws.com/k?X-Amz-Date=20261122T080000Z&X-Amz-Expires=soon&X-Amz-Signature=topsecretsig", "is not a number of seconds"},
		{"empty", "", "an empty link"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := runFunction(t, NewPresignedURLExpiryFunction(), types.StringUnknown(), types.StringValue(tc.link))
			if resp.Error == nil {
				t.Fatalf("no error; result %s", resp.Result.Value())
			}
			if resp.Error.FunctionArgument == nil || *resp.Error.FunctionArgument != 0 {
				t.Errorf("error is not attributed to argument 0: %+v", resp.Error)
			}
			if !strings.Contains(resp.Error.Text, tc.want) {
				t.Errorf("error %q does not contain %q", resp.Error.Text, tc.want)
			}
			if strings.Contains(resp.Error.Text, "topsecretsig") {
				t.Errorf("error echoes the link's signature: %q", resp.Error.Text)
			}
		})
	}
}

func TestPresignedURLExpiryFunction(t *testing.T) {
	parallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				// Functions need no provider configuration.
				Config: `
output "expiry" {
  value = provider::docsadmin::presigned_url_expiry("` + s3Link + `")
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("expiry", knownvalue.StringExact("2026-11-22T09:00:00Z")),
				},
			},
			{
				Config: `
output "expiry" {
  value = provider::docsadmin::presigned_url_expiry("https://example.com/bundle.tar.gz?X-Amz-Signature=topsecretsig")
}
`,
				ExpectError: regexp.MustCompile(`(?s)X-Amz-Signature=REDACTED.*carries\s+no\s+expiry`),
			},
		},
	})
}
