package provider

import (
	"fmt"
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestAccProvider_badSettings: each bad setting fails at plan with a
// diagnostic on the attribute, saying what is allowed, before any request.
func TestAccProvider_badSettings(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 1})
	e.RequireSandbox(t, "count the requests made")
	cases := []struct {
		name, settings string
		want           []string
	}{
		{"http on a public host", `base_url = "http://api.example.com"`, []string{"Invalid Attribute Value", "base_url", "use https, or http only on 127.x.x.x, ::1 or localhost"}},
		{"port out of range", `base_url = "https://api.example.com:99999/api/v1"`, []string{"base_url", "the port 99999 is not from 1 to 65535"}},
		{"empty port", `base_url = "https://api.example.com:/api/v1"`, []string{"base_url", "the port after the colon is empty"}},
		{"no host name", `base_url = "https://../api/v1"`, []string{"base_url", "has a label (a part between dots) that is empty"}},
		{"API key with a newline", `api_key = "secret-key-1\n"`, []string{"api_key", "holds a control character", "Allowed: a key that a header can carry as it is"}},
		{"API key with a space", `api_key = " secret-key-1"`, []string{"api_key", "begins or ends with a space"}},
		{"other scheme", `base_url = "ftp://api.example.com"`, []string{"base_url", `has scheme "ftp"`}},
		{"relative URL", `base_url = "api.example.com"`, []string{"base_url", "is not an absolute URL"}},
		{"query in URL", `base_url = "https://api.example.com/?x=1"`, []string{"base_url", "must not have a query or fragment"}},
		{"credentials in URL", `base_url = "https://me:hunter2@api.example.com"`, []string{"base_url", "must not carry user information"}},
		{"workspace not a UUID", `workspace_id = "my-workspace"`, []string{"workspace_id", `"my-workspace" is not a UUID`}},
		{"timeout not a duration", `request_timeout = "soon"`, []string{"request_timeout", `"soon" is not a duration`}},
		{"timeout not positive", `request_timeout = "0s"`, []string{"request_timeout", "must be positive"}},
		{"too many retries", `max_retries = 101`, []string{"max_retries", "between 0 and 100"}},
		{"retries not whole", `max_retries = 1.5`, []string{"Invalid Attribute Value", "max_retries: 1.5 is not a whole number", "Allowed: a whole number from 0 to 100"}},
		{"negative retries", `max_retries = -1`, []string{"max_retries", "between 0 and 100"}},
		{"no request at a time", `max_concurrent_requests = 0`, []string{"max_concurrent_requests", "between 1 and 64", "Allowed: a whole number from 1 to 64"}},
		{"too many at a time", `max_concurrent_requests = 65`, []string{"max_concurrent_requests", "between 1 and 64"}},
		{"requests at a time not whole", `max_concurrent_requests = 2.5`, []string{"max_concurrent_requests: 2.5 is not a whole number"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			config := fmt.Sprintf(`
provider "dataintegration" {
  %s
}
data "dataintegration_jobs" "test" {}
`, c.settings)
			// Every other setting comes from the environment, and is good.
			t.Setenv(EnvBaseURL, e.BaseURL)
			t.Setenv(EnvAPIKey, e.APIKey)
			t.Setenv(EnvWorkspaceID, e.WorkspaceID)
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: config, ExpectError: acctest.Phrases(c.want...)}},
			})
		})
	}
	e.ExpectNoRequests(t)
}

func TestAccProvider_missingSettings(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 1})
	e.RequireSandbox(t, "count the requests made")
	for _, c := range []struct{ attr, env, settings string }{
		{"base_url", EnvBaseURL, fmt.Sprintf("api_key = %q", e.APIKey)},
		{"api_key", EnvAPIKey, fmt.Sprintf("base_url = %q", e.BaseURL)},
	} {
		t.Run(c.attr, func(t *testing.T) {
			t.Setenv(EnvBaseURL, "")
			t.Setenv(EnvAPIKey, "")
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
				Steps: []resource.TestStep{{
					Config:      fmt.Sprintf("provider \"dataintegration\" {\n  %s\n}\ndata \"dataintegration_jobs\" \"test\" {}\n", c.settings),
					ExpectError: acctest.Phrases("Missing Provider Setting", "The provider needs "+c.attr, c.env+" environment variable"),
				}},
			})
		})
	}
	t.Run("api_key from the environment is checked, and never shown", func(t *testing.T) {
		t.Setenv(EnvBaseURL, e.BaseURL)
		t.Setenv(EnvAPIKey, e.APIKey+"\n")
		t.Setenv(EnvWorkspaceID, e.WorkspaceID)
		check := &acctest.ErrorMatching{Want: acctest.Phrases("Invalid Provider Setting", EnvAPIKey+": the API key holds a control character"), Secrets: []string{e.APIKey}}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			ErrorCheck:               check.Check,
			Steps:                    []resource.TestStep{{Config: `data "dataintegration_jobs" "test" {}`}},
		})
		if !check.Seen {
			t.Error("no error")
		}
	})
	t.Run("base_url from the environment is checked", func(t *testing.T) {
		t.Setenv(EnvBaseURL, "http://api.example.com")
		t.Setenv(EnvAPIKey, e.APIKey)
		t.Setenv(EnvWorkspaceID, e.WorkspaceID)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
			Steps: []resource.TestStep{{
				Config:      `data "dataintegration_jobs" "test" {}`,
				ExpectError: acctest.Phrases("Invalid Provider Setting", EnvBaseURL+": \"http://api.example.com\" uses http"),
			}},
		})
	})
	e.ExpectNoRequests(t)
}

// TestAccProvider_environment: with no provider block at all, the three
// variables configure the provider; a setting in the configuration wins
// over its variable; a trailing slash on base_url works.
func TestAccProvider_environment(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: 3})
	ids := acctest.JobIDs(e.AllJobs(t))
	t.Setenv(EnvBaseURL, e.BaseURL)
	t.Setenv(EnvAPIKey, e.APIKey)
	t.Setenv(EnvWorkspaceID, e.WorkspaceID)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:            `data "dataintegration_jobs" "test" {}`,
				ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIDs(ids)},
			},
			{
				PreConfig: func() {
					// Unreachable: only the configuration's value can work.
					t.Setenv(EnvBaseURL, "http://127.0.0.1:1")
				},
				Config: fmt.Sprintf(`
provider "dataintegration" {
  base_url = "%s/"
}
data "dataintegration_jobs" "test" {}
`, e.BaseURL),
				ConfigStateChecks: []statecheck.StateCheck{acctest.ExpectIDs(ids)},
			},
		},
	})
}
