package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ resource.ResourceWithIdentity = (*staticExportResource)(nil)

// staticExportIdentity names one export job for Terraform 1.12+: import
// blocks accept it in place of the "<domain>/<job_id>" identifier. It never
// changes for a resource instance: a new job is a new instance.
type staticExportIdentity struct {
	Domain types.String `tfsdk:"domain"`
	JobID  types.String `tfsdk:"job_id"`
}

func (r *staticExportResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"domain": identityschema.StringAttribute{
				RequiredForImport: true,
				Description:       "Hostname of the documentation site, such as `docs.example.com`.",
			},
			"job_id": identityschema.StringAttribute{
				RequiredForImport: true,
				Description:       "Identifier of the export job, such as `se_3f9a2c1b8e7d4a06`.",
			},
		},
	}
}

// setExportIdentity records the identity of the export in m. Every operation
// that writes state calls it, errors included: the framework refuses a state
// without identity.
func setExportIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity, m staticExportModel) diag.Diagnostics {
	if identity == nil || m.JobID.ValueString() == "" {
		return nil
	}
	return identity.Set(ctx, staticExportIdentity{Domain: m.Domain, JobID: m.JobID})
}

// importTarget reads the export an import names, by the identifier
// "<domain>/<job_id>" or by identity, and checks both parts the same way.
func importTarget(ctx context.Context, req resource.ImportStateRequest) (domain, jobID string, diags diag.Diagnostics) {
	summary, domainPart, jobPart := "Invalid import identifier", "The domain part of the identifier", "The job id part of the identifier"
	if req.ID == "" && req.Identity != nil {
		summary, domainPart, jobPart = "Invalid import identity", "The identity's domain", "The identity's job_id"
		var identity staticExportIdentity
		if diags.Append(req.Identity.Get(ctx, &identity)...); diags.HasError() {
			return "", "", diags
		}
		domain, jobID = identity.Domain.ValueString(), identity.JobID.ValueString()
	} else {
		var found bool
		domain, jobID, found = strings.Cut(req.ID, "/")
		if !found || jobID == "" || strings.Contains(jobID, "/") {
			diags.AddError(summary,
				fmt.Sprintf("%q is not of the form <domain>/<job_id>, for example docs.example.com/se_3f9a2c1b8e7d4a06.", req.ID))
			return "", "", diags
		}
	}
	if problem := domainProblem(domain); problem != "" {
		diags.AddError(summary, domainPart+" is not valid. "+problem)
	}
	if problem := identifierProblem("job id", exportJobIDExample, jobID); problem != "" {
		diags.AddError(summary, jobPart+" is not valid. "+problem)
	}
	return domain, jobID, diags
}
