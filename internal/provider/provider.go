package provider

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/archive"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/poll"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/redact"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/resume"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/siteclaims"
)

// Environment variables read when the matching attribute is not set.
const (
	envAPIKey    = "DOCSADMIN_API_KEY"
	envBaseURL   = "DOCSADMIN_BASE_URL"
	envProjectID = "DOCSADMIN_PROJECT_ID"
)

var (
	_ provider.Provider              = (*docsadminProvider)(nil)
	_ provider.ProviderWithFunctions = (*docsadminProvider)(nil)
	_ provider.ProviderWithActions   = (*docsadminProvider)(nil)
)

// Options adjust a provider instance; tests use them to drive time and
// polling without waiting on the wall clock.
type Options struct {
	// Clock drives waits, renewal decisions and link expiry checks.
	Clock clock.Clock
	// PollPolicy overrides the default polling policy (zero fields keep defaults).
	PollPolicy poll.Policy
	// RetryBackoff overrides the client's retry spacing.
	RetryBackoff clock.Backoff
	// RequestTimeout overrides the client's bound on one attempt.
	RequestTimeout time.Duration
	// ProgressEvery overrides agentJobProgressEvery, the longest the agent
	// job action stays silent while it waits.
	ProgressEvery time.Duration
	// Getenv reads the settings the configuration leaves out
	// (DOCSADMIN_API_KEY, DOCSADMIN_BASE_URL, DOCSADMIN_PROJECT_ID);
	// os.Getenv when nil.
	Getenv func(key string) string
}

type docsadminProvider struct {
	version string
	options Options
	// resume is shared by every configuration of this provider process, so
	// that a replacement created after a failed create can find its job.
	resume *resume.Registry
}

// New returns a constructor for the provider, as the plugin server wants it.
func New(version string) func() provider.Provider {
	return NewWithOptions(version, Options{})
}

// NewWithOptions is New with adjustments, for tests.
func NewWithOptions(version string, opts Options) func() provider.Provider {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.ProgressEvery == 0 {
		opts.ProgressEvery = agentJobProgressEvery
	}
	registry := resume.NewRegistry()
	return func() provider.Provider {
		return &docsadminProvider{version: version, options: opts, resume: registry}
	}
}

type providerModel struct {
	APIKey                types.String  `tfsdk:"api_key"`
	BaseURL               types.String  `tfsdk:"base_url"`
	ProjectID             types.String  `tfsdk:"project_id"`
	MaxRetries            types.Int64   `tfsdk:"max_retries"`
	RequestsPerSecond     types.Float64 `tfsdk:"requests_per_second"`
	MaxConcurrentRequests types.Int64   `tfsdk:"max_concurrent_requests"`
	MaxUnpackedBytes      types.Int64   `tfsdk:"max_unpacked_bytes"`
	DownloadIdleTimeout   types.String  `tfsdk:"download_idle_timeout"`
	StaticExportRevision  types.String  `tfsdk:"static_export_revision"`
}

func (p *docsadminProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "docsadmin"
	resp.Version = p.version
}

