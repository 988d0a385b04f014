package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Resource attributes that several resources define alike: one definition
// each, so that their validation and plan behaviour cannot drift apart.
// Each resource still words what the attribute means for it.

// keepFromState plans a computed string that only an operation changes at
// its value in state, not unknown ("known after apply").
func keepFromState() []planmodifier.String {
	return []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
}

// projectIDAttribute is the project a resource works in, defaulting to the
// provider's; a change replaces the resource.
func projectIDAttribute(description string) schema.StringAttribute {
	return schema.StringAttribute{
		MarkdownDescription: description,
		Optional:            true,
		Computed:            true,
		Validators:          []validator.String{projectIDValidator()},
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
		Validators:    []validator.String{exportJobIDValidator()},
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

// useStateInt64Attribute is a computed number that plans take from state
// rather than showing as known only after apply.
func useStateInt64Attribute(description string) schema.Int64Attribute {
	return schema.Int64Attribute{
		MarkdownDescription: description,
		Computed:            true,
		PlanModifiers:       []planmodifier.Int64{int64planmodifier.UseStateForUnknown()},
	}
}

// triggersAttribute is a map of arbitrary strings whose change starts new
// work. An empty map, a module's usual default, means the same as leaving it
// unset: switching between the two plans no change (unsetTriggers), and
// triggersChanged compares them as equal. With replace, a change replaces
// the resource; otherwise the resource's ModifyPlan asks triggersChanged.
func triggersAttribute(description string, replace bool) schema.MapAttribute {
	modifiers := []planmodifier.Map{unsetTriggers{}}
	if replace {
		modifiers = append(modifiers, mapplanmodifier.RequiresReplaceIf(
			func(_ context.Context, req planmodifier.MapRequest, resp *mapplanmodifier.RequiresReplaceIfFuncResponse) {
				resp.RequiresReplace = triggersChanged(req.PlanValue, req.StateValue)
			},
			"A change of triggers replaces the resource; an empty map is the same as none.",
			"A change of `triggers` replaces the resource; an empty map is the same as none."))
	}
	return schema.MapAttribute{
		MarkdownDescription: description + " An empty map (`{}`) is the same as leaving it unset.",
		ElementType:         types.StringType,
		Optional:            true,
		Computed:            true,
		PlanModifiers:       modifiers,
	}
}

// triggersChanged tells whether triggers differ, an empty map being the
// same as none. A map not known yet may differ.
func triggersChanged(planned, prior types.Map) bool {
	if planned.IsUnknown() || prior.IsUnknown() {
		return true
	}
	if len(planned.Elements()) == 0 && len(prior.Elements()) == 0 {
		return false
	}
	return !planned.Equal(prior)
}

// unsetTriggers plans unset triggers as none: the prior value when it held
// none (null or an empty map, so that neither form plans a change), else an
// empty map. Triggers the configuration sets are planned as set.
type unsetTriggers struct{}

func (unsetTriggers) Description(context.Context) string {
	return "Unset triggers are planned as an empty map, or as the prior value when it held none."
}

func (m unsetTriggers) MarkdownDescription(ctx context.Context) string { return m.Description(ctx) }

func (unsetTriggers) PlanModifyMap(_ context.Context, req planmodifier.MapRequest, resp *planmodifier.MapResponse) {
	if !req.ConfigValue.IsNull() {
		return
	}
	if !req.State.Raw.IsNull() && !req.StateValue.IsUnknown() && len(req.StateValue.Elements()) == 0 {
		resp.PlanValue = req.StateValue
		return
	}
	resp.PlanValue = types.MapValueMust(types.StringType, map[string]attr.Value{})
}
