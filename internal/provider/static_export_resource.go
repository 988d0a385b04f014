package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/boolplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/float64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/client"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/duration"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/resume"
)

const (
	defaultCreateTimeout = 60 * time.Minute
	defaultReadTimeout   = 5 * time.Minute
	defaultUpdateTimeout = 30 * time.Minute
	defaultRenewBefore   = time.Hour
)

var (
	_ resource.ResourceWithConfigure      = (*staticExportResource)(nil)
	_ resource.ResourceWithImportState    = (*staticExportResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*staticExportResource)(nil)
	_ resource.ResourceWithValidateConfig = (*staticExportResource)(nil)
)

// staticExportResource is docsadmin_static_export. This file holds its
// schema and its operations; its siblings hold the steps they call:
//   - static_export_model.go: the model, and what a plan keeps, renews or
//     clears (setJob, copy*From, planNew*, clear*, renewalDue);
//   - static_export_start.go: starting an export, and a start quota's wait;
//   - static_export_wait.go: waiting for the job to end;
//   - static_export_link.go: asking for a fresh link;
//   - static_export_delivery.go: handing a completed export over (the link,
//     verification once, the archive's identity);
//   - static_export_triggers.go: when triggers export again;
//   - static_export_identity.go: the resource identity and the import id.
//
// Shared steps are in wait.go (beginOperation, waits), resume.go, place.go
// and private_state.go.
type staticExportResource struct {
	data *providerData
	// clock decides whether a link is due at plan time, also while the
	// provider is not configured yet (its settings still unknown).
	clock clock.Clock
}

func (r *staticExportResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_static_export"
	// An update exports again when triggers change (planExportAgain): a
	// new job, a new identity.
	resp.ResourceBehavior.MutableIdentity = true
}

