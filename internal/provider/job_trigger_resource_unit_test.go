package provider

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

func triggerState(ws, jobID string, cancelOnDestroy bool) jobTriggerModel {
	return jobTriggerModel{
		ID: types.StringValue("5f0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10"), WorkspaceID: types.StringValue(ws),
		JobID: types.StringValue(jobID), ForceFullRefresh: types.BoolValue(false), Triggers: types.MapNull(types.StringType),
		CancelOnDestroy: types.BoolValue(cancelOnDestroy), TriggeredAt: types.StringValue("2026-11-21T09:30:00Z"),
		Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "delete": types.StringType})},
	}
}

// onlyWarning checks that diags hold one warning with the summary and the
// phrases, and no error.
func onlyWarning(t *testing.T, diags diag.Diagnostics, summary string, phrases ...string) {
	t.Helper()
	if len(diags) != 1 || diags[0].Severity() != diag.SeverityWarning || diags[0].Summary() != summary {
		t.Fatalf("diagnostics %v, want one warning %q", diags, summary)
	}
	for _, p := range phrases {
		if !strings.Contains(diags[0].Detail(), p) {
			t.Errorf("warning %q lacks %q", diags[0].Detail(), p)
		}
	}
}

func TestJobTriggerDestroyAfterTheExecutionEnded(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 1, RunDuration: time.Millisecond}, sandbox.DefaultAPIKey)
	job := srv.Jobs(data.workspaceID)[0].ID
	if err := data.client.TriggerJob(t.Context(), data.workspaceID, job, false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	r := configured(t, NewJobTriggerResource(), data)
	onlyWarning(t, destroy(t, r, triggerState(data.workspaceID, job, true)),
		"Execution Already Ended", "Job "+job+" had no running execution to cancel (HTTP 409: no running execution)")
	if ex := srv.Executions(data.workspaceID, job); len(ex) != 1 || ex[0].Status != sandbox.StatusSucceeded {
		t.Errorf("executions %+v", ex)
	}
}

func TestJobTriggerDestroyOfAJobGone(t *testing.T) {
	_, data := unitSandbox(t, sandbox.Config{Jobs: 1}, sandbox.DefaultAPIKey)
	r := configured(t, NewJobTriggerResource(), data)
	const gone = "0f0f0f0f-0000-4000-8000-00000000abcd"
	onlyWarning(t, destroy(t, r, triggerState(data.workspaceID, gone, true)),
		"Job Not Found", "Job "+gone+" is not in workspace "+data.workspaceID+" any more (HTTP 404")
}

func TestJobTriggerDestroyWithoutCancelMakesNoRequest(t *testing.T) {
	srv, data := unitSandbox(t, sandbox.Config{Jobs: 1, RunDuration: time.Hour}, sandbox.DefaultAPIKey)
	job := srv.Jobs(data.workspaceID)[0].ID
	if err := data.client.TriggerJob(t.Context(), data.workspaceID, job, false); err != nil {
		t.Fatal(err)
	}
	before := srv.Stats().Requests
	r := configured(t, NewJobTriggerResource(), data)
	failOn(t, destroy(t, r, triggerState(data.workspaceID, job, false)))
	if n := srv.Stats().Requests - before; n != 0 {
		t.Errorf("destroy without cancel_on_destroy sent %d requests", n)
	}
	if ex := srv.Executions(data.workspaceID, job); ex[0].Status != sandbox.StatusRunning {
		t.Errorf("the execution is %s, want it still running", ex[0].Status)
	}
}

func TestJobTriggerDestroyRefused(t *testing.T) {
	_, data := unitSandbox(t, sandbox.Config{Jobs: 1}, "not-the-key")
	r := configured(t, NewJobTriggerResource(), data)
	diags := destroy(t, r, triggerState(data.workspaceID, "0f0f0f0f-0000-4000-8000-00000000abcd", true))
	if !diags.HasError() || diags[0].Summary() != "Authentication Failed" {
		t.Errorf("diagnostics %v, want Authentication Failed", diags)
	}
}

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		5 * time.Minute:              "5m",
		10 * time.Minute:             "10m",
		30 * time.Second:             "30s",
		10 * time.Second:             "10s",
		90 * time.Second:             "1m30s",
		time.Hour:                    "1h",
		20 * time.Hour:               "20h",
		2*time.Hour + 30*time.Minute: "2h30m",
		90 * time.Minute:             "1h30m",
		time.Hour + 10*time.Second:   "1h0m10s",
		1500 * time.Millisecond:      "1.5s",
	} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestTriggersPlan: an empty map and no map are the same triggers; any
