package provider

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

func TestHelmValuesFunction_run(t *testing.T) {
	t.Parallel()
	staticExport := func(attrs map[string]attr.Value) attr.Value {
		return typesObject(t, map[string]attr.Value{"staticExport": typesObject(t, attrs)})
	}
	cases := []struct {
		name    string
		version types.String
		want    attr.Value
	}{
		{
			name:    "pinned version",
			version: types.StringValue("v2"),
			want: staticExport(map[string]attr.Value{
				"enabled":   types.BoolValue(true),
				"bundleUrl": types.StringValue(s3Link),
				"version":   types.StringValue("v2"),
			}),
		},
		{
			name:    "no version: the key is left out",
			version: types.StringNull(),
			want: staticExport(map[string]attr.Value{
				"enabled":   types.BoolValue(true),
				"bundleUrl": types.StringValue(s3Link),
			}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := runFunction(t, NewHelmValuesFunction(), types.DynamicUnknown(), types.StringValue(s3Link), tc.version)
			if resp.Error != nil {
				t.Fatalf("unexpected error: %s", resp.Error)
			}
			got, ok := resp.Result.Value().(types.Dynamic)
			if !ok {
				t.Fatalf("result is a %T, want a dynamic value", resp.Result.Value())
			}
			if !got.UnderlyingValue().Equal(tc.want) {
				t.Fatalf("got  %s\nwant %s", got.UnderlyingValue(), tc.want)
			}
		})
	}
}

func typesObject(t *testing.T, attrs map[string]attr.Value) attr.Value {
	t.Helper()
	attrTypes := map[string]attr.Type{}
	for k, v := range attrs {
		attrTypes[k] = v.Type(t.Context())
	}
	obj, diags := types.ObjectValue(attrTypes, attrs)
	if diags.HasError() {
		t.Fatalf("building the expected object: %v", diags)
	}
	return obj
}

func TestHelmValuesFunction_runErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		url      string
		version  types.String
		argument int64
		want     string
	}{
		{"empty URL", "", types.StringNull(), 0, "bundle URL is empty"},
		{"relative URL", "bundles/se_1/bundle.tar.gz?X-Amz-Signature=topsecretsig", types.StringNull(), 0, "not an absolute URL"},
		{"other scheme", "s3://docs-bundles/se_1/bundle.tar.gz?X-Amz-Signature=topsecretsig", types.StringNull(), 0, `its scheme is "s3"`},
		{"no host", "https:///se_1/bundle.tar.gz?X-Amz-Signature=topsecretsig", types.StringNull(), 0, "names no host"},
		{"not a URL", "https://docs%zzbundles/se_1?X-Amz-Signature=topsecretsig", types.StringNull(), 0, "not a valid URL"},
		{"a space", "https://docs bundles/se_1?X-Amz-Signature=topsecretsig", types.StringNull(), 0, "outside printable ASCII"},
		{"empty version", s3Link, types.StringValue(""), 1, "version is empty"},
		{"blank version", s3Link, types.StringValue("  "), 1, "version is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := runFunction(t, NewHelmValuesFunction(), types.DynamicUnknown(), types.StringValue(tc.url), tc.version)
			assertArgumentError(t, resp, tc.argument, tc.want)
			if strings.Contains(resp.Error.Text, "topsecretsig") {
				t.Errorf("error echoes the link's signature: %q", resp.Error.Text)
			}
		})
	}
}