func (r *staticExportResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Exports a documentation site as a static bundle: apply starts an export job, waits for it to complete " +
			"and generates a time-limited link to the archive (`bundle_url`). When the link nears its expiry the next plan renews it " +
			"in place, for the same export, without exporting again. Destroy only forgets the job: the API cannot delete exports.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: "The export job's identifier (same as `job_id`).",
				Computed:            true,
				PlanModifiers:       keepFromState(),
			},
			"domain": schema.StringAttribute{
				MarkdownDescription: "Hostname of the documentation site to export, such as `docs.example.com`: no scheme, port, path or trailing slash. Changing it starts a new export. " +
					"The project-scoped revision of the API exports the project's deployment and does not take it: it then names the export in state, imports and messages.",
				Required:      true,
				Validators:    []validator.String{domainValidator()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"version": schema.StringAttribute{
				MarkdownDescription: "Label of the content version to export. Default: the latest published version. Changing it starts a new export. " +
					"Not sent in the project-scoped revision of the API, which exports the published version whole; a warning says so.",
				Optional:      true,
				Validators:    []validator.String{notBlankValidator()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"paths": schema.ListAttribute{
				MarkdownDescription: "Page paths to export, relative to the site root, such as `index` or `guides/getting-started`: each non-empty, unique, " +
					"without scheme, host, leading slash, query or fragment. Default: all pages. Changing it starts a new export. " +
					"Not sent in the project-scoped revision of the API, which exports every page; a warning says so.",
				ElementType: types.StringType,
				Optional:    true,
				Validators: []validator.List{
					listvalidator.SizeAtLeast(1),
					listvalidator.UniqueValues(),
					listvalidator.ValueStringsAre(pagePathValidator()),
				},
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()},
			},
			"triggers": triggersAttribute("Arbitrary strings whose change starts a new export, in place, for example `{ docs_commit = var.docs_commit }` "+
				"to re-export whenever new content is published. Not sent to the API. "+
				"When they are not known until apply, such as a deployment's `commit_sha` while it deploys, the plan shows an update that may export: "+
				"during apply, once they are known, the export runs again only if they differ, so a redeployment of the same commit exports nothing. "+
				"After an import, the configuration's `triggers` are taken over at the first apply without exporting.", false),
			"renew_before": schema.StringAttribute{
				MarkdownDescription: "How long before `bundle_expires_at` a plan renews the link in place (same export, new link), as a duration such as `30m` or `12h`; " +
					"`0s` renews only expired links. A value you set is honoured as written; a plan warns when it is at least the link's lifetime, because then every plan renews. " +
					"Unset: `" + duration.Written(defaultRenewBefore) + "`, capped at half the link's lifetime so that short-lived links do not renew on every plan.",
				Optional:   true,
				Validators: []validator.String{durationValidator(0)},
			},
			"renew_triggers": triggersAttribute("Arbitrary strings whose change renews the link now, in place, for the same export: the counterpart of `triggers`, which exports again. "+
				"For example `{ rotated = \"2026-11-23\" }` to replace a link that leaked. Not sent to the API. "+
				"After an import, the configuration's `renew_triggers` are taken over at the first apply without renewing.", false),
			"verify_archive": schema.BoolAttribute{
				MarkdownDescription: "Whether the provider downloads the archive once when an export completes (create, re-export, import, resume) and refuses one a " +
					"deployment could not serve: truncated or corrupt, not a gzip'd tar, no `index.html` at its root, or entries that would escape the directory they are " +
					"unpacked into. The download streams with bounded memory and records `archive_sha256`, `archive_size_bytes` and `archive_file_count`; a link renewal " +
					"does not download again. Set `false` on runners that cannot reach object storage, or for very large sites: then nothing is checked and the three " +
					"attributes stay null, so nothing can tell a new export's content from a renewal's. Default: `true`.",
				Optional: true,
				Computed: true,
				Default:  booldefault.StaticBool(true),
			},
			"job_id": schema.StringAttribute{
				MarkdownDescription: "Identifier of the export job, such as `se_3f9a2c1b8e7d4a06`.",
				Computed:            true,
				PlanModifiers:       keepFromState(),
			},
			"api_revision": schema.StringAttribute{
				MarkdownDescription: "The revision of the static export API the job was found in: `domain` (the job exported `domain`, `version` and `paths`) " +
					"or `project` (the job exported the project's whole deployment; `version` and `paths` were not sent). Reads go there first, and to the other " +
					"revision after a `404`, so the job is found again when the API moves from one revision to the other (see the provider's `static_export_revision`).",
				Computed:      true,
				PlanModifiers: keepFromState(),
			},
			"status": schema.StringAttribute{
				MarkdownDescription: "Last seen status of the export job: `queued`, `running`, `completed` or `failed`. `completed` after a successful apply.",
				Computed:            true,
				PlanModifiers:       keepFromState(),
			},
			"progress": schema.Float64Attribute{
				MarkdownDescription: "Last seen progress of the export job, in percent from 0 to 100 (may be fractional). Null when the API did not report it.",
				Computed:            true,
				PlanModifiers:       []planmodifier.Float64{float64planmodifier.UseStateForUnknown()},
			},
			"page_count": useStateInt64Attribute("Number of pages exported. Null when the API did not report it."),
			"created_at": schema.StringAttribute{
				MarkdownDescription: "When the export job was created (RFC 3339). Null when the API did not report it.",
				Computed:            true,
				PlanModifiers:       keepFromState(),
			},
			"bundle_url": schema.StringAttribute{
				MarkdownDescription: "Presigned link to the export's archive (a gzip'd tar of static HTML, CSS, JavaScript and assets). " +
					"Sensitive: it grants access until it expires. Renewed in place as described for `renew_before`.",
				Computed:      true,
				Sensitive:     true,
				PlanModifiers: keepFromState(),
			},
			"bundle_size_bytes": useStateInt64Attribute("Size of the archive, in bytes. Null when the API did not report it."),
			"bundle_expires_at": schema.StringAttribute{
				MarkdownDescription: "When `bundle_url` stops working (RFC 3339): the API's `expiresAt`, else the link's own presigned query " +
					"(`X-Amz-Date` + `X-Amz-Expires`, or `X-Goog-Date` + `X-Goog-Expires`). Null when neither tells; then no renewal is ever planned.",
				Computed:      true,
				PlanModifiers: keepFromState(),
			},
			"link_revision": useStateInt64Attribute("A number that rises with every new link, whether a renewal or a new export, and never goes down: the time the link was issued, " +
				"in milliseconds since 1970, or one more than the previous revision. Feed it to a write-only argument's revision, such as the helm provider's " +
				"`set_wo_revision`, so that each new link is sent again and no other change is needed. Null while the export has no link."),
			"ready_for_renewal": schema.BoolAttribute{
				MarkdownDescription: "True when the link has expired or expires within the renewal window (see `renew_before`): the next apply renews it.",
				Computed:            true,
				PlanModifiers:       []planmodifier.Bool{boolplanmodifier.UseStateForUnknown()},
			},
			"archive_sha256": schema.StringAttribute{
				MarkdownDescription: "SHA-256 (hex) of the archive as served, recorded by the verifying download (see `verify_archive`): the identity of the export's " +
					"content. A link renewal keeps it; a new export changes it. Use it to roll pods on new content only, or to check a copy. Null when not verified.",
				Computed:      true,
				PlanModifiers: keepFromState(),
			},
			"archive_md5": schema.StringAttribute{
				MarkdownDescription: "MD5 (lower-case hex) of the archive as served, recorded by the same verifying download as `archive_sha256`, and " +
					"kept and cleared with it: for arguments that take an MD5 in hex, such as `content_md5` of `azurerm_storage_blob` " +
					"(which converts it to base64 for the `Content-MD5` header). Null when not verified.",
				Computed:      true,
				PlanModifiers: keepFromState(),
			},
			"archive_md5_base64": schema.StringAttribute{
				MarkdownDescription: "The same MD5 in base64, as the `Content-MD5` header carries it and as `source_md5hash` of " +
					"`google_storage_bucket_object` is documented to take it (Cloud Storage's own `md5hash` is base64). Null when not verified.",
				Computed:      true,
				PlanModifiers: keepFromState(),
			},
			"archive_size_bytes": useStateInt64Attribute("Size in bytes of the archive the verifying download read. Null when not verified."),
			"archive_file_count": useStateInt64Attribute("Number of files in the archive the verifying download read. Null when not verified."),
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeouts.Block(ctx, timeouts.Opts{
				Create:            true,
				Read:              true,
				Update:            true,
				CreateDescription: "Longest wait for the export to complete and its bundle to be generated, as a duration such as `90m`. Default: `" + duration.Written(defaultCreateTimeout) + "`.",
				ReadDescription:   "Longest wait for a refresh. Default: `" + duration.Written(defaultReadTimeout) + "`.",
				UpdateDescription: "Longest wait for a link renewal, a new export in place, or the rest of an unfinished one. Default: `" + duration.Written(defaultUpdateTimeout) + "`.",
			}),
		},
	}
}