func (p *docsadminProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manages static exports and reads agent jobs of a hosted documentation platform through its administration API.",
		Attributes: map[string]schema.Attribute{
			"api_key": schema.StringAttribute{
				MarkdownDescription: "Admin API key, shaped `<prefix>_<secret>`, generated on the dashboard's API keys page (organization settings). " +
					"Sensitive: never shown in plans or logs. Defaults to the `" + envAPIKey + "` environment variable. Required from one of the two.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{apiKeyValidator()},
			},
			"base_url": schema.StringAttribute{
				MarkdownDescription: "Root address of the API, an absolute `https://` (or, for local testing, `http://`) URL with a host and no query or fragment, " +
					"for example `https://api.example.com`, or a reverse proxy's prefix in front of it such as `https://gateway.example.com/docsadmin`. " +
					"Without an API version at the end of its path: every endpoint adds its own (`/v1/...`), so a value ending in `/v1` or `/v2` is refused, naming the value to use. " +
					"Defaults to the `" + envBaseURL + "` environment variable. Required from one of the two. " +
					"Plain `http://` to a host other than loopback draws a warning.",
				Optional:   true,
				Validators: []validator.String{baseURLValidator{}},
			},
			"project_id": schema.StringAttribute{
				MarkdownDescription: "Default project for agent jobs, deployments and previews, as shown on the dashboard's API keys page. " +
					"Defaults to the `" + envProjectID + "` environment variable; the `project_id` of a resource, data source or action wins over both.",
				Optional:   true,
				Validators: []validator.String{projectIDValidator()},
			},
			"static_export_revision": schema.StringAttribute{
				MarkdownDescription: "Which revision of the static export API to speak. The API has two, and an account may be moved from one to the other without notice: " +
					"`domain` exports a domain (`POST /v1/static-export/jobs` with `domain`, `version` and `paths`, and a bundle call for each link); " +
					"`project` exports the project's deployment as a whole (`POST /v1/static-export/{projectId}/jobs` with no body, one export at a time, " +
					"ten starts per organization an hour, and the link on the completed job), and needs `project_id`. " +
					"`auto` (the default) tries the revision that last answered, else `domain`, and the other one only after a `404` or `405`, " +
					"which started nothing; each job is then read in the revision it was found in, and found again in the other after a `404`. " +
					"Set `domain` or `project` to pin one, in an air gap or for an audit: no request then goes to the other.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(exportRevisionAuto, string(client.RevisionDomain), string(client.RevisionProject))},
			},
			"max_retries": schema.Int64Attribute{
				MarkdownDescription: "How many times one API call is retried after a rate limit (429), a server error (5xx) or a network failure, from 0 to 20. " +
					"Starting an export is retried only when the API surely did not act on the first attempt. Default: `5`.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, 20)},
			},
			"requests_per_second": schema.Float64Attribute{
				MarkdownDescription: "Optional ceiling on the requests of this provider configuration in any one second, shared by every resource and data source, " +
					"greater than 0 and at most 1000. Unset (the default), requests are not paced until the API answers `429`; " +
					"from then on at most as many go in any second as the API accepted, a number learned from the `429`s. " +
					"Either way a `429` holds all requests for its `Retry-After` and lowers the rate to 0.7 times what the API accepted " +
					"(to what it accepted, when the `429` came at the limit already learned), which then climbs back within seconds; set a ceiling to stay below a limit you know, or to leave room for other clients of the same key.",
				Optional:   true,
				Validators: []validator.Float64{float64validator.Between(0.01, 1000)},
			},
			"max_concurrent_requests": schema.Int64Attribute{
				MarkdownDescription: "Most API requests in flight at once for this provider configuration, from 1 to 100. Default: `8`.",
				Optional:            true,
				Validators:          []validator.Int64{int64validator.Between(1, 100)},
			},
			"max_unpacked_bytes": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Largest total size of the files in an export's archive once unpacked, in bytes, from 1 MiB (%d) to 1 TiB (%d): "+
					"a larger archive is refused when it is verified, whatever its compressed size, so that a gzip bomb never fills a volume. Default: `%d` (8 GiB).",
					int64(1)<<20, int64(1)<<40, int64(archive.DefaultMaxUnpackedBytes)),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1<<20, 1<<40)},
			},
			"download_idle_timeout": schema.StringAttribute{
				MarkdownDescription: "How long a download of an export's archive may receive nothing before it fails with an error naming the host, " +
					"as a duration of at least `1s`, such as `30s`. Time spent writing what was received does not count. Default: `" + duration.Written(archive.DefaultIdleTimeout) + "`.",
				Optional:   true,
				Validators: []validator.String{durationValidator(time.Second)},
			},
		},
	}
}

