package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/bundlelink"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// tflogLogger hands the client's records to Terraform's logging.
type tflogLogger struct{}

func (tflogLogger) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(ctx, msg, fields)
}

// maskSecrets makes every log record written with the returned context hide
// the API key and link signatures, whatever logs them.
func (d *providerData) maskSecrets(ctx context.Context) context.Context {
	if d.apiKey != "" {
		ctx = tflog.MaskMessageStrings(ctx, d.apiKey)
		ctx = tflog.MaskAllFieldValuesStrings(ctx, d.apiKey)
	}
	ctx = tflog.MaskMessageRegexes(ctx, bundlelink.SignatureInText)
	ctx = tflog.MaskAllFieldValuesRegexes(ctx, bundlelink.SignatureInText)
	return ctx
}

// maskPrompt makes every log record written with the returned context hide
// the prompt, whatever logs it. Very short prompts are left out: masking a
// word of a few letters would garble every record that contains it, and the
// provider never logs a prompt anyway.
func maskPrompt(ctx context.Context, prompt string) context.Context {
	if !redact.IsSecretPrompt(prompt) {
		return ctx
	}
	ctx = tflog.MaskMessageStrings(ctx, prompt)
	return tflog.MaskAllFieldValuesStrings(ctx, prompt)
}