// ValidateConfig refuses timeouts under a second at plan time (validateTimeouts).
func (r *staticExportResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	resp.Diagnostics.Append(validateTimeouts[timeouts.Value](ctx, req.Config)...)
}

func (r *staticExportResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *staticExportResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan staticExportModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	ctx, timeout, ok := beginOperation(ctx, r.data, "the export cannot be managed yet", plan.Timeouts.Create, defaultCreateTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	inputs, diags := plan.inputs(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}

	out := exportOutput{state: &resp.State, identity: resp.Identity, private: resp.Private, diags: &resp.Diagnostics}
	r.export(ctx, &plan, inputs, types.Int64Null(), timeoutCreate, timeout, out)
}

// exportOutput is where an export records itself as it goes: the response
// of a create, or of an update that exports again.
type exportOutput struct {
	state    *tfsdk.State
	identity *tfsdk.ResourceIdentity
	private  privateSetter
	diags    *diag.Diagnostics
}

func (o exportOutput) save(ctx context.Context, m staticExportModel) {
	o.diags.Append(o.state.Set(ctx, &m)...)
	o.diags.Append(setExportIdentity(ctx, o.identity, m)...)
}

// export exports inputs into m: it continues the job an unfinished create
// of the same inputs left, or starts one, waits for it to complete and
// delivers its link, whose revision rises from previousLink. The job is
// saved as soon as it is known, so that a timeout or interrupt never loses
// it: the next apply continues it, and no second export is started.
func (r *staticExportResource) export(ctx context.Context, m *staticExportModel, inputs exportInputs, previousLink types.Int64,
	name timeoutName, limit time.Duration, out exportOutput) {
	job, err := r.resumableJob(ctx, inputs, func(work resume.Work) {
		// Saved again as Delete found it: Terraform keeps it, tainted, and
		// the next apply's Delete registers it once more.
		m.setJob(&client.StaticExportJob{JobID: work.ID, Status: client.ExportStatus(work.Status), Revision: client.ExportRevision(work.Revision)}, r.data)
		m.clearBundle()
		m.clearArchive()
		out.save(ctx, *m)
	})
	if err != nil {
		out.diags.AddError("Cannot continue the unfinished static export", sentence(err.Error()))
		return
	}
	if job == nil {
		started, err := r.data.startExport(ctx, inputs)
		if err != nil {
			out.diags.AddError("Cannot start the static export", r.data.startFailure(inputs.Domain, name, limit, err))
			return
		}
		job = started
		tflog.Info(ctx, "started static export", map[string]any{"job_id": job.JobID, "domain": inputs.Domain, "api_revision": string(job.Revision)})
		warnMalformed(out.diags, "the start of the export of "+inputs.Domain, job.Malformed)
		warnWholeProject(out.diags, *m, job.Revision)
	}

	out.diags.Append(recordPlace(ctx, out.private, r.data.exportJobPlace(job.JobID))...)
	// Every value saved is known: Terraform refuses a state that still
	// holds the plan's unknowns, even beside an error.
	m.setJob(job, r.data)
	m.clearBundle()
	m.clearArchive()
	out.save(ctx, *m)

	job, err = r.waitForCompletion(ctx, job.JobID, job, name, limit)
	if job != nil {
		m.setJob(job, r.data)
		out.save(ctx, *m)
	}
	if err != nil {
		out.diags.AddError("Static export did not complete", err.Error())
		return
	}

	m.LinkRevision = previousLink
	diags, failure := r.data.deliverBundle(ctx, m, bundleWait(job.JobID, name, limit), out.private)
	if failure != nil {
		// The state saved after the wait has no link: the next apply
		// delivers this job's link (see ModifyPlan) instead of exporting again.
		out.diags.AddError(failure.summary, failure.stateOutcome(job.JobID))
		return
	}
	out.diags.Append(diags...)
	out.save(ctx, *m)
}

// resumableJob returns the job that an earlier, unfinished create of the same
// inputs left behind, through the one resume protocol (resumeRegistered).
// saveAgain saves the registered job when it cannot be read.
func (r *staticExportResource) resumableJob(ctx context.Context, inputs exportInputs, saveAgain func(resume.Work)) (*client.StaticExportJob, error) {
	var job *client.StaticExportJob
	_, ok, err := r.data.resumeRegistered(ctx, r.data.exportResumeKey(inputs), func(id string) string { return "Export job " + id },
		func(ctx context.Context, id string) (bool, error) {
			var err error
			job, err = r.data.client.GetStaticExport(ctx, id)
			return err == nil && job.Status == client.ExportFailed, err
		}, saveAgain)
	if err != nil || !ok {
		return nil, err
	}
	return job, nil
}

// exportResumeKey identifies an export by everything that would make it
// another export (resumeKey).
func (d *providerData) exportResumeKey(in exportInputs) resume.Key {
	return d.resumeKey("docsadmin_static_export", d.projectID, in)
}

func (r *staticExportResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state staticExportModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(setExportIdentity(ctx, resp.Identity, state)...)
	ctx, timeout, ok := beginOperation(ctx, r.data, "the export cannot be managed yet", state.Timeouts.Read, defaultReadTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	jobID := state.JobID.ValueString()
	recorded := recordedPlace(ctx, req.Private)
	if r.data.madeAtAnotherAPI(recorded) {
		resp.Diagnostics.AddWarning(r.data.placeWarning(state.named(), *recorded, notReadAtAnotherAPI))
		return
	}
	r.data.knowExport(state, recorded)
	job, err := r.data.client.GetStaticExport(ctx, jobID)
	if client.IsNotFound(err) {
		resp.Diagnostics.AddWarning(goneFromState(fmt.Sprintf("export job %s of %s", jobID, state.Domain.ValueString()), "the next apply starts a new export.", err))
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot read the static export job", withHint(err))
		return
	}
	r.data.notePlace(ctx, state.named(), recorded, r.data.exportJobPlace(jobID), resp.Private, &resp.Diagnostics)
	state.setJob(job, r.data)
	if state.BundleURL.IsNull() && job.Status != client.ExportFailed && !wasImported(ctx, req.Private) {
		// An apply that delivered no link did not finish (unfinishedWork).
		resp.Diagnostics.AddWarning(resumeNote(state.named()))
	}
	// Refresh never generates a link; it only tells whether the one in state
	// is due for renewal, which the next plan acts on.
	issuedAt := bundleIssuedAt(ctx, req.Private)
	state.ReadyForRenewal = types.BoolValue(renewalDue(state, r.data.now(), issuedAt))
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
}

func (r *staticExportResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state staticExportModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	resp.Diagnostics.Append(setExportIdentity(ctx, resp.Identity, state)...)
	ctx, timeout, ok := beginOperation(ctx, r.data, "the export cannot be managed yet", plan.Timeouts.Update, defaultUpdateTimeout, &resp.Diagnostics)
	if !ok {
		return
	}
	// The plan compared the configuration with the imported state.
	resp.Diagnostics.Append(forgetImported(ctx, resp.Private)...)

	if !plan.BundleURL.IsUnknown() {
		// Only settings changed (renew_before, timeouts).
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	recorded := recordedPlace(ctx, req.Private)
	r.data.knowExport(state, recorded)
	if plan.JobID.IsUnknown() {
		// Planned by planExportAgain, with triggers known now.
		if planTriggers(plan, state, wasImported(ctx, req.Private)) == triggersNewExport {
			inputs, diags := plan.inputs(ctx)
			resp.Diagnostics.Append(diags...)
			if !diags.HasError() {
				out := exportOutput{state: &resp.State, identity: resp.Identity, private: resp.Private, diags: &resp.Diagnostics}
				r.export(ctx, &plan, inputs, state.LinkRevision, timeoutUpdate, timeout, out)
			}
			return
		}
		tflog.Info(ctx, "the triggers are unchanged: the export is kept, and nothing is exported", map[string]any{"job_id": state.JobID.ValueString()})
		work := r.linkWork(plan, state, wasImported(ctx, req.Private), bundleIssuedAt(ctx, req.Private))
		plan.copyArchiveFrom(state)
		if work.verify {
			plan.planNewArchive()
		}
		if !work.any() {
			plan.copyJobFrom(state)
			plan.copyLinkFrom(state)
			resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
			return
		}
	}
	jobID := state.JobID.ValueString()
	if r.data.madeAtAnotherAPI(recorded) {
		// Its link can be asked for only where it was made.
		plan.copyJobFrom(state)
		plan.copyLinkFrom(state)
		plan.copyArchiveFrom(state)
		resp.Diagnostics.AddWarning(r.data.placeWarning(state.named(), *recorded, notReadAtAnotherAPI))
		resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
		return
	}
	// On failure the prior state is saved with only what did happen (the
	// job's progress), so that renew_triggers, a due renewal or a verification
	// is planned again rather than recorded as done. The old link stays:
	// still usable until it expires.
	if state.Status.ValueString() != string(client.ExportCompleted) {
		job, err := r.waitForCompletion(ctx, jobID, nil, timeoutUpdate, timeout)
		if job != nil {
			state.setJob(job, r.data)
		}
		if err != nil {
			resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
			resp.Diagnostics.AddError("Static export did not complete", err.Error())
			return
		}
	}
	// A renewed link serves the same files: ModifyPlan left archive_sha256
	// unknown only for an export that no download verified yet.
	plan.copyJobFrom(state)
	plan.LinkRevision = state.LinkRevision // the new link's rises from it
	if !plan.ArchiveSHA256.IsUnknown() {
		plan.copyArchiveFrom(state)
	}
	diags, failure := r.data.deliverBundle(ctx, &plan, bundleWait(jobID, timeoutUpdate, timeout), resp.Private)
	if failure != nil {
		resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
		resp.Diagnostics.AddError(failure.summary, failure.stateOutcome(jobID))
		return
	}
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
}

// Delete forgets the job: the API can neither delete nor cancel exports. A
// job that has not failed and whose link was never delivered (the create
// timed out, was interrupted, or its link failed) is registered for a
// create of the same inputs in this run.
func (r *staticExportResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state staticExportModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	recorded := recordedPlace(ctx, req.Private)
	if resp.Diagnostics.HasError() || r.data == nil || r.data.madeAtAnotherAPI(recorded) {
		return // a job made at another API is not this API's to continue
	}
	unfinished := unfinishedWork{
		work:         resume.Work{ID: state.JobID.ValueString(), Status: state.Status.ValueString(), Revision: state.APIRevision.ValueString()},
		unsuccessful: state.Status.ValueString() == string(client.ExportFailed),
		completed:    !state.BundleURL.IsNull(),
	}
	if !unfinished.resumable() {
		return
	}
	inputs, diags := state.inputs(ctx)
	resp.Diagnostics.Append(diags...)
	if diags.HasError() {
		return
	}
	// The replacement reads the job where it was made.
	r.data.knowExport(state, recorded)
	r.data.registerUnfinished(r.data.exportResumeKey(inputs), unfinished)
}

func (r *staticExportResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	domain, jobID, diags := importTarget(ctx, req)
	resp.Diagnostics.Append(diags...)
	ctx, ok := begin(ctx, r.data, "the export cannot be managed yet", &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, importTimeout)
	defer cancel()
	job, err := r.data.client.GetStaticExport(ctx, jobID)
	if err != nil {
		resp.Diagnostics.AddError("Cannot import the static export", fmt.Sprintf("Reading export job %s failed: %s", jobID, withHint(err)))
		return
	}
	if job.Status == client.ExportFailed {
		resp.Diagnostics.AddError("Cannot import a failed static export",
			fmt.Sprintf("Export job %s failed (%s), so it has no bundle to manage. Leave out the import and apply to start a new export.", jobID, failureReason(job, r.data.sanitizer)))
		return
	}
	model := staticExportModel{
		Domain:        types.StringValue(domain),
		Version:       types.StringNull(),
		Paths:         types.ListNull(types.StringType),
		Triggers:      noTriggers,
		RenewBefore:   types.StringNull(),
		RenewTriggers: noTriggers,
		VerifyArchive: types.BoolValue(true),
		Timeouts:      timeouts.Value{Object: types.ObjectNull(timeoutsAttrTypes)},
	}
	model.setJob(job, r.data)
	model.clearBundle()
	model.clearArchive()
	// Import hands over a usable link at once: the job's files are kept, so a
	// completed export can be bundled without exporting again.
	if job.Status == client.ExportCompleted {
		diags, failure := r.data.deliverBundle(ctx, &model, importBundleWait(jobID), resp.Private)
		if failure != nil {
			resp.Diagnostics.AddError(failure.summary, failure.notImported())
			return
		}
		resp.Diagnostics.Append(diags...)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &model)...)
	resp.Diagnostics.Append(setExportIdentity(ctx, resp.Identity, model)...)
	resp.Diagnostics.Append(markImported(ctx, resp.Private)...)
	resp.Diagnostics.Append(recordPlace(ctx, resp.Private, r.data.exportJobPlace(jobID))...)
}

// ModifyPlan plans a new export in place when triggers change or are not
// known yet (static_export_triggers.go), a link renewal (in place, same
// export) when the link is due, the rest of an unfinished export in place,
// and a replacement of a failed one.
func (r *staticExportResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	if req.State.Raw.IsNull() {
		r.warnPinnedToProject(ctx, req, resp)
		return
	}
	var plan, state staticExportModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}

	if state.Status.ValueString() == string(client.ExportFailed) {
		// A failed job never completes: only a new export can give a bundle.
		// Terraform replaces only for a path whose value changes.
		plan.Status = types.StringUnknown()
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("status"))
		return
	}

	imported := wasImported(ctx, req.Private)
	if change := planTriggers(plan, state, imported); change == triggersNewExport || change == triggersAtApply {
		planExportAgain(&plan, state, change, &resp.Diagnostics)
		resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
		return
	}

	if r.data != nil && r.data.madeAtAnotherAPI(recordedPlace(ctx, req.Private)) {
		return // its link can be asked for only where it was made; Read said so
	}
	issuedAt := bundleIssuedAt(ctx, req.Private)
	warnIfEveryPlanRenews(plan, linkLifetime(state, issuedAt), &resp.Diagnostics)
	work := r.linkWork(plan, state, imported, issuedAt)
	if !work.any() {
		return
	}
	if work.unfinished {
		plan.Status = types.StringUnknown()
		plan.Progress = types.Float64Unknown()
		plan.PageCount = types.Int64Unknown()
		plan.CreatedAt = types.StringUnknown()
	}
	if work.verify {
		plan.planNewArchive()
	}
	plan.planNewLink()
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &plan)...)
}