// TestHelmValuesFunction_refusesWhatTheAPIsLinkMayNotBe is the attack test
// of the one rule of a presigned link: the function used to accept user
// information, non-ASCII characters and links of any length, which the
// resource refuses from the API (redact.SignedLinkShape). Each is refused,
// without quoting the password, the signature or the link.
func TestHelmValuesFunction_refusesWhatTheAPIsLinkMayNotBe(t *testing.T) {
	t.Parallel()
	const sig = "X-Amz-Signature=topsecretsig"
	for name, tc := range map[string]struct{ url, want string }{
		"user and password": {"https://admin:hunter2pass@bucket.example.com/b.tgz?" + sig, "userinfo"},
		"user alone":        {"https://hunter2pass@bucket.example.com/b.tgz?" + sig, "userinfo"},
		"non-ASCII host":    {"https://bücket.example.com/b.tgz?" + sig, "outside printable ASCII"},
		"bidi control":      {"https://bucket.example.com/b\u202e.tgz?" + sig, "outside printable ASCII"},
		"terminal escape":   {"https://bucket.example.com/b.tgz?x=\x1b]8;;https://evil\x07&" + sig, "outside printable ASCII"},
		"over 16 KiB":       {"https://bucket.example.com/" + strings.Repeat("a", redact.MaxSignedLinkBytes) + "?" + sig, "bytes long"},
		"a megabyte":        {"https://bucket.example.com/" + strings.Repeat("hunter2pass", 100_000), "bytes long"},
	} {
		t.Run(name, func(t *testing.T) {
			resp := runFunction(t, NewHelmValuesFunction(), types.DynamicUnknown(), types.StringValue(tc.url), types.StringNull())
			assertArgumentError(t, resp, 0, tc.want)
			for _, secret := range []string{"hunter2pass", "topsecretsig", "bucket.example.com"} {
				if strings.Contains(resp.Error.Text, secret) {
					t.Errorf("the error quotes %q: %.300s", secret, resp.Error.Text)
				}
			}
			if len(resp.Error.Text) > 1000 {
				t.Errorf("the error is %d bytes long", len(resp.Error.Text))
			}
		})
	}
}

func assertArgumentError(t *testing.T, resp *function.RunResponse, argument int64, want string) {
	t.Helper()
	if resp.Error == nil {
		t.Fatalf("no error; result %s", resp.Result.Value())
	}
	if resp.Error.FunctionArgument == nil || *resp.Error.FunctionArgument != argument {
		t.Errorf("error is not attributed to argument %d: %+v", argument, resp.Error)
	}
	if !strings.Contains(resp.Error.Text, want) {
		t.Errorf("error %q does not contain %q", resp.Error.Text, want)
	}
}

func TestHelmValuesFunction(t *testing.T) {
	const pinnedConfig = `
locals {
  link = "` + s3Link + `"
}

output "pinned" {
  value = provider::docsadmin::helm_values(local.link, "v2")
}

# What a helm_release receives in values.
output "pinned_yaml" {
  value = yamlencode(provider::docsadmin::helm_values(local.link, "v2"))
}
`
	const unpinnedConfig = pinnedConfig + `
output "unpinned" {
  value = provider::docsadmin::helm_values(local.link, null)
}
`
	pinnedChecks := []statecheck.StateCheck{
		statecheck.ExpectKnownOutputValue("pinned", knownvalue.ObjectExact(map[string]knownvalue.Check{
			"staticExport": knownvalue.ObjectExact(map[string]knownvalue.Check{
				"enabled":   knownvalue.Bool(true),
				"bundleUrl": knownvalue.StringExact(s3Link),
				"version":   knownvalue.StringExact("v2"),
			}),
		})),
		statecheck.ExpectKnownOutputValue("pinned_yaml", knownvalue.StringExact(
			"\"staticExport\":\n  \"bundleUrl\": \""+s3Link+"\"\n  \"enabled\": true\n  \"version\": \"v2\"\n")),
	}
	unpinnedCheck := statecheck.ExpectKnownOutputValue("unpinned", knownvalue.ObjectExact(map[string]knownvalue.Check{
		"staticExport": knownvalue.ObjectExact(map[string]knownvalue.Check{
			"enabled":   knownvalue.Bool(true),
			"bundleUrl": knownvalue.StringExact(s3Link),
		}),
	}))

	steps := []resource.TestStep{{
		Config:            unpinnedConfig,
		ConfigStateChecks: append(slices.Clip(pinnedChecks), unpinnedCheck),
	}}
	if acctest.RunningOpenTofu(t) {
		// OpenTofu does not encode a null argument of a provider function:
		// it sends an empty value, which terraform-plugin-framework cannot
		// decode, so the call fails before the function runs. Terraform
		// sends an encoded null. The function's documentation states the
		// limitation; this step fails once OpenTofu sends null, so that the
		// documentation can be updated then.
		steps = []resource.TestStep{
			{
				Config:            pinnedConfig,
				ConfigStateChecks: pinnedChecks,
			},
			{
				Config: unpinnedConfig,
				ExpectError: regexp.MustCompile(`(?s)Invalid\s+value\s+for\s+"version"\s+parameter.*` +
					`Unable\s+to\s+unmarshal\s+DynamicValue\s+at\s+position\s+1:\s+DynamicValue\s+had\s+no\s+JSON\s+or\s+msgpack\s+data\s+set`),
			},
		}
	}
	parallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps:                    steps,
	})
}
