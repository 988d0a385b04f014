package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

// Bad input, one plan per case: every attribute of the provider, the
// resource and both data sources, given a value it must refuse. Each must
// fail at plan time, before any request, with an error that names the
// attribute and says what is accepted, and never repeats a secret. The
// cases of static_export_resource_test.go, provider_config_test.go and
// agent_job_data_source_test.go are not repeated here.

// badInput is one case. config builds the whole configuration around the
// mock, so that a request that should not happen is counted.
type badInput struct {
	name   string
	config func(mock *mockapi.Server) string
	// want lists what the error must say (whitespace-normalised): the
	// attribute, and what is accepted.
	want []string
	// secret is a value in the configuration that must not be repeated.
	secret string
}

// badProvider is a provider block with the given lines, and a data source
// that would read from the mock if the block were accepted.
func badProvider(lines string) func(*mockapi.Server) string {
	return func(mock *mockapi.Server) string {
		return fmt.Sprintf("provider \"docsadmin\" {\n%s\n}\n", strings.ReplaceAll(lines, "MOCK_URL", mock.URL)) + readJobConfig
	}
}

// badProviderSetting is the mock's working provider block plus one setting.
func badProviderSetting(setting string) func(*mockapi.Server) string {
	return func(mock *mockapi.Server) string { return acctest.ProviderConfig(mock, setting) + readJobConfig }
}

func badResource(body string) func(*mockapi.Server) string {
	return func(mock *mockapi.Server) string { return acctest.ExportConfig(mock, body) }
}

func badExportData(body string) func(*mockapi.Server) string {
	return func(mock *mockapi.Server) string {
		return acctest.BlockConfig(mock, "", `data "docsadmin_static_export" "job"`, body)
	}
}

func badAgentJob(body string) func(*mockapi.Server) string {
	return func(mock *mockapi.Server) string { return agentJobConfig(mock, "", body) }
}

const (
	acceptedKey       = "Accepted: <prefix>_<secret>"
	acceptedURL       = "Accepted: an absolute http(s) URL with a host and no query or fragment"
	acceptedDomain    = "Accepted: a hostname only, such as docs.example.com"
	acceptedPath      = "Accepted: a page path relative to the site root"
	acceptedDuration  = "Accepted: a number with a unit"
	acceptedIDShape   = "1 to 128 letters, digits, '.', '_', ':' or '-', starting with a letter or digit"
	acceptedProject   = "Accepted: a project id as shown on the dashboard, such as proj_0123456789: " + acceptedIDShape
	acceptedExportJob = "Accepted: a job id as shown on the dashboard, such as se_3f9a2c1b8e7d4a06: " + acceptedIDShape
	acceptedAgentJob  = "Accepted: a job id as shown on the dashboard, such as aj_3f9a2c1b8e7d4a06: " + acceptedIDShape
)