// other change replaces the trigger. A new trigger without triggers plans
// an empty map.
func TestTriggersPlan(t *testing.T) {
	null := types.MapNull(types.StringType)
	empty := types.MapValueMust(types.StringType, map[string]attr.Value{})
	one := types.MapValueMust(types.StringType, map[string]attr.Value{"commit": types.StringValue("a1b2c3")})
	unknown := types.MapUnknown(types.StringType)
	for _, c := range []struct {
		name          string
		create        bool
		state, config types.Map
		wantPlan      types.Map
		wantReplace   bool
	}{
		{name: "create without", create: true, state: null, config: null, wantPlan: empty},
		{name: "create with empty", create: true, state: null, config: empty, wantPlan: empty},
		{name: "create with one", create: true, state: null, config: one, wantPlan: one},
		{name: "none to empty", state: empty, config: empty, wantPlan: empty},
		{name: "empty to none", state: empty, config: null, wantPlan: empty},
		{name: "old state none, config none", state: null, config: null, wantPlan: null},
		{name: "old state none, config empty", state: null, config: empty, wantPlan: empty},
		{name: "same", state: one, config: one, wantPlan: one},
		{name: "added", state: empty, config: one, wantPlan: one, wantReplace: true},
		{name: "removed", state: one, config: null, wantPlan: empty, wantReplace: true},
		{name: "emptied", state: one, config: empty, wantPlan: empty, wantReplace: true},
		{name: "unknown", state: one, config: unknown, wantPlan: unknown, wantReplace: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := planmodifier.MapRequest{ConfigValue: c.config, StateValue: c.state, PlanValue: c.config,
				Plan:  tfsdk.Plan{Raw: tftypes.NewValue(tftypes.Object{}, map[string]tftypes.Value{})},
				State: tfsdk.State{Raw: tftypes.NewValue(tftypes.Object{}, map[string]tftypes.Value{})}}
			if c.create {
				req.State.Raw = tftypes.NewValue(tftypes.Object{}, nil)
			}
			resp := planmodifier.MapResponse{PlanValue: req.PlanValue}
			triggersPlanModifier{}.PlanModifyMap(context.Background(), req, &resp)
			if !resp.PlanValue.Equal(c.wantPlan) || resp.RequiresReplace != c.wantReplace {
				t.Errorf("planned %v, replace %v; want %v, replace %v", resp.PlanValue, resp.RequiresReplace, c.wantPlan, c.wantReplace)
			}
		})
	}
}

// TestJobTriggerTimeoutsOneErrorEach: a malformed duration in the timeouts
// block gets one error, the provider's, on the attribute and saying what is
// allowed; not also the block's own, which names no attribute and offers
// "-1.5h" as valid. The configuration is validated as Terraform asks for it,
// over protocol 6.
func TestJobTriggerTimeoutsOneErrorEach(t *testing.T) {
	p := serveProto(t)
	srv := p.Server
	typ, ok := p.Schemas.ResourceSchemas["dataintegration_job_trigger"].ValueType().(tftypes.Object)
	if !ok {
		t.Fatal("the trigger's schema is not an object")
	}
	for _, attrName := range []string{"create", "delete"} {
		for _, bad := range []string{"", "abc", " 5m", "5", "1d", "0s", "-1.5h"} {
			diags := validateTrigger(t, srv, typ, map[string]string{attrName: bad})
			want := "timeouts." + attrName
			if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError ||
				!strings.Contains(diags[0].Detail, want) || !strings.Contains(diags[0].Detail, "a positive duration") {
				t.Errorf("%s = %q: got %s, want one error on %s asking for a positive duration", attrName, bad, protoDiags(diags), want)
			}
		}
	}
	if diags := validateTrigger(t, srv, typ, map[string]string{"create": "5m", "delete": "1h30m"}); len(diags) != 0 {
		t.Errorf("valid timeouts: got %s, want none", protoDiags(diags))
	}
}

// validateTrigger validates a trigger of a job_id with the given timeouts.
func validateTrigger(t *testing.T, srv tfprotov6.ProviderServer, typ tftypes.Object, durations map[string]string) []*tfprotov6.Diagnostic {
	t.Helper()
	tt, ok := typ.AttributeTypes["timeouts"].(tftypes.Object)
	if !ok {
		t.Fatal("timeouts is not an object")
	}
	vals := acctest.ObjectAttrs(typ, map[string]any{"job_id": "5f0c6f5e-3f7c-4c55-9d55-1c6f3e0d2a10", "timeouts": acctest.ObjectAttrs(tt, durations)})
	cfg, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, vals))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{
		TypeName: "dataintegration_job_trigger", Config: &cfg,
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Diagnostics
}

func protoDiags(diags []*tfprotov6.Diagnostic) string {
	parts := make([]string, len(diags))
	for i, d := range diags {
		parts[i] = fmt.Sprintf("[%s: %s]", d.Summary, d.Detail)
	}
	return strconv.Itoa(len(diags)) + " diagnostics " + strings.Join(parts, " ")
}
