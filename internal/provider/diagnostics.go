package provider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
)

// addRequestError names who refused a request and why; summary serves when the
// failure is not one every request shares (authentication, access).
func addRequestError(diags *diag.Diagnostics, summary, workspaceID string, err error) {
	if errors.Is(err, context.Canceled) {
		diags.AddError(summary, "Interrupted before the service answered: the engine stopped the operation (Ctrl-C, or a SIGTERM to its process). Run the command again.")
		return
	}
	var e *client.Error
	if !errors.As(err, &e) {
		diags.AddError(summary, err.Error())
		return
	}
	if errors.Is(err, client.ErrListChanged) {
		diags.AddError(summary, fmt.Sprintf(
			"The list of %s %s changed while it was read, twice in a row: items were created or deleted meanwhile, so the pages read could miss some or hold some twice. "+
				"Nothing was kept of it; run the command again.", e.Method, e.Path))
		return
	}
	if e.KeyRefused {
		// Once is enough for the cause and the fix; the rest only point there.
		diags.AddError("Authentication Failed", keyRefused+" The error saying that the service did not accept the API key gives the cause and the fix.")
		return
	}
	if rle, ok := errors.AsType[*client.RateLimitError](err); ok {
		limit := cmp.Or(rle.Limit, "the operation's timeout")
		fix := "Raise " + limit + ", or run again"
		if strings.HasPrefix(limit, "the retry budget") || strings.HasPrefix(limit, "the action's limit") {
			// Neither is a setting: only time frees the service's quota.
			fix = "Run again once the service's quota has reset"
		}
		diags.AddError("Rate-Limited by the Service", fmt.Sprintf(
			"%s. The service's rate limit would hold the request longer than its time limit allows. "+
				"%s; other runs with the same API key spend the same quota (guide \"Large workspaces and rate limits\").",
			answer(e), fix))
		return
	}
	if re, ok := errors.AsType[*client.RedirectError](err); ok {
		diags.AddError("Redirect Refused", fmt.Sprintf(
			"The service answered HTTP %d to %s %s, redirecting it to %s. The provider follows no redirect: "+
				"it would carry the API key and the request's body to another address. Nothing was sent there. "+
				"Set base_url (or %s) to the address the service answers at itself.", re.Status, e.Method, e.Path, re.Location, providerenv.BaseURL))
		return
	}
	if ua, ok := errors.AsType[*client.UnexpectedAnswerError](err); ok {
		diags.AddError("Unexpected Answer", fmt.Sprintf(
			"The service answered HTTP %d to %s %s with %s, not %s, which was asked for. Nothing of it was written to the state. "+
				"The service, or a gateway or cache in front of it, mixed up answers: report it to the service's operators, and run again.",
			e.StatusCode, e.Method, e.Path, ua.Answered, ua.Asked))
		return
	}
	msg := serviceMessage(e)
	switch e.StatusCode {
	case 0:
		if !addConnectError(diags, e) {
			diags.AddError(summary, answer(e)+".")
		}
	case http.StatusUnauthorized:
		diags.AddError("Authentication Failed", keyRefusedFirst(e, workspaceID, msg))
	case http.StatusForbidden:
		diags.AddError("Access Denied", fmt.Sprintf(
			"The API key has no access to workspace %s (HTTP 403: %s). Use a key of that workspace, or another workspace_id.", workspaceID, msg))
	default:
		diags.AddError(summary, answer(e))
	}
}

// keyRefusedFirst names the service, the workspace and where the key came
// from: with several provider configurations, the one to fix.
func keyRefusedFirst(e *client.Error, workspaceID, msg string) string {
	service := "the service"
	if e.Host != "" {
		service += " at " + e.Host
	}
	if workspaceID != "" {
		service += ", asked about workspace " + workspaceID + ","
	}
	fix := fmt.Sprintf("Check api_key in the provider configuration or the %s environment variable.", providerenv.APIKey)
	if e.KeyFrom != "" {
		fix = "The key came from " + e.KeyFrom + ": correct it there."
	}
	return fmt.Sprintf("Authentication failed: %s did not accept the API key (HTTP 401: %s). %s", service, msg, fix)
}

const keyRefused = "Not sent: the service refused the API key earlier in this run (HTTP 401), so the provider sends nothing more with it."

// answer names the failed request and what the service answered, if anything.
func answer(e *client.Error) string {
	switch {
	case e.KeyRefused:
		return fmt.Sprintf("%s %s was not sent: the service refused the API key earlier in this run (HTTP 401)", e.Method, e.Path)
	case errors.As(e.Err, new(*client.RateLimitError)):
		return fmt.Sprintf("%s %s was not sent: %v", e.Method, e.Path, e.Err)
	case e.StatusCode == 0:
		return fmt.Sprintf("No answer from the service to %s %s: %v%s", e.Method, e.Path, e.Err, e.Retries())
	case e.Err != nil:
		return fmt.Sprintf("The service answered HTTP %d to %s %s, but the answer could not be read: %v%s", e.StatusCode, e.Method, e.Path, e.Err, e.Retries())
	default:
		return fmt.Sprintf("The service answered HTTP %d to %s %s: %s%s", e.StatusCode, e.Method, e.Path, serviceMessage(e), e.Retries())
	}
}

func serviceMessage(err error) string {
	var e *client.Error
	if !errors.As(err, &e) || e.Message == "" {
		return "the service gave no message"
	}
	return e.Message
}

// addJobNotFound names the attribute the configuration gave the job by, at.
func addJobNotFound(diags *diag.Diagnostics, at path.Path, ws, job string, err error) {
	if at.Equal(pathJobName) {
		diags.AddAttributeError(at, "Job Not Found", fmt.Sprintf(
			"No job has the ID %s, which job_name resolved to, in workspace %s any more (HTTP 404: %s): the job was deleted after it was looked up. "+
				"Check job_name, for example with the dataintegration_jobs data source, then apply again.", job, ws, serviceMessage(err)))
		return
	}
	diags.AddAttributeError(at, "Job Not Found", fmt.Sprintf(
		"No job has the ID %s in workspace %s (HTTP 404: %s). Check job_id, for example with the dataintegration_jobs data source.", job, ws, serviceMessage(err)))
}