func (p *docsadminProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Values that come from other resources are unknown until apply; the
	// client is built when they are known.
	if cfg.APIKey.IsUnknown() || cfg.BaseURL.IsUnknown() {
		return
	}

	apiKey, keyFromEnv := p.settingOrEnv(cfg.APIKey, envAPIKey)
	baseURL, urlFromEnv := p.settingOrEnv(cfg.BaseURL, envBaseURL)
	projectID, projectFromEnv := p.settingOrEnv(cfg.ProjectID, envProjectID)

	if apiKey == "" {
		resp.Diagnostics.AddAttributeError(path.Root("api_key"), "Missing API key",
			"Set api_key in the provider block or the "+envAPIKey+" environment variable to an admin API key (shaped <prefix>_<secret>) from the dashboard's API keys page.")
	} else if keyFromEnv {
		if problem := apiKeyProblem(apiKey); problem != "" {
			resp.Diagnostics.AddAttributeError(path.Root("api_key"), "Invalid API key in "+envAPIKey, problem)
		}
	}
	if baseURL == "" {
		resp.Diagnostics.AddAttributeError(path.Root("base_url"), "Missing base URL",
			"Set base_url in the provider block or the "+envBaseURL+" environment variable to the API's root address, for example https://api.example.com.")
	} else if urlFromEnv {
		problem, warning := baseURLProblem(baseURL)
		if problem != "" {
			resp.Diagnostics.AddAttributeError(path.Root("base_url"), "Invalid base URL in "+envBaseURL, problem)
		}
		if warning != "" {
			resp.Diagnostics.AddAttributeWarning(path.Root("base_url"), "Unencrypted base URL in "+envBaseURL, warning)
		}
	}
	if projectFromEnv && projectID != "" {
		if problem := identifierProblem("project id", "proj_0123456789", projectID); problem != "" {
			resp.Diagnostics.AddAttributeError(path.Root("project_id"), "Invalid project id in "+envProjectID, problem)
		}
	}
	exportRevision := exportRevisionSetting(cfg.StaticExportRevision)
	if exportRevision == client.RevisionProject && projectID == "" {
		resp.Diagnostics.AddAttributeError(path.Root("project_id"), "Missing project ID",
			"static_export_revision = \"project\" exports a project, so project_id is needed: set it in the provider block or the "+envProjectID+
				" environment variable to the project shown on the dashboard's API keys page, or leave static_export_revision unset.")
	}
	if resp.Diagnostics.HasError() {
		return
	}

	// One sanitizer for every text of the API this instance shows or
	// stores; the client cleans its error messages with it.
	sanitizer := redact.New(apiKey)
	clientCfg := client.Config{
		Sanitizer: sanitizer,
		BaseURL:   baseURL,
		APIKey:    apiKey,
		UserAgent: userAgent(p.version, req.TerraformVersion),
		Clock:     p.options.Clock,
		Backoff:   p.options.RetryBackoff,
		Logger:    tflogLogger{},

		RequestTimeout: p.options.RequestTimeout,
		ExportRevision: exportRevision,
		ProjectID:      projectID,
	}
	// Unknown settings keep their defaults until they are known.
	if !cfg.MaxRetries.IsNull() && !cfg.MaxRetries.IsUnknown() {
		clientCfg.MaxRetries = new(int(cfg.MaxRetries.ValueInt64()))
	}
	if !cfg.RequestsPerSecond.IsNull() && !cfg.RequestsPerSecond.IsUnknown() {
		clientCfg.RequestsPerSecond = cfg.RequestsPerSecond.ValueFloat64()
	}
	if !cfg.MaxConcurrentRequests.IsNull() && !cfg.MaxConcurrentRequests.IsUnknown() {
		clientCfg.MaxConcurrentRequests = int(cfg.MaxConcurrentRequests.ValueInt64())
	}
	apiClient, err := client.New(clientCfg)
	if err != nil {
		resp.Diagnostics.AddError("Cannot configure the docsadmin API client", err.Error())
		return
	}

	data := &providerData{
		client:        apiClient,
		limits:        cfg.archiveLimits(),
		projectID:     projectID,
		clock:         p.options.Clock,
		policy:        p.options.PollPolicy,
		progressEvery: p.options.ProgressEvery,
		resume:        p.resume,
		sites:         &siteclaims.Claims{},
		configuration: siteclaims.Configuration(),
		baseURL:       baseURL,
		sanitizer:     sanitizer,

		exportRevision: exportRevision,
	}
	resp.ResourceData = data
	resp.DataSourceData = data
	resp.EphemeralResourceData = data
	resp.ActionData = data
}

func (p *docsadminProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		func() resource.Resource { return &staticExportResource{clock: p.options.Clock} },
		NewStaticExportFileResource,
		NewDeploymentResource,
		NewPreviewDeploymentResource,
		NewAgentJobResource,
		NewStaticSiteResource,
		NewStaticSiteBucketResource,
	}
}

func (p *docsadminProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewAgentJobDataSource,
		NewStaticExportDataSource,
		NewDeploymentDataSource,
		NewStaticSiteManifestDataSource,
	}
}

func (p *docsadminProvider) EphemeralResources(context.Context) []func() ephemeral.EphemeralResource {
	return []func() ephemeral.EphemeralResource{
		NewStaticExportBundleEphemeralResource,
	}
}

func (p *docsadminProvider) Actions(context.Context) []func() action.Action {
	return []func() action.Action{
		NewAgentJobAction,
	}
}

