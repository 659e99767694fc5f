package provider

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestJobTrigger_triggersPlan: an empty map and no map are the same triggers; any
// other change replaces the trigger. A new trigger without triggers plans
// an empty map.
func TestJobTrigger_triggersPlan(t *testing.T) {
	t.Parallel()
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

// TestAccJobTrigger_emptyTriggersMeanNone: triggers = {} and no triggers at
// all mean the same, so going from one to the other runs nothing.
func TestAccJobTrigger_emptyTriggersMeanNone(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Millisecond})
	e.RequireSandbox(t, "count the job's executions")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	job := jobs[0]
	cfg := func(body string) string { return e.ProviderConfig() + acctest.TriggerHCL("test", job, body) }
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg(""), Check: e.ExpectExecutions(job, sandbox.Execution{})},
			{Config: cfg("  triggers = {}"), ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop)},
			{Config: cfg(""), ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop)},
			{Config: cfg("  triggers = {}"), ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop)},
			{
				// A value in it is a change: the job runs again.
				Config:           cfg(`  triggers = { commit = "a1b2c3" }`),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionReplace),
				Check:            e.ExpectExecutions(job, sandbox.Execution{}, sandbox.Execution{}),
			},
			{
				Config:           cfg(""),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionReplace),
				Check:            e.ExpectExecutions(job, sandbox.Execution{}, sandbox.Execution{}, sandbox.Execution{}),
			},
		},
	})
}
