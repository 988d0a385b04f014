package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
)

// tflogLogger hands the client's records to Terraform's logging.
type tflogLogger struct{}

func (tflogLogger) Debug(ctx context.Context, msg string, fields map[string]any) {
	tflog.Debug(ctx, msg, fields)
}

// maskSecrets makes every log record written with the returned context hide
// the API key and link signatures, whatever logs them, as the sanitizer
// matches them (redact's LogPatterns: one pattern of a signature, and the
// key in every spelling the sanitizer reads as the key).
func (d *providerData) maskSecrets(ctx context.Context) context.Context {
	patterns := d.sanitizer.LogPatterns()
	ctx = tflog.MaskMessageRegexes(ctx, patterns...)
	return tflog.MaskAllFieldValuesRegexes(ctx, patterns...)
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
