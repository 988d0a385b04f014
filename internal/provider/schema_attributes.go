package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// Resource attributes that several resources define alike: one definition
// each, so that their validation and plan behaviour cannot drift apart.
// Each resource still words what the attribute means for it.

// projectIDAttribute is the project a resource works in, defaulting to the
// provider's; a change replaces the resource.
func projectIDAttribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description,
		Optional:            true,
		Computed:            true,
		Validators:          []validator.String{identifierValidator("project id", "proj_0123456789")},
		PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown(), stringplanmodifier.RequiresReplace()},
	}
}

// completedJobIDAttribute is the export job whose archive a resource takes;
// onChange says what a new job id does (it replaces the resource).
func completedJobIDAttribute(onChange string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: "Identifier of a completed export job, such as `se_3f9a2c1b8e7d4a06`, for example " +
			"`docsadmin_static_export.docs.job_id`. " + onChange,
		Required:      true,
		Validators:    []validator.String{notBlankValidator()},
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
}

// expectedSHA256Attribute is the digest a downloaded archive must have, when
// set; a change replaces the resource.
func expectedSHA256Attribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description,
		Optional:            true,
		Validators:          []validator.String{stringCheck{summary: "Invalid SHA-256", description: "must be 64 hexadecimal digits", check: sha256Problem}},
		PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
}

// keptInt64Attribute is a computed number that plans carry over from state
// rather than showing as known only after apply.
func keptInt64Attribute(description string) schema.Int64Attribute {
	return schema.Int64Attribute{
		MarkdownDescription: description,
		Computed:            true,
		PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
	}
}