// linkWork is what an apply does for an export in state that is not
// exported again.
type linkWork struct {
	unfinished bool // wait for the job to complete
	verify     bool // download and verify its archive
	link       bool // ask for a fresh link
}

func (w linkWork) any() bool { return w.unfinished || w.verify || w.link }

// linkWork decides it: the rest of an unfinished export, the verification
// of an archive that no download verified, a renewal that renew_triggers
// asks for or that is due (see renewalDue).
func (r *staticExportResource) linkWork(plan, state staticExportModel, imported bool, issuedAt *time.Time) linkWork {
	unfinished := state.Status.ValueString() != string(client.ExportCompleted)
	unverified := !unfinished && state.ArchiveSHA256.IsNull()
	renewNow := triggersChanged(plan.RenewTriggers, state.RenewTriggers) && !(imported && len(state.RenewTriggers.Elements()) == 0)
	due := state.BundleURL.IsNull() || state.ReadyForRenewal.ValueBool() || renewalDue(plan, r.clock.Now(), issuedAt)
	w := linkWork{unfinished: unfinished, verify: (unfinished || unverified) && plan.verifies(), link: renewNow || due}
	if w.unfinished || w.verify {
		w.link = true
	}
	return w
}

// warnPinnedToProject warns at plan time, when the provider is pinned to the
// project-scoped revision, of the settings that revision does not send.
func (r *staticExportResource) warnPinnedToProject(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.data == nil || r.data.exportRevision != client.RevisionProject {
		return
	}
	var plan staticExportModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if !resp.Diagnostics.HasError() {
		warnWholeProject(&resp.Diagnostics, plan, client.RevisionProject)
	}
}

// warnIfEveryPlanRenews warns when a renew_before the user set is at least
// the link's lifetime: the link is due as soon as it is issued.
func warnIfEveryPlanRenews(plan staticExportModel, lifetime time.Duration, diags *diag.Diagnostics) {
	if plan.RenewBefore.IsNull() || plan.RenewBefore.IsUnknown() || lifetime <= 0 {
		return
	}
	window := renewalWindow(plan, lifetime)
	if window < lifetime {
		return
	}
	diags.AddAttributeWarning(path.Root("renew_before"), "Every plan will renew the link",
		fmt.Sprintf("renew_before = %q is at least the link's lifetime (%s), so the link is due for renewal as soon as it is issued and every plan "+
			"renews it in place. Set renew_before below %s, or leave it unset for the default (%s, capped at half the link's lifetime).",
			plan.RenewBefore.ValueString(), duration.Written(lifetime), duration.Written(lifetime), duration.Written(defaultRenewBefore)))
}
