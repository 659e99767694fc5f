package provider

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

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
		if !addConnectError(diags, e) {
			diags.AddError(summary, answer(e)+".")
		}
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

// requireConfigured tells whether data, what a data source received from
// Configure, is there, and adds an error when it is not: the framework
// calls Read even on a provider whose ConfigureProvider never ran, and a
// read without a client must fail, not crash the provider.
func requireConfigured(data *providerData, diags *diag.Diagnostics) bool {
	if data != nil {
		return true
	}
	diags.AddError("Provider Not Configured",
		"The data source was read before the provider was configured. Terraform and OpenTofu configure a provider before they read its data sources: "+
			"this is a bug in the provider or in the engine, please report it.")
	return false
}

// protoDiagnostics are diags as the protocol carries them.
func protoDiagnostics(diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	out := make([]*tfprotov6.Diagnostic, 0, len(diags))
	for _, d := range diags {
		pd := &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityWarning, Summary: d.Summary(), Detail: d.Detail()}
		if d.Severity() == diag.SeverityError {
			pd.Severity = tfprotov6.DiagnosticSeverityError
		}
		if wp, ok := d.(diag.DiagnosticWithPath); ok {
			pd.Attribute = protoPath(wp.Path())
		}
		out = append(out, pd)
	}
	return out
}

// protoPath is p as the protocol carries it; nil for a step it cannot
// carry, which leaves the diagnostic on the whole block.
func protoPath(p path.Path) *tftypes.AttributePath {
	if len(p.Steps()) == 0 {
		return nil
	}
	out := tftypes.NewAttributePath()
	for _, step := range p.Steps() {
		switch st := step.(type) {
		case path.PathStepAttributeName:
			out = out.WithAttributeName(string(st))
		case path.PathStepElementKeyInt:
			out = out.WithElementKeyInt(int(st))
		case path.PathStepElementKeyString:
			out = out.WithElementKeyString(string(st))
		default:
			return nil
		}
	}
	return out
}
