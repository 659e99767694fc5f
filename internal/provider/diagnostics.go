package provider

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// addRequestError adds the diagnostic of a failed request: who refused and
// why, with the status code and the service's own message. summary is used
// when the failure is not one every request shares (authentication, access).
func addRequestError(diags *diag.Diagnostics, summary, workspaceID string, err error) {
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
	msg := serviceMessage(e)
	switch e.StatusCode {
	case 0:
		diags.AddError(summary, answer(e)+".")
	case http.StatusUnauthorized:
		diags.AddError("Authentication Failed", fmt.Sprintf(
			"Authentication failed: the service did not accept the API key (HTTP 401: %s). "+
				"Check api_key in the provider configuration or the %s environment variable.", msg, EnvAPIKey))
	case http.StatusForbidden:
		diags.AddError("Access Denied", fmt.Sprintf(
			"The API key has no access to workspace %s (HTTP 403: %s). Use a key of that workspace, or another workspace_id.", workspaceID, msg))
	default:
		diags.AddError(summary, answer(e))
	}
}

// answer says what the service answered to a failed request, naming the
// request: its status and message, or that no answer came.
func answer(e *client.Error) string {
	switch {
	case e.StatusCode == 0:
		return fmt.Sprintf("No answer from the service to %s %s: %v%s", e.Method, e.Path, e.Err, e.Retries())
	case e.Err != nil:
		return fmt.Sprintf("The service answered HTTP %d to %s %s, but the answer could not be read: %v%s", e.StatusCode, e.Method, e.Path, e.Err, e.Retries())
	default:
		return fmt.Sprintf("The service answered HTTP %d to %s %s: %s%s", e.StatusCode, e.Method, e.Path, serviceMessage(e), e.Retries())
	}
}

// serviceMessage is what the service said in a failed answer.
func serviceMessage(err error) string {
	var e *client.Error
	if !errors.As(err, &e) || e.Message == "" {
		return "the service gave no message"
	}
	return e.Message
}
