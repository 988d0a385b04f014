package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

var _ function.Function = (*helmValuesFunction)(nil)

// NewHelmValuesFunction is the helm_values provider function.
func NewHelmValuesFunction() function.Function { return &helmValuesFunction{} }

// helmValuesFunction builds the values a self-hosted deployment's Helm chart
// reads, so that configurations do not spell the chart's keys by hand.
type helmValuesFunction struct{}

func (f *helmValuesFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "helm_values"
}

func (f *helmValuesFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Helm chart values that serve a static export bundle",
		MarkdownDescription: "Returns the values a self-hosted deployment's Helm chart reads to serve a static export, shaped exactly like the chart's values:\n\n" +
			"```\n{ staticExport = { enabled = true, bundleUrl = <bundle_url>, version = <version> } }\n```\n\n" +
			"`version` is present only when the `version` argument is not null, so the chart's own default applies otherwise. " +
			"When `bundle_url` is sensitive, Terraform marks the result sensitive too. Pure: no request is made (Terraform 1.8 or later).\n\n" +
			"The result contains the link: write it where secrets belong, such as a values file kept in a Secret. " +
			"Do not pass it in `values` of a `helm_release`: the helm provider echoes `values` in clear into its `metadata.values`. " +
			"There, pass the link through `set_sensitive` or `set_wo` and the other values through `values`, " +
			"with `provider::docsadmin::pod_annotations` so that pods roll on new content only (see the guide \"Deploying with Helm\").\n\n" +
			"OpenTofu (as of 1.12) sends a `null` argument of a provider function without a value, which the provider cannot decode: " +
			"there a null `version` fails with \"DynamicValue had no JSON or msgpack data set\" before the function runs. " +
			"With OpenTofu, pass a version, or write `{ staticExport = { enabled = true, bundleUrl = ... } }` yourself to leave it out.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name: "bundle_url",
				MarkdownDescription: "Link to the export's archive, an absolute `http://` or `https://` URL with a host, in printable ASCII, " +
					"without a user name or password, at most 16 KiB, " +
					"such as `docsadmin_static_export.docs.bundle_url` or `ephemeral.docsadmin_static_export_bundle.docs.bundle_url`. " +
					"Becomes `staticExport.bundleUrl`.",
			},
			function.StringParameter{
				Name: "version",
				MarkdownDescription: "Export version to pin, such as `v2`; becomes `staticExport.version`. " +
					"`null` leaves the key out (the chart serves the bundle's own version); OpenTofu cannot pass null here. Must not be empty or blank when set.",
				AllowNullValue: true,
			},
		},
		// Dynamic because the object has a version attribute only when one is given.
		Return: function.DynamicReturn{},
	}
}

func (f *helmValuesFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var bundleURL string
	var version types.String
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &bundleURL, &version))
	if resp.Error != nil {
		return
	}
	if problem := bundleURLProblem(bundleURL); problem != "" {
		resp.Error = argumentError(0, problem)
		return
	}
	if !version.IsNull() && strings.TrimSpace(version.ValueString()) == "" {
		resp.Error = argumentError(1, "The version is empty or blank. Pass a version label such as \"v2\", or null to leave staticExport.version out")
		return
	}

	values, err := helmValues(bundleURL, version)
	if err != nil {
		resp.Error = err
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, types.DynamicValue(values)))
}

// helmValues builds { staticExport = { enabled, bundleUrl[, version] } }.
func helmValues(bundleURL string, version types.String) (types.Object, *function.FuncError) {
	attrTypes := map[string]attr.Type{
		"enabled":   types.BoolType,
		"bundleUrl": types.StringType,
	}
	attrValues := map[string]attr.Value{
		"enabled":   types.BoolValue(true),
		"bundleUrl": types.StringValue(bundleURL),
	}
	if !version.IsNull() {
		attrTypes["version"] = types.StringType
		attrValues["version"] = version
	}
	staticExport, diags := types.ObjectValue(attrTypes, attrValues)
	if diags.HasError() {
		return types.ObjectNull(nil), function.FuncErrorFromDiags(context.Background(), diags)
	}
	root, diags := types.ObjectValue(
		map[string]attr.Type{"staticExport": types.ObjectType{AttrTypes: attrTypes}},
		map[string]attr.Value{"staticExport": staticExport},
	)
	if diags.HasError() {
		return types.ObjectNull(nil), function.FuncErrorFromDiags(context.Background(), diags)
	}
	return root, nil
}

// bundleURLProblem is the rule of a presigned link's shape
// (redact.SignedLinkShape) for the bundle_url argument: the chart fetches
// the link that docsadmin_static_export and its ephemeral twin hand out,
// so what those refuse from the API is refused here too. The message never
// quotes the link, which may be long or carry a password, and ends without
// a period, which Terraform adds.
func bundleURLProblem(raw string) string {
	accepted := fmt.Sprintf("Accepted: an absolute http:// or https:// URL with a host, in printable ASCII, without a user name or password, "+
		"at most %d bytes, such as the bundle_url of docsadmin_static_export", redact.MaxSignedLinkBytes)
	if raw == "" {
		return "The bundle URL is empty. " + accepted
	}
	if reason := redact.SignedLinkShape(raw); reason != "" {
		return "The bundle URL is refused: " + reason + ". " + accepted
	}
	return ""
}

// linkForMessage shows a link in an error without what grants access: the
// signing parameters and any password.
func linkForMessage(raw string) string {
	if raw == "" {
		return "an empty link"
	}
	return fmt.Sprintf("%q", bundlelink.Redact(raw))
}

// argumentError is a function's error about argument i. Terraform ends the
// sentence itself ("Invalid value for ... parameter: <text>."), so the text
// gets no period of its own.
func argumentError(i int64, text string) *function.FuncError {
	return function.NewArgumentFuncError(i, strings.TrimRight(text, ". "))
}
