package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

const (
	// bundleReadyTimeout bounds the wait for the archive of a job that just
	// completed: the bundle endpoint may answer 409 for a short while.
	bundleReadyTimeout = 2 * time.Minute

	// maxRenewMargin is the most time before a link's expiry at which
	// Terraform is asked to call Renew; shorter links get 10% of their
	// remaining lifetime instead.
	maxRenewMargin = 5 * time.Minute
)

var (
	_ ephemeral.EphemeralResourceWithConfigure = (*staticExportBundleEphemeralResource)(nil)
	_ ephemeral.EphemeralResourceWithRenew     = (*staticExportBundleEphemeralResource)(nil)
	// Terraform asks only providers that implement this for ephemeral resources.
	_ provider.ProviderWithEphemeralResources = (*docsadminProvider)(nil)
)

// NewStaticExportBundleEphemeralResource is the docsadmin_static_export_bundle
// ephemeral resource.
func NewStaticExportBundleEphemeralResource() ephemeral.EphemeralResource {
	return &staticExportBundleEphemeralResource{}
}

// staticExportBundleEphemeralResource hands out a fresh link to a completed
// export on every Terraform run, so the link is never written to plan or state.
type staticExportBundleEphemeralResource struct {
	data *providerData
}

type staticExportBundleModel struct {
	JobID     types.String `tfsdk:"job_id"`
	BundleURL types.String `tfsdk:"bundle_url"`
	ExpiresAt types.String `tfsdk:"expires_at"`
	SizeBytes types.Int64  `tfsdk:"size_bytes"`
}

func (e *staticExportBundleEphemeralResource) Metadata(_ context.Context, req ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_static_export_bundle"
}

func (e *staticExportBundleEphemeralResource) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Generates a fresh presigned link to the archive of a completed static export, on every Terraform run, " +
			"without writing it to plan or state (Terraform 1.10 or later). Use it where the link must not be stored: in a provider block, " +
			"or in a write-only argument such as `set_wo` of `helm_release`. Each run asks the API for a new link to the same export; " +
			"no export is started. The job must already be `completed`: create it with the `docsadmin_static_export` resource, " +
			"which waits for completion, or start it elsewhere and pass its id. The link stays the same for the whole run, because " +
			"Terraform cannot replace an ephemeral value while it runs: a run that outlasts the link only gets a warning in the log " +
			"shortly before `expires_at`, and the next run opens a fresh link.",
		Attributes: map[string]schema.Attribute{
			"job_id": schema.StringAttribute{
				MarkdownDescription: "Identifier of a completed export job, such as `se_3f9a2c1b8e7d4a06`, for example " +
					"`docsadmin_static_export.docs.job_id`. A job that is `queued`, `running` or `failed`, or that the API does not know, is an error.",
				Required:   true,
				Validators: []validator.String{exportJobIDValidator()},
			},
			"bundle_url": schema.StringAttribute{
				MarkdownDescription: "Presigned link to the export's archive (a gzip'd tar of static HTML, CSS, JavaScript and assets), generated for this run. " +
					"Sensitive: it grants access until `expires_at`. Never stored in plan or state.",
				Computed:  true,
				Sensitive: true,
			},
			"expires_at": schema.StringAttribute{
				MarkdownDescription: "When `bundle_url` stops working (RFC 3339): the API's `expiresAt`, else the link's own presigned query " +
					"(`X-Amz-Date` + `X-Amz-Expires`, or `X-Goog-Date` + `X-Goog-Expires`). Null when neither tells.",
				Computed: true,
			},
			"size_bytes": schema.Int64Attribute{
				MarkdownDescription: "Size of the archive, in bytes. Null when the API did not report it.",
				Computed:            true,
			},
		},
	}
}

func (e *staticExportBundleEphemeralResource) Configure(_ context.Context, req ephemeral.ConfigureRequest, resp *ephemeral.ConfigureResponse) {
	e.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (e *staticExportBundleEphemeralResource) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var cfg staticExportBundleModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	ctx, ok := begin(ctx, e.data, "no bundle link can be generated", &resp.Diagnostics)
	if !ok {
		return
	}
	jobID := cfg.JobID.ValueString()

	bundle := e.data.completedExportLink(ctx, jobID, &resp.Diagnostics)
	if bundle == nil {
		return
	}

	cfg.BundleURL = types.StringValue(bundle.BundleURL)
	cfg.SizeBytes = types.Int64PointerValue(bundle.SizeBytes)
	cfg.ExpiresAt = types.StringNull()
	link := openedLink{JobID: jobID}
	if expiry, ok := bundleExpiry(bundle); ok {
		cfg.ExpiresAt = types.StringValue(expiry.Format(time.RFC3339))
		link.ExpiresAt = cfg.ExpiresAt.ValueString()
		resp.RenewAt = linkRenewAt(expiry, e.data.now(), time.Now())
	}
	tflog.Debug(ctx, "generated a bundle link for this run", map[string]any{"job_id": jobID, "expires_at": link.ExpiresAt})

	resp.Diagnostics.Append(resp.Result.Set(ctx, &cfg)...)
	resp.Diagnostics.Append(recordOpenedLink(ctx, resp.Private, link)...)
}

// Renew is called by Terraform at RenewAt, shortly before the link expires,
// when a run lasts that long. Terraform gives Renew no way to hand consumers
// a different value, and a presigned link cannot be extended, so generating
// another link here would only waste one: Renew warns instead, and the next
// run opens a fresh link.
func (e *staticExportBundleEphemeralResource) Renew(ctx context.Context, req ephemeral.RenewRequest, _ *ephemeral.RenewResponse) {
	if e.data != nil {
		ctx = e.data.maskSecrets(ctx)
	}
	link := recordedOpenedLink(ctx, req.Private)
	tflog.Warn(ctx, "the static export bundle link opened for this run is about to expire; consumers that read it after expires_at get a dead link, and the next Terraform run opens a fresh one",
		map[string]any{"job_id": link.JobID, "expires_at": link.ExpiresAt})
}

// linkRenewAt is when Terraform should call Renew: before expiry by 10% of
// the remaining lifetime, at most maxRenewMargin. The remaining lifetime is
// measured on the provider's clock (which may be shifted in tests) and laid
// onto the wall clock, which is what Terraform compares RenewAt against.
// Zero means never: the link has already expired.
func linkRenewAt(expiry, providerNow, wallNow time.Time) time.Time {
	remaining := expiry.Sub(providerNow)
	if remaining <= 0 {
		return time.Time{}
	}
	margin := min(maxRenewMargin, remaining/10)
	return wallNow.Add(remaining - margin)
}
