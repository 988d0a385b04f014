package provider

import (
	"context"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
)

// tflogLogger hands the client's records to Terraform's logging.
type tflogLogger struct{}

func (tflogLogger) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(ctx, msg, fields)
}

// signatureInText matches the value of any signing parameter of a presigned
// link, wherever it stands in a message or field.
var signatureInText = regexp.MustCompile(`(?i)\b(?:` + strings.Join(bundlelink.SignatureParams(), "|") + `)=[^&\s"']+`)

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
