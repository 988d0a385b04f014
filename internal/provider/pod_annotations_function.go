package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ function.Function = (*podAnnotationsFunction)(nil)

// archiveSHA256Annotation is the pod-template annotation that carries the
// digest of the archive the pods serve.
const archiveSHA256Annotation = "docsadmin.io/archive-sha256"

// NewPodAnnotationsFunction is the pod_annotations provider function.
func NewPodAnnotationsFunction() function.Function { return &podAnnotationsFunction{} }

// podAnnotationsFunction builds the pod-template annotation that changes
// with the archive's content and with nothing else, so that pods roll onto a
// new export but not onto a renewed link to the same one.
type podAnnotationsFunction struct{}

func (f *podAnnotationsFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "pod_annotations"
}

func (f *podAnnotationsFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Pod annotations that roll a deployment onto new export content",
		MarkdownDescription: "Returns the annotations to put on the pod template of the deployment that serves a static export:\n\n" +
			"```\n{ \"" + archiveSHA256Annotation + "\" = <archive_sha256> }\n```\n\n" +
			"Pass the result as the chart's `podAnnotations` (in `values` of a `helm_release`, through `yamlencode`). " +
			"The digest is the same for every link to the same export, so a renewed link leaves the pod template as it was " +
			"and no pod restarts, while a new export changes it and Kubernetes rolls the pods onto the new content. " +
			"The digest is not a secret: plans show it, and it may sit in the pod template. " +
			"Pure: no request is made (Terraform 1.8 or later).",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name: "archive_sha256",
				MarkdownDescription: "SHA-256 digest of the export's archive, 64 lowercase hexadecimal characters, " +
					"such as `docsadmin_static_export.docs.archive_sha256`. Must not be null: the function takes a null only to fail " +
					"with an explanation rather than Terraform's generic error. The export's `archive_sha256` is null when " +
					"`verify_archive` is `false`, and then nothing tells new content from a renewed link: set `verify_archive = true`, " +
					"or pass a digest computed elsewhere.",
				AllowNullValue: true,
			},
		},
		Return: function.MapReturn{ElementType: types.StringType},
	}
}

func (f *podAnnotationsFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var arg types.String
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &arg))
	if resp.Error != nil {
		return
	}
	if arg.IsNull() {
		resp.Error = argumentError(0, "archive_sha256 is null. The export's archive_sha256 is null when verify_archive is false: "+
			"set verify_archive = true so that the provider records the digest, or pass a digest computed elsewhere")
		return
	}
	digest := arg.ValueString()
	if problem := sha256Problem(digest); problem != "" {
		resp.Error = argumentError(0, "archive_sha256: "+problem)
		return
	}
	// Lower case, so that a digest written either way gives one annotation
	// and rolls no pod.
	annotations, diags := types.MapValue(types.StringType, map[string]attr.Value{
		archiveSHA256Annotation: types.StringValue(strings.ToLower(digest)),
	})
	if diags.HasError() {
		resp.Error = function.FuncErrorFromDiags(ctx, diags)
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, annotations))
}