func (p *docsadminProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		NewHelmValuesFunction,
		NewPodAnnotationsFunction,
		NewPresignedURLExpiryFunction,
	}
}

// settingOrEnv returns the attribute's value, else the environment's, and
// whether it came from the environment.
func (p *docsadminProvider) settingOrEnv(v types.String, env string) (string, bool) {
	if !v.IsNull() {
		return v.ValueString(), false
	}
	value := p.options.Getenv(env)
	return value, value != ""
}

func userAgent(version, terraformVersion string) string {
	ua := "terraform-provider-docsadmin/" + version
	if terraformVersion != "" {
		ua += " Terraform/" + terraformVersion
	}
	return ua
}

// providerData is what every resource and data source receives from Configure.
type providerData struct {
	client    *client.Client
	projectID string
	clock     clock.Clock
	limits    archive.Limits // for every download of an archive
	policy    poll.Policy
	// progressEvery is the longest the agent job action stays silent.
	progressEvery time.Duration
	resume        *resume.Registry
	sites         *siteclaims.Claims // the served paths of this run's static sites
	// configuration names this run's configuration (siteclaims.Configuration).
	configuration string
	baseURL       string
	sanitizer     *redact.Sanitizer // for every text of the API shown or stored
	// exportRevision is the pinned revision of the static export API, ""
	// when the client chooses.
	exportRevision client.ExportRevision
}

// exportRevisionAuto is static_export_revision's value for "choose".
const exportRevisionAuto = "auto"

// exportRevisionSetting is the pinned revision, "" for auto or unset.
func exportRevisionSetting(v types.String) client.ExportRevision {
	if v.IsNull() || v.IsUnknown() || v.ValueString() == exportRevisionAuto {
		return ""
	}
	return client.ExportRevision(v.ValueString())
}

func (d *providerData) now() time.Time { return d.clock.Now() }

// project is the project of an agent job, a deployment or a preview: the
// block's own project_id, else the provider's. Neither set is an error
// naming the attribute.
func (d *providerData) project(configured types.String, diags *diag.Diagnostics) string {
	if projectID := configured.ValueString(); projectID != "" {
		return projectID
	}
	if d.projectID != "" {
		return d.projectID
	}
	diags.AddAttributeError(path.Root("project_id"), "Missing project ID",
		"Set project_id in this block, or project_id in the provider block (or the "+envProjectID+" environment variable). "+
			"It is shown on the dashboard's API keys page.")
	return ""
}

// archiveLimits reads the archive settings; unset or unknown ones keep the
// defaults.
func (m providerModel) archiveLimits() archive.Limits {
	var limits archive.Limits
	if !m.MaxUnpackedBytes.IsNull() && !m.MaxUnpackedBytes.IsUnknown() {
		limits.MaxUnpackedBytes = m.MaxUnpackedBytes.ValueInt64()
	}
	if !m.DownloadIdleTimeout.IsNull() && !m.DownloadIdleTimeout.IsUnknown() {
		limits.IdleTimeout, _ = time.ParseDuration(m.DownloadIdleTimeout.ValueString()) // validated
	}
	return limits
}

// providerDataFrom unpacks what Configure handed to a resource or data
// source; nil while the provider is not configured yet.
func providerDataFrom(raw any, diags *diag.Diagnostics) *providerData {
	if raw == nil {
		return nil
	}
	data, ok := raw.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("expected *providerData, got %T", raw))
	}
	return data
}

// requireConfigured reports a provider whose settings are not known yet,
// saying what cannot be done because of it.
func requireConfigured(data *providerData, diags *diag.Diagnostics, consequence string) bool {
	if data != nil {
		return true
	}
	diags.AddError("Provider not configured",
		"The docsadmin provider's api_key and base_url are not known yet (they may come from resources not created yet), so "+consequence+".")
	return false
}

// begin starts anything that calls the API (an operation, a read, an
// import, an action), the one place where such work begins: it goes on only when diags holds no error yet and the
// provider is configured (consequence says what cannot be done otherwise),
// and it hides the secrets in the logs of the context it returns. It
// reports whether the work can go on.
func begin(ctx context.Context, data *providerData, consequence string, diags *diag.Diagnostics) (context.Context, bool) {
	if diags.HasError() || !requireConfigured(data, diags, consequence) {
		return ctx, false
	}
	return data.maskSecrets(ctx), true
}
