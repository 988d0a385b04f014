package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

func triggerMap(kv ...string) types.Map {
	elems := map[string]attr.Value{}
	for i := 0; i+1 < len(kv); i += 2 {
		elems[kv[i]] = types.StringValue(kv[i+1])
	}
	return types.MapValueMust(types.StringType, elems)
}

func TestTriggersChanged(t *testing.T) {
	null, empty, unknown := types.MapNull(types.StringType), triggerMap(), types.MapUnknown(types.StringType)
	for _, tc := range []struct {
		name           string
		planned, prior types.Map
		want           bool
	}{
		{"unset and unset", null, null, false},
		{"unset to empty", empty, null, false},
		{"empty to unset", null, empty, false},
		{"empty and empty", empty, empty, false},
		{"same values", triggerMap("a", "1"), triggerMap("a", "1"), false},
		{"unset to a value", triggerMap("a", "1"), null, true},
		{"a value to empty", empty, triggerMap("a", "1"), true},
		{"a value changed", triggerMap("a", "2"), triggerMap("a", "1"), true},
		{"not known yet", unknown, empty, true},
	} {
		if got := triggersChanged(tc.planned, tc.prior); got != tc.want {
			t.Errorf("%s: triggersChanged = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Unset triggers plan as the prior value when it held none, whichever form
// it has (a state written without triggers has null), and as an empty map
// otherwise; set triggers plan as set.
func TestUnsetTriggersPlan(t *testing.T) {
	null, empty := types.MapNull(types.StringType), triggerMap()
	existing := tfsdk.State{Raw: tftypes.NewValue(tftypes.Object{}, map[string]tftypes.Value{})}
	created := tfsdk.State{Raw: tftypes.NewValue(tftypes.Object{}, nil)}
	for _, tc := range []struct {
		name          string
		state         tfsdk.State
		config, prior types.Map
		want          types.Map
	}{
		{"create, unset", created, null, null, empty},
		{"unset, prior null", existing, null, null, null},
		{"unset, prior empty", existing, null, empty, empty},
		{"unset, prior with values", existing, null, triggerMap("a", "1"), empty},
		{"set empty", existing, empty, null, empty},
		{"set values", existing, triggerMap("a", "1"), empty, triggerMap("a", "1")},
	} {
		req := planmodifier.MapRequest{State: tc.state, ConfigValue: tc.config, StateValue: tc.prior, PlanValue: tc.config}
		if tc.config.IsNull() {
			req.PlanValue = types.MapUnknown(types.StringType) // a computed attribute left unset
		}
		resp := &planmodifier.MapResponse{PlanValue: req.PlanValue}
		unsetTriggers{}.PlanModifyMap(t.Context(), req, resp)
		if !resp.PlanValue.Equal(tc.want) {
			t.Errorf("%s: planned %s, want %s", tc.name, resp.PlanValue, tc.want)
		}
	}
}

// triggers = {} (a module's usual default) is accepted and means the same as
// leaving triggers unset: switching between the two plans no change and
// starts no work, while a real value still does.
func TestTriggers_emptyMapIsUnset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, address string
		config        func(mock *mockapi.Server, triggers string) string
		setUp         func(mock *mockapi.Server)
		started       func(mock *mockapi.Server) int
		// change is the plan action a change of triggers takes.
		change plancheck.ResourceActionType
	}{
		{
			name: "agent job", address: agentJobResourceAddress,
			config: func(mock *mockapi.Server, triggers string) string {
				return acctest.BlockConfig(mock, `project_id = "proj_1"`, `resource "docsadmin_agent_job" "docs"`,
					fmt.Sprintf("  prompt = %q\n%s", releasePrompt("1.0.0"), triggers))
			},
			started: func(mock *mockapi.Server) int { return len(mock.AgentJobsCreated("proj_1")) },
			change:  plancheck.ResourceActionReplace,
		},
		{
			name: "deployment", address: deploymentAddress,
			config: func(mock *mockapi.Server, triggers string) string {
				return acctest.BlockConfig(mock, `project_id = "proj_1"`, `resource "docsadmin_deployment" "docs"`, triggers)
			},
			setUp:   func(mock *mockapi.Server) { mock.PublishCommit(deployProject, "main", commitV1) },
			started: func(mock *mockapi.Server) int { return len(mock.DeploymentIDs(deployProject)) },
			change:  plancheck.ResourceActionUpdate,
		},
		{
			name: "preview deployment", address: previewAddress,
			config: func(mock *mockapi.Server, triggers string) string {
				return acctest.BlockConfig(mock, `project_id = "proj_1"`, `resource "docsadmin_preview_deployment" "nav"`,
					fmt.Sprintf("  branch = %q\n%s", previewBranch, triggers))
			},
			setUp:   func(mock *mockapi.Server) { mock.PublishCommit(deployProject, previewBranch, commitV1) },
			started: func(mock *mockapi.Server) int { return len(mock.DeploymentIDs(deployProject)) },
			change:  plancheck.ResourceActionUpdate,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each row owns its mock
			mock := newDeployMock(t, mockapi.Config{})
			if tc.setUp != nil {
				tc.setUp(mock)
			}
			started := func(want int) resource.TestCheckFunc {
				return func(*terraform.State) error {
					if n := tc.started(mock); n != want {
						return fmt.Errorf("%d started, want %d", n, want)
					}
					return nil
				}
			}
			noChange := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{}),
				Steps: []resource.TestStep{
					{Config: tc.config(mock, "  triggers = {}"), Check: started(1)},
					{Config: tc.config(mock, ""), ConfigPlanChecks: noChange, Check: started(1)},
					{Config: tc.config(mock, "  triggers = {}"), ConfigPlanChecks: noChange, Check: started(1)},
					{
						Config:           tc.config(mock, `  triggers = { release = "1.1.0" }`),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tc.address, tc.change)}},
						Check:            started(2),
					},
					{
						Config:           tc.config(mock, ""),
						ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(tc.address, tc.change)}},
						Check:            started(3),
					},
					{Config: tc.config(mock, "  triggers = {}"), ConfigPlanChecks: noChange, Check: started(3)},
				},
			})
		})
	}
}
