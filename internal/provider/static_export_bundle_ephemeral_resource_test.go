package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/compare"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/clock/clocktest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

const bundleTypeName = "docsadmin_static_export_bundle"

// ephemeralVersions gates every test that opens the ephemeral resource
// through Terraform.
var ephemeralVersions = []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_10_0)}

// ephemeralStep adapts a step that opens an ephemeral resource to the
// engine. Terraform and OpenTofu 1.12+ leave ephemeral resources out of a
// JSON plan; OpenTofu 1.11 lists each in resource_changes with the action
// "open", on every plan. The testing framework counts any action but
// "no-op" as a change, so under OpenTofu 1.11 its check that the plans after
// apply are empty always fails, although OpenTofu itself reports "No
// changes". There the step expects a non-empty plan instead, and
// expectOnlyEphemeralOpens makes the same assertion on both of those plans,
// setting aside only the opens. (CI runs OpenTofu 1.12; OPENTOFU_VERSION=v1.11.6
// make test-tofu runs the suite on 1.11.)
func ephemeralStep(t *testing.T, step resource.TestStep) resource.TestStep {
	t.Helper()
	if step.ExpectError != nil || !acctest.OpenTofuBefore(t, 12) {
		return step
	}
	step.ExpectNonEmptyPlan = true
	withCheck := func(checks []plancheck.PlanCheck) []plancheck.PlanCheck {
		if slices.Contains(checks, plancheck.PlanCheck(expectOnlyEphemeralOpens{})) {
			return checks
		}
		return append(slices.Clip(checks), expectOnlyEphemeralOpens{})
	}
	step.ConfigPlanChecks.PostApplyPreRefresh = withCheck(step.ConfigPlanChecks.PostApplyPreRefresh)
	step.ConfigPlanChecks.PostApplyPostRefresh = withCheck(step.ConfigPlanChecks.PostApplyPostRefresh)
	return step
}

// expectOnlyEphemeralOpens is plancheck.ExpectEmptyPlan except that an
// ephemeral resource planned to be opened, and nothing else, is not a change.
// Under Terraform, whose JSON plans hold no ephemeral resources, it is
// exactly plancheck.ExpectEmptyPlan.
type expectOnlyEphemeralOpens struct{}

func (expectOnlyEphemeralOpens) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var problems []error
	for output, change := range req.Plan.OutputChanges {
		if !change.Actions.NoOp() {
			problems = append(problems, fmt.Errorf("expected empty plan, but output %q has planned action(s): %v", output, change.Actions))
		}
	}
	for _, rc := range req.Plan.ResourceChanges {
		actions := rc.Change.Actions
		if rc.Mode == "ephemeral" && len(actions) == 1 && actions[0] == "open" {
			continue
		}
		if !actions.NoOp() {
			problems = append(problems, fmt.Errorf("expected empty plan, but %s has planned action(s): %v", rc.Address, actions))
		}
	}
	resp.Error = errors.Join(problems...)
}

// bundleConfig declares the ephemeral resource for jobID; consumers follow.
func bundleConfig(mock *mockapi.Server, jobID, consumers string) string {
	return acctest.BlockConfig(mock, "", `ephemeral "docsadmin_static_export_bundle" "b"`, fmt.Sprintf("  job_id = %q", jobID)) + consumers
}

// echoWholeBundle hands every result of the ephemeral resource to the echo
// provider, whose resources store it in state for the checks to read.
const echoWholeBundle = `
provider "echo" {
  data = ephemeral.docsadmin_static_export_bundle.b
}
`

// completedJob starts an export outside Terraform and completes it at once.
func completedJob(t *testing.T, mock *mockapi.Server) string {
	t.Helper()
	jobID := startExportOutsideTerraform(t, mock, "docs.example.com")
	mock.CompleteExportJob(jobID)
	return jobID
}

