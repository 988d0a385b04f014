package provider

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// tflogLogger hands the client's records to Terraform's logging.
type tflogLogger struct{}

func (tflogLogger) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(ctx, msg, fields)
}

// signatureInText matches the signing parameters of presigned links.
var signatureInText = regexp.MustCompile(`(?i)((?:x-amz-signature|x-amz-security-token|x-amz-credential|x-goog-signature|x-goog-credential)=)[^&\s"']+`)

// maskSecrets makes every log record written with the returned context hide
// the API key and link signatures, whatever logs them.
func (d *providerData) maskSecrets(ctx context.Context) context.Context {
	if d.apiKey != "" {
		ctx = tflog.MaskMessageStrings(ctx, d.apiKey)
		ctx = tflog.MaskAllFieldValuesStrings(ctx, d.apiKey)
	}
	ctx = tflog.MaskMessageRegexes(ctx, signatureInText)
	ctx = tflog.MaskAllFieldValuesRegexes(ctx, signatureInText)
	return ctx
}
