package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"
)

const archiveDigest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

func TestPodAnnotationsFunction_run(t *testing.T) {
	t.Parallel()
	resp := runFunction(t, NewPodAnnotationsFunction(), types.MapUnknown(types.StringType), types.StringValue(archiveDigest))
	if resp.Error != nil {
		t.Fatalf("unexpected error: %s", resp.Error)
	}
	want, diags := types.MapValue(types.StringType, map[string]attr.Value{
		"docsadmin.io/archive-sha256": types.StringValue(archiveDigest),
	})
	if diags.HasError() {
		t.Fatalf("building the expected map: %v", diags)
	}
	if got := resp.Result.Value(); !got.Equal(want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestPodAnnotationsFunction_runErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, digest, want string
	}{
		{"empty", "", "archive_sha256: The value is empty"},
		{"too short", archiveDigest[:63], "it has 63 hexadecimal digits, not 64"},
		{"too long", archiveDigest + "0", "it has 65 hexadecimal digits, not 64"},
		{"not hexadecimal", "z" + archiveDigest[1:], "it is not all hexadecimal digits"},
		{"surrounding space", " " + archiveDigest[1:], "it is not all hexadecimal digits"},
		{"a link instead of a digest", s3Link, "a value of"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := runFunction(t, NewPodAnnotationsFunction(), types.MapUnknown(types.StringType), types.StringValue(tc.digest))
			assertArgumentError(t, resp, 0, tc.want)
			if strings.Contains(resp.Error.Text, "X-Amz-Signature") {
				t.Errorf("error %q shows a link's signature", resp.Error.Text)
			}
			if !strings.Contains(resp.Error.Text, "Accepted: 64 hexadecimal digits") {
				t.Errorf("error %q does not say what is accepted", resp.Error.Text)
			}
			if strings.HasSuffix(resp.Error.Text, ".") {
				t.Errorf("error %q ends in a period, to which Terraform adds its own", resp.Error.Text)
			}
			if len(resp.Error.Text) > 400 {
				t.Errorf("error is %d characters long; a long argument must be cut: %q", len(resp.Error.Text), resp.Error.Text)
			}
		})
	}
}

func TestPodAnnotationsFunction_runNull(t *testing.T) {
	t.Parallel()
	resp := runFunction(t, NewPodAnnotationsFunction(), types.MapUnknown(types.StringType), types.StringNull())
	assertArgumentError(t, resp, 0, "verify_archive")
}

func TestPodAnnotationsFunction(t *testing.T) {
	parallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_8_0)},
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			{
				Config: `
output "annotations" {
  value = provider::docsadmin::pod_annotations("` + archiveDigest + `")
}

# What the chart receives in values.
output "values_yaml" {
  value = yamlencode({ podAnnotations = provider::docsadmin::pod_annotations("` + archiveDigest + `") })
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("annotations", knownvalue.MapExact(map[string]knownvalue.Check{
						"docsadmin.io/archive-sha256": knownvalue.StringExact(archiveDigest),
					})),
					statecheck.ExpectKnownOutputValue("values_yaml", knownvalue.StringExact(
						"\"podAnnotations\":\n  \"docsadmin.io/archive-sha256\": \""+archiveDigest+"\"\n")),
				},
			},
			{
				// Written in upper case, the same digest: the same annotation, so
				// no pod rolls.
				Config: `
output "annotations" {
  value = provider::docsadmin::pod_annotations(upper("` + archiveDigest + `"))
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("annotations", knownvalue.MapExact(map[string]knownvalue.Check{
						"docsadmin.io/archive-sha256": knownvalue.StringExact(archiveDigest),
					})),
				},
			},
		},
	})
}