func TestStaticExportBundleEphemeral_freshLinkEveryRun(t *testing.T) {
	// Links signed in the same second are identical; the clock moves a
	// minute between steps so that fresh links can be told apart.
	clock := &acctest.ShiftedClock{}
	mock := acctest.NewMock(t, mockapi.Config{Now: clock.Now})
	jobID := completedJob(t, mock)
	linkShape := regexp.MustCompile(`^` + regexp.QuoteMeta(mock.URL+mockapi.BundlePath(jobID)) + `\?.*X-Amz-Signature=[0-9a-f]+`)
	data := func(key string) tfjsonpath.Path { return tfjsonpath.New("data").AtMapKey(key) }

	parallelTest(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersions,
		ProtoV6ProviderFactories: testFactories(Options{Clock: clock}),
		Steps: []resource.TestStep{
			ephemeralStep(t, resource.TestStep{
				Config: bundleConfig(mock, jobID, echoWholeBundle+`resource "echo" "first" {}`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("echo.first", data("job_id"), knownvalue.StringExact(jobID)),
					statecheck.ExpectKnownValue("echo.first", data("bundle_url"), knownvalue.StringRegexp(linkShape)),
					statecheck.ExpectKnownValue("echo.first", data("expires_at"), knownvalue.StringFunc(func(v string) error {
						expiry, err := time.Parse(time.RFC3339, v)
						if err != nil {
							return err
						}
						// acctest.NewMock's links live 24 hours.
						if d := time.Until(expiry); d < 23*time.Hour || d > 24*time.Hour {
							return fmt.Errorf("link expires in %s; want about 24h", d)
						}
						return nil
					})),
					statecheck.ExpectKnownValue("echo.first", data("size_bytes"), knownvalue.Int64Func(func(v int64) error {
						if v <= 0 {
							return fmt.Errorf("size_bytes %d", v)
						}
						return nil
					})),
				},
				// One link per Terraform run: the plan, then the apply.
				Check: resource.ComposeTestCheckFunc(
					acctest.ExpectCount("bundles generated after plan and apply", 2, func() int { return mock.BundlesGenerated(jobID) }),
					acctest.ExpectCount("bundle requests", 2, func() int { return mock.Requests(mockapi.EndpointBundle) }),
					acctest.ExpectCount("exports started", 1, func() int { return mock.ExportsStarted("docs.example.com") }),
				),
			}),
			ephemeralStep(t, resource.TestStep{
				// echo.first keeps what it stored; echo.second stores this run's link.
				PreConfig: func() { clock.Advance(time.Minute) },
				Config: bundleConfig(mock, jobID, echoWholeBundle+`
resource "echo" "first" {}
resource "echo" "second" {}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("echo.second", data("bundle_url"), knownvalue.StringRegexp(linkShape)),
					statecheck.CompareValuePairs("echo.first", data("bundle_url"), "echo.second", data("bundle_url"), compare.ValuesDiffer()),
				},
				// Step 1 also ran two plans after its apply: 4 runs, then this plan and apply.
				Check: acctest.ExpectCount("bundles generated after six runs", 6, func() int { return mock.BundlesGenerated(jobID) }),
			}),
		},
	})
}

func TestStaticExportBundleEphemeral_neverInStateOrPlan(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	jobID := completedJob(t, mock)
	// The echo keeps only what may be stored; the link itself stays ephemeral.
	config := bundleConfig(mock, jobID, `
provider "echo" {
  data = {
    expires_at = ephemeral.docsadmin_static_export_bundle.b.expires_at
    size_bytes = ephemeral.docsadmin_static_export_bundle.b.size_bytes
  }
}

resource "echo" "metadata" {}
`)
	parallelTest(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersions,
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{ephemeralStep(t, resource.TestStep{
			Config: config,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply:             []plancheck.PlanCheck{planHoldsNoLink{}},
				PostApplyPostRefresh: []plancheck.PlanCheck{planHoldsNoLink{}, expectOnlyEphemeralOpens{}},
			},
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("echo.metadata", tfjsonpath.New("data").AtMapKey("expires_at"), knownvalue.NotNull()),
				stateHoldsNoLink{},
			},
			Check: resource.ComposeTestCheckFunc(
				acctest.ExpectCount("bundles generated", 2, func() int { return mock.BundlesGenerated(jobID) }),
				func(s *terraform.State) error {
					for _, module := range s.Modules {
						for name, rs := range module.Resources {
							for key, value := range rs.Primary.Attributes {
								if strings.Contains(value, "X-Amz-Signature") {
									return fmt.Errorf("state holds a link in %s.%s", name, key)
								}
							}
						}
						for name, output := range module.Outputs {
							if strings.Contains(fmt.Sprint(output.Value), "X-Amz-Signature") {
								return fmt.Errorf("state holds a link in output %s", name)
							}
						}
					}
					return nil
				},
			),
		})},
	})
}

// planHoldsNoLink fails when any part of the plan, as JSON, carries a link.
type planHoldsNoLink struct{}

func (planHoldsNoLink) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	raw, err := json.Marshal(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	if strings.Contains(string(raw), "X-Amz-Signature") {
		resp.Error = fmt.Errorf("the plan holds a presigned link")
	}
}

// stateHoldsNoLink fails when any part of the state, as JSON, carries a link.
type stateHoldsNoLink struct{}

func (stateHoldsNoLink) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	raw, err := json.Marshal(req.State)
	if err != nil {
		resp.Error = err
		return
	}
	if strings.Contains(string(raw), "X-Amz-Signature") {
		resp.Error = fmt.Errorf("the state holds a presigned link")
	}
}

func TestStaticExportBundleEphemeral_unusableJobs(t *testing.T) {
	clock := clocktest.NewFakeClock(time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))
	mock := acctest.NewMock(t, mockapi.Config{Now: clock.Now, ExportDuration: 10 * time.Minute})
	mock.SetExportBehavior("broken.example.com", mockapi.ExportBehavior{FailMessage: "rendering error on page guides/intro", Fail: true})
	mock.SetExportBehavior("busy.example.com", mockapi.ExportBehavior{Queue: time.Hour})
	running := startExportOutsideTerraform(t, mock, "docs.example.com")
	failing := startExportOutsideTerraform(t, mock, "broken.example.com")
	queued := startExportOutsideTerraform(t, mock, "busy.example.com")
	clock.Advance(4 * time.Minute)

	step := func(jobID, want string) resource.TestStep {
		return resource.TestStep{
			Config:      bundleConfig(mock, jobID, echoWholeBundle+`resource "echo" "test" {}`),
			ExpectError: regexp.MustCompile(want),
		}
	}
	parallelTest(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersions,
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{
			step(running, `(?s)Export job `+running+` is not completed yet: status running,\s+progress\s+40\.0%;\s+wait\s+for\s+it.*docsadmin_static_export\s+resource`),
			step(queued, `(?s)Export job `+queued+` is not completed yet: status queued`),
			func() resource.TestStep {
				s := step(failing, `(?s)Export job `+failing+` failed: rendering error on page\s+guides/intro`)
				s.PreConfig = func() { clock.Advance(10 * time.Minute) }
				return s
			}(),
			step("se_ffffffffffffffff", `(?s)Static export job not found.*no export job se_ffffffffffffffff.*HTTP 404`),
		},
	})
	if n := mock.Requests(mockapi.EndpointBundle); n != 0 {
		t.Fatalf("the bundle endpoint was called %d times for jobs that cannot be bundled", n)
	}
}

func TestStaticExportBundleEphemeral_conflictRightAfterCompletionIsRetried(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	jobID := completedJob(t, mock)
	mock.InjectFault(mockapi.EndpointBundle,
		mockapi.Fault{Status: 409, Body: `{"error":"bundle is being prepared"}`},
		mockapi.Fault{Status: 409, Body: `{"error":"bundle is being prepared"}`})
	parallelTest(t, resource.TestCase{
		TerraformVersionChecks:   ephemeralVersions,
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{ephemeralStep(t, resource.TestStep{
			Config: bundleConfig(mock, jobID, echoWholeBundle+`resource "echo" "test" {}`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("echo.test", tfjsonpath.New("data").AtMapKey("bundle_url"), knownvalue.StringRegexp(regexp.MustCompile(`X-Amz-Signature=`))),
			},
			Check: resource.ComposeTestCheckFunc(
				acctest.ExpectCount("bundle requests (two answered 409)", 4, func() int { return mock.Requests(mockapi.EndpointBundle) }),
				acctest.ExpectCount("bundles generated", 2, func() int { return mock.BundlesGenerated(jobID) }),
			),
		})},
	})
}

func TestLinkRenewAt(t *testing.T) {
	t.Parallel()
	wall := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	providerNow := wall.Add(48 * time.Hour) // a shifted test clock
	cases := []struct {
		name      string
		remaining time.Duration
		want      time.Duration // from wall; -1 for never
	}{
		{"long link: five minutes early", 2 * time.Hour, 2*time.Hour - 5*time.Minute},
		{"ten-minute link: 10% early", 10 * time.Minute, 9 * time.Minute},
		{"thirty-second link", 30 * time.Second, 27 * time.Second},
		{"expires now", 0, -1},
		{"expired", -time.Minute, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := linkRenewAt(providerNow.Add(tc.remaining), providerNow, wall)
			switch {
			case tc.want < 0 && !got.IsZero():
				t.Fatalf("renew at %s; want never (zero)", got)
			case tc.want >= 0 && !got.Equal(wall.Add(tc.want)):
				t.Fatalf("renew at %s; want %s", got, wall.Add(tc.want))
			}
		})
	}
}

// TestStaticExportBundleEphemeral_openSetsRenewAtAndRenewGeneratesNothing
// drives the protocol directly, as Terraform does, to see RenewAt and call
// Renew, which no test step can reach within a short run.
func TestStaticExportBundleEphemeral_openSetsRenewAtAndRenewGeneratesNothing(t *testing.T) {
	clock := &acctest.ShiftedClock{}
	clock.Advance(48 * time.Hour) // the provider's and the API's clocks run two days ahead
	mock := acctest.NewMock(t, mockapi.Config{LinkTTL: 2 * time.Hour, Now: clock.Now})
	jobID := completedJob(t, mock)
	ctx := t.Context()

	server, err := providerserver.NewProtocol6WithError(NewWithOptions("test", Options{
		Clock: clock, PollPolicy: acctest.QuickPolls, RetryBackoff: acctest.QuickRetries,
	})())()
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || len(schemas.Diagnostics) > 0 {
		t.Fatalf("schema: %v %v", err, schemas.Diagnostics)
	}
	configValue := dynamicValue(t, schemas.Provider.ValueType(), map[string]tftypes.Value{
		"api_key":  tftypes.NewValue(tftypes.String, mock.APIKey),
		"base_url": tftypes.NewValue(tftypes.String, mock.URL),
	})
	configured, err := server.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: configValue, TerraformVersion: "1.11.4"})
	if err != nil || len(configured.Diagnostics) > 0 {
		t.Fatalf("configure: %v %v", err, diagnosticsText(configured.Diagnostics))
	}

	bundleSchema := schemas.EphemeralResourceSchemas[bundleTypeName]
	for _, attribute := range bundleSchema.Block.Attributes {
		if attribute.Name == "bundle_url" && !attribute.Sensitive {
			t.Error("bundle_url is not sensitive: Terraform would show the link in its output")
		}
	}
	bundleType := bundleSchema.ValueType()
	before := time.Now()
	opened, err := server.OpenEphemeralResource(ctx, &tfprotov6.OpenEphemeralResourceRequest{
		TypeName: bundleTypeName,
		Config:   dynamicValue(t, bundleType, map[string]tftypes.Value{"job_id": tftypes.NewValue(tftypes.String, jobID)}),
	})
	after := time.Now()
	if err != nil || len(opened.Diagnostics) > 0 {
		t.Fatalf("open: %v %v", err, diagnosticsText(opened.Diagnostics))
	}
	result := objectAttributes(t, opened.Result, bundleType)
	var link string
	if err := result["bundle_url"].As(&link); err != nil || !strings.Contains(link, "X-Amz-Signature=") {
		t.Fatalf("bundle_url %q (%v)", link, err)
	}
	// 2h links, renewed 5 minutes early, counted on the wall clock Terraform
	// uses, not on the provider's shifted one. The link's X-Amz-Date is
	// truncated to the second.
	earliest, latest := before.Add(2*time.Hour-5*time.Minute-2*time.Second), after.Add(2*time.Hour-5*time.Minute)
	if opened.RenewAt.Before(earliest) || opened.RenewAt.After(latest) {
		t.Fatalf("RenewAt %s; want between %s and %s", opened.RenewAt, earliest, latest)
	}

	requests := mock.TotalRequests()
	renewed, err := server.RenewEphemeralResource(ctx, &tfprotov6.RenewEphemeralResourceRequest{TypeName: bundleTypeName, Private: opened.Private})
	if err != nil || len(renewed.Diagnostics) > 0 {
		t.Fatalf("renew: %v %v", err, diagnosticsText(renewed.Diagnostics))
	}
	if !renewed.RenewAt.IsZero() {
		t.Errorf("Renew asked to be called again at %s; a link cannot be extended, so once is enough", renewed.RenewAt)
	}
	if n := mock.TotalRequests() - requests; n != 0 {
		t.Errorf("Renew made %d API requests; a link it generated could never reach a consumer", n)
	}
	if n := mock.BundlesGenerated(jobID); n != 1 {
		t.Errorf("bundles generated: got %d, want 1 (the one Open made)", n)
	}
}

// dynamicValue builds a configuration of type typ with the given attributes
// set and every other one null.
func dynamicValue(t *testing.T, typ tftypes.Type, set map[string]tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	object, ok := typ.(tftypes.Object)
	if !ok {
		t.Fatalf("%s is not an object type", typ)
	}
	values := map[string]tftypes.Value{}
	for name, attrType := range object.AttributeTypes {
		values[name] = tftypes.NewValue(attrType, nil)
		if v, ok := set[name]; ok {
			values[name] = v
		}
	}
	dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, values))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

func objectAttributes(t *testing.T, dv *tfprotov6.DynamicValue, typ tftypes.Type) map[string]tftypes.Value {
	t.Helper()
	if dv == nil {
		t.Fatal("no result")
	}
	value, err := dv.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	attrs := map[string]tftypes.Value{}
	if err := value.As(&attrs); err != nil {
		t.Fatal(err)
	}
	return attrs
}

func diagnosticsText(diags []*tfprotov6.Diagnostic) string {
	var parts []string
	for _, d := range diags {
		parts = append(parts, d.Summary+": "+d.Detail)
	}
	return strings.Join(parts, "; ")
}
