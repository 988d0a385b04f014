package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
)

var _ function.Function = (*presignedURLExpiryFunction)(nil)

// NewPresignedURLExpiryFunction is the presigned_url_expiry provider function.
func NewPresignedURLExpiryFunction() function.Function { return &presignedURLExpiryFunction{} }

// presignedURLExpiryFunction reads when a presigned link expires from the
// link alone, for links that come from somewhere other than this provider.
type presignedURLExpiryFunction struct{}

func (f *presignedURLExpiryFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "presigned_url_expiry"
}

func (f *presignedURLExpiryFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Expiry time of a presigned object-storage link",
		MarkdownDescription: "Returns when a presigned link stops working, as an RFC 3339 timestamp in UTC such as `2026-11-22T09:00:00Z`, " +
			"computed from the link's own query: `X-Amz-Date` + `X-Amz-Expires` (Amazon S3 and S3-compatible storage) or " +
			"`X-Goog-Date` + `X-Goog-Expires` (Google Cloud Storage). A link without these parameters is an error. " +
			"The error never shows the link's signature. Pure: no request is made, and no provider configuration is needed (Terraform 1.8 or later).",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name: "url",
				MarkdownDescription: "The presigned link, for example `docsadmin_static_export.docs.bundle_url`. " +
					"A sensitive value stays sensitive: Terraform marks the result too.",
			},
		},
		Return: function.StringReturn{},
	}
}

func (f *presignedURLExpiryFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var link string
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &link))
	if resp.Error != nil {
		return
	}
	expiry, err := bundlelink.Expiry(link)
	if err != nil {
		// bundlelink's errors never contain the link; the echo is redacted.
		// No final period: Terraform adds one.
		resp.Error = argumentError(0, "Cannot tell when "+linkForMessage(link)+" expires: "+err.Error())
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, expiry.UTC().Format(time.RFC3339)))
}
