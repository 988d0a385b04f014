package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/docsadmin/terraform-provider-docsadmin/internal/acctest"
	"github.com/docsadmin/terraform-provider-docsadmin/internal/mockapi"
)

const readJobConfig = `
data "docsadmin_agent_job" "job" {
  job_id     = "job_1"
  project_id = "proj_1"
}
`

func TestProvider_settingsFromEnvironment(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SeedAgentJob("proj_1", mockapi.AgentJob{ID: "job_1", Status: "active"})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{Getenv: environment(map[string]string{envBaseURL: mock.URL, envAPIKey: mock.APIKey})}),
		Steps: []resource.TestStep{{
			Config: `provider "docsadmin" {}` + readJobConfig,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("active")),
			},
		}},
	})
}

func TestProvider_attributesWinOverEnvironment(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	mock.SeedAgentJob("proj_1", mockapi.AgentJob{ID: "job_1", Status: "active"})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{Getenv: environment(map[string]string{envBaseURL: "http://127.0.0.1:1", envAPIKey: "dsa_wrong_key"})}),
		Steps: []resource.TestStep{{
			Config: acctest.ProviderConfig(mock, "") + readJobConfig,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(agentJobAddress, tfjsonpath.New("status"), knownvalue.StringExact("active")),
			},
		}},
	})
}

func TestProvider_invalidSettingsFailAtPlanTime(t *testing.T) {
	t.Parallel()
	const secretLookingKey = "not-a-valid-key-s3cr3t"
	cases := []struct {
		name, block, env, want string
	}{
		{"missing key", `base_url = "https://api.example.com"`, "", `Missing API key`},
		{"missing base URL", `api_key = "dsa_abc"`, "", `Missing base URL`},
		{"key without prefix", `
  base_url = "https://api.example.com"
  api_key  = "` + secretLookingKey + `"`, "", `Invalid API key in the provider.s api_key[\s\S]*not\s+shaped\s+like`},
		{"key with spaces from the environment", `base_url = "https://api.example.com"`, "dsa_has space", `Invalid API key in DOCSADMIN_API_KEY`},
		{"relative base URL", `
  base_url = "/v1"
  api_key  = "dsa_abc"`, "", `no http or https scheme`},
		{"ftp base URL", `
  base_url = "ftp://api.example.com"
  api_key  = "dsa_abc"`, "", `no http or https scheme`},
		{"base URL with query", `
  base_url = "https://api.example.com?token=x"
  api_key  = "dsa_abc"`, "", `carries a query`},
		{"base URL with fragment", `
  base_url = "https://api.example.com#top"
  api_key  = "dsa_abc"`, "", `carries a fragment`},
		{"base URL without host", `
  base_url = "https://"
  api_key  = "dsa_abc"`, "", `has no host`},
		{"max_retries out of range", `
  base_url    = "https://api.example.com"
  api_key     = "dsa_abc"
  max_retries = 50`, "", `max_retries`},
		{"zero request rate", `
  base_url            = "https://api.example.com"
  api_key             = "dsa_abc"
  requests_per_second = 0`, "", `requests_per_second`},
		{"empty project", `
  base_url   = "https://api.example.com"
  api_key    = "dsa_abc"
  project_id = ""`, "", `project\s+id\s+is\s+empty\s+or\s+blank`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parallelTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testFactories(Options{Getenv: environment(map[string]string{envAPIKey: tc.env})}),
				Steps: []resource.TestStep{{
					Config:      fmt.Sprintf("provider \"docsadmin\" {\n  %s\n}\n", tc.block) + readJobConfig,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
				ErrorCheck: func(err error) error {
					if err != nil && (strings.Contains(err.Error(), secretLookingKey) || strings.Contains(err.Error(), "has space")) {
						t.Errorf("the error echoes the API key: %v", err)
					}
					return err
				},
			})
		})
	}
}

// A base URL that comes from another resource is unknown during plan; the
// plan must still succeed and the apply use the value once known.
func TestProvider_unknownSettingsAcceptedUntilKnown(t *testing.T) {
	mock := acctest.NewMock(t, mockapi.Config{})
	parallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testFactories(Options{}),
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
resource "terraform_data" "endpoint" {
  input = %q
}

provider "docsadmin" {
  base_url = terraform_data.endpoint.output
  api_key  = %q
}

resource "docsadmin_static_export" "site" {
  domain = "docs.example.com"
}
`, mock.URL, mock.APIKey),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue(acctest.ExportAddress, tfjsonpath.New("status"), knownvalue.StringExact("completed")),
			},
		}},
	})
}

func TestBaseURLProblem(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url         string
		wantProblem bool
		wantWarning bool
	}{
		{"https://api.example.com", false, false},
		{"https://api.example.com/", false, false},
		{"http://127.0.0.1:8080", false, false},
		{"http://localhost:8080", false, false},
		{"http://[::1]:8080", false, false},
		{"http://api.example.com", false, true},
		{"http://10.0.0.5", false, true},
		{"https://user:pw@api.example.com", true, false},
		{"api.example.com", true, false},
		{"https://api.example.com?", true, false},
	}
	for _, tc := range cases {
		problem, warning := baseURLProblem(tc.url)
		if (problem != "") != tc.wantProblem || (warning != "") != tc.wantWarning {
			t.Errorf("baseURLProblem(%q) = problem %q, warning %q; want problem %v, warning %v", tc.url, problem, warning, tc.wantProblem, tc.wantWarning)
		}
		if strings.Contains(problem, "pw@") {
			t.Errorf("baseURLProblem(%q) echoes the password: %q", tc.url, problem)
		}
	}
}

func TestAPIKeyProblemNeverEchoesTheKey(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"dsa_abc123", "dsa_abc_def-ghi", "DSA2_x"} {
		if p := apiKeyProblem(key); p != "" {
			t.Errorf("apiKeyProblem(%q) = %q; want accepted", key, p)
		}
	}
	for _, key := range []string{"nounderscore", "_nosecret", "dsa_", "dsa_with space", "dsa_tab\tkey", "dsa-abc"} {
		p := apiKeyProblem(key)
		if p == "" {
			t.Errorf("apiKeyProblem(%q) accepted a malformed key", key)
		}
		if strings.Contains(p, key) {
			t.Errorf("apiKeyProblem(%q) echoes the key: %q", key, p)
		}
	}
}