func badInputs() []badInput {
	longDomain := strings.Repeat(strings.Repeat("a", 63)+".", 4)[:254] // valid labels, one character too many
	longPath := strings.Repeat("guides/", 146) + "abc"                 // 1025 characters
	return []badInput{
		// The provider block.
		{name: "api_key empty", config: badProvider(`  base_url = "MOCK_URL"
  api_key  = ""`), want: []string{"Invalid API key in the provider's api_key", "0 characters", acceptedKey}},
		{name: "api_key with a trailing newline", config: badProvider(`  base_url = "MOCK_URL"
  api_key  = "dsa_live_s3cr3tv4lue\n"`), want: []string{"api_key", "value not shown", acceptedKey}, secret: "s3cr3tv4lue"},
		{name: "api_key pasted with its Bearer scheme", config: badProvider(`  base_url = "MOCK_URL"
  api_key  = "Bearer dsa_live_s3cr3tv4lue"`), want: []string{"api_key", "value not shown", acceptedKey}, secret: "s3cr3tv4lue"},
		{name: "base_url empty", config: badProvider(`  base_url = ""
  api_key  = "dsa_abc"`), want: []string{"base_url =", "no http or https scheme", acceptedURL}},
		{name: "base_url without a scheme", config: badProvider(`  base_url = "api.example.com"
  api_key  = "dsa_abc"`), want: []string{"base_url =", "no http or https scheme", acceptedURL}},
		{name: "base_url of the wrong URL type (websocket)", config: badProvider(`  base_url = "wss://api.example.com"
  api_key  = "dsa_abc"`), want: []string{"base_url =", "no http or https scheme", acceptedURL}},
		{name: "base_url carrying credentials", config: badProvider(`  base_url = "https://admin:hunter2pass@api.example.com"
  api_key  = "dsa_abc"`), want: []string{"base_url", "carries user information", acceptedURL}, secret: "hunter2pass"},
		{name: "base_url with a space in the host", config: badProvider(`  base_url = "https://api example.com"
  api_key  = "dsa_abc"`), want: []string{"base_url =", "is not a URL", acceptedURL}},
		{name: "max_retries negative", config: badProviderSetting(`max_retries = -1`), want: []string{"max_retries", "between 0 and 20"}},
		{name: "max_retries not a number", config: badProviderSetting(`max_retries = "lots"`), want: []string{`"max_retries"`, "a number is required"}},
		{name: "requests_per_second above 1000", config: badProviderSetting(`requests_per_second = 5000`), want: []string{"requests_per_second", "between"}},
		{name: "max_concurrent_requests zero", config: badProviderSetting(`max_concurrent_requests = 0`), want: []string{"max_concurrent_requests", "between 1 and 100"}},
		{name: "project_id blank", config: badProviderSetting(`project_id = "   "`), want: []string{"project_id =", "empty or blank", acceptedProject}},
		{name: "project_id with a slash", config: badProviderSetting(`project_id = "proj/1"`), want: []string{"project_id =", `"proj/1" is not a project id`, acceptedProject}},

		// docsadmin_static_export.
		{name: "domain missing", config: badResource(``), want: []string{`"domain" is required`}},
		{name: "domain longer than 253", config: badResource(`domain = "` + longDomain + `"`), want: []string{"domain =", "254 characters long", "at most 253", acceptedDomain}},
		{name: "domain label longer than 63", config: badResource(`domain = "` + strings.Repeat("d", 64) + `.example.com"`), want: []string{"domain =", "not a valid hostname", "1 to 63", acceptedDomain}},
		{name: "domain with a trailing dot", config: badResource(`domain = "docs.example.com."`), want: []string{"domain =", "not a valid hostname", acceptedDomain}},
		{name: "domain with an underscore", config: badResource(`domain = "docs_site.example.com"`), want: []string{"domain =", "not a valid hostname", acceptedDomain}},
		{name: "domain with non-ASCII letters", config: badResource(`domain = "dóks.example.com"`), want: []string{"domain =", "not a valid hostname", acceptedDomain}},
		{name: "domain with a query", config: badResource(`domain = "docs.example.com?lang=en"`), want: []string{"domain =", "not a valid hostname", acceptedDomain}},
		{name: "domain with user information", config: badResource(`domain = "admin@docs.example.com"`), want: []string{"domain =", "not a valid hostname", acceptedDomain}},
		{name: "paths empty list", config: badResource(`domain = "docs.example.com"
  paths  = []`), want: []string{"paths", "at least 1"}},
		{name: "paths not a list", config: badResource(`domain = "docs.example.com"
  paths  = "index"`), want: []string{`"paths"`, "list of string required"}},
		{name: "path longer than 1024", config: badResource(`domain = "docs.example.com"
  paths  = ["` + longPath + `"]`), want: []string{"paths", "1025 characters long", "at most 1024"}},
		{name: "path with a query", config: badResource(`domain = "docs.example.com"
  paths  = ["guides/intro?lang=en"]`), want: []string{"paths", "contains a query or fragment", acceptedPath}},
		{name: "path with a fragment", config: badResource(`domain = "docs.example.com"
  paths  = ["guides/intro#setup"]`), want: []string{"paths", "contains a query or fragment", acceptedPath}},
		{name: "path starting with a host", config: badResource(`domain = "docs.example.com"
  paths  = ["//cdn.example.com/index"]`), want: []string{"paths", "starts with a host", acceptedPath}},
		{name: "path with a tab", config: badResource(`domain = "docs.example.com"
  paths  = ["guides/\tintro"]`), want: []string{"paths", "contains spaces", acceptedPath}},
		{name: "path of blanks only", config: badResource(`domain = "docs.example.com"
  paths  = ["index", "   "]`), want: []string{"paths", "page path is empty", acceptedPath}},
		{name: "path climbing out with ..", config: badResource(`domain = "docs.example.com"
  paths  = ["guides/../admin"]`), want: []string{"paths", "..", acceptedPath}},
		{name: "triggers with a list value", config: badResource(`domain   = "docs.example.com"
  triggers = { docs_commit = ["a1b2c3"] }`), want: []string{`"triggers"`, `element "docs_commit": string required`}},
		{name: "version blank", config: badResource(`domain  = "docs.example.com"
  version = "  "`), want: []string{"version =", "empty or blank"}},
		{name: "renew_before without a unit", config: badResource(`domain       = "docs.example.com"
  renew_before = "30"`), want: []string{"renew_before =", "not a duration", acceptedDuration}},
		{name: "renew_before empty", config: badResource(`domain       = "docs.example.com"
  renew_before = ""`), want: []string{"renew_before =", "not a duration", acceptedDuration}},
		{name: "timeouts.create not a duration", config: badResource(`domain = "docs.example.com"
  timeouts {
    create = "soon"
  }`), want: []string{"create =", "Time Duration", `"2h45m"`}},
		{name: "timeouts.create negative", config: badResource(`domain = "docs.example.com"
  timeouts {
    create = "-5m"
  }`), want: []string{"create =", `"-5m"`, "Accepted:"}},
		{name: "timeouts.read zero", config: badResource(`domain = "docs.example.com"
  timeouts {
    read = "0s"
  }`), want: []string{"read =", `"0s"`, "Accepted:"}},

		// data.docsadmin_static_export.
		{name: "data static_export job_id missing", config: badExportData(``), want: []string{`"job_id" is required`}},
		{name: "data static_export job_id empty", config: badExportData(`  job_id = ""`), want: []string{"job_id =", "empty or blank", acceptedExportJob}},
		{name: "data static_export job_id with a plus", config: badExportData(`  job_id = "a+b"`), want: []string{"job_id =", `"a+b" is not a job id`, acceptedExportJob}},

		// data.docsadmin_agent_job.
		{name: "data agent_job job_id empty", config: badAgentJob(`  job_id = ""
  project_id = "proj_1"`), want: []string{"job_id =", "empty or blank", acceptedAgentJob}},
		// The one rule of ids (client.ValidID): what an answer may not
		// carry, a configuration may not name.
		{name: "data agent_job job_id with a plus", config: badAgentJob(`  job_id = "a+b"
  project_id = "proj_1"`), want: []string{"job_id =", `"a+b" is not a job id`, acceptedAgentJob}},
		{name: "data agent_job job_id longer than 128", config: badAgentJob(`  job_id = "` + strings.Repeat("j", 129) + `"
  project_id = "proj_1"`), want: []string{"job_id =", "129 characters long", "at most 128", acceptedAgentJob}},
		{name: "data agent_job project_id blank", config: badAgentJob(`  job_id = "job_1"
  project_id = " "`), want: []string{"project_id =", "empty or blank", acceptedProject}},
		{name: "data agent_job timeouts.read negative", config: badAgentJob(`  job_id = "job_1"
  project_id = "proj_1"
  wait = true
  timeouts {
    read = "-1m"
  }`), want: []string{"read =", "below the minimum of 1s", "Accepted: a duration of at least 1s"}},
		{name: "data agent_job timeouts.read without a unit", config: badAgentJob(`  job_id = "job_1"
  project_id = "proj_1"
  timeouts {
    read = "10"
  }`), want: []string{"read =", "Time Duration", `"2h45m"`}},
		{name: "data agent_job wait not a bool", config: badAgentJob(`  job_id = "job_1"
  project_id = "proj_1"
  wait = "maybe"`), want: []string{`"wait"`, "a bool is required"}},
	}
}

func TestBadInput_failsAtPlanTimeNamingTheAttribute(t *testing.T) {
	t.Parallel()
	acctest.RunSubtests(t, badInputs(), func(tc badInput) string { return tc.name }, runBadInput)
}

func runBadInput(t *testing.T, tc badInput) {
	mock := acctest.NewMock(t, mockapi.Config{})
	failure := &stepFailure{step: 1}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		ErrorCheck:               failure.capture,
		Steps: []resource.TestStep{{
			PreConfig: failure.enter(1),
			Config:    tc.config(mock),
			PlanOnly:  true,
		}},
	})
	failure.expect(t, tc.want, []string{mock.APIKey, tc.secret})
	if n := mock.TotalRequests(); n != 0 {
		t.Errorf("the configuration reached the API %d times; it must fail before any request", n)
	}
}
