package provider

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// TestAccJobTrigger_sameTimeoutsPlanNothing: a timeout written another way,
// "300s" for "5m", plans nothing, and the state keeps the form it has;
// another length of time changes in place. Removing the block plans null:
// Terraform requires that of a null, non-computed attribute.
func TestAccJobTrigger_sameTimeoutsPlanNothing(t *testing.T) {
	e := acctest.NewEnv(t, sandbox.Config{Jobs: sandbox.DefaultJobs, RunDuration: time.Millisecond})
	e.RequireSandbox(t, "count the job's executions")
	jobs, _ := acctest.ActiveJobs(t, e, 1)
	job := jobs[0]
	cfg := func(create string) string {
		return e.ProviderConfig() + acctest.TriggerHCL("test", job, fmt.Sprintf("  timeouts {\n    create = %q\n  }", create))
	}
	create := func(want string) []statecheck.StateCheck {
		return []statecheck.StateCheck{statecheck.ExpectKnownValue(acctest.TriggerAddress, tfjsonpath.New("timeouts").AtMapKey("create"), knownvalue.StringExact(want))}
	}
	one := sandbox.Execution{}
	resource.ParallelTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProtoV6ProviderFactories,
		Steps: []resource.TestStep{
			{Config: cfg("5m"), ConfigStateChecks: create("5m"), Check: e.ExpectExecutions(job, one)},
			{Config: cfg("300s"), ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop), ConfigStateChecks: create("5m")},
			{Config: cfg("5m0s"), ConfigPlanChecks: expectAction(plancheck.ResourceActionNoop), ConfigStateChecks: create("5m")},
			{
				Config:            cfg("10m"),
				ConfigPlanChecks:  expectAction(plancheck.ResourceActionUpdate),
				ConfigStateChecks: create("10m"),
				Check:             e.ExpectExecutions(job, one),
			},
			{
				Config:           e.ProviderConfig() + acctest.TriggerHCL("test", job, ""),
				ConfigPlanChecks: expectAction(plancheck.ResourceActionUpdate),
				Check:            e.ExpectExecutions(job, one),
			},
		},
	})
}

// TestSameDurationPlanModifier_keepsTheStatesForm: a configured duration of
// the state's length plans the state's form; another length, a value that
// is no duration, an unknown or null one, or no state plans the
// configuration's.
func TestSameDurationPlanModifier_keepsTheStatesForm(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name          string
		state, config types.String
		want          types.String
	}{
		{"same length", types.StringValue("5m"), types.StringValue("300s"), types.StringValue("5m")},
		{"same text", types.StringValue("5m"), types.StringValue("5m"), types.StringValue("5m")},
		{"another length", types.StringValue("5m"), types.StringValue("301s"), types.StringValue("301s")},
		{"no duration", types.StringValue("5m"), types.StringValue("five minutes"), types.StringValue("five minutes")},
		{"unknown", types.StringValue("5m"), types.StringUnknown(), types.StringUnknown()},
		{"removed", types.StringValue("5m"), types.StringNull(), types.StringNull()},
		{"no state", types.StringNull(), types.StringValue("300s"), types.StringValue("300s")},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := planmodifier.StringRequest{StateValue: c.state, ConfigValue: c.config, PlanValue: c.config}
			resp := planmodifier.StringResponse{PlanValue: req.PlanValue}
			sameDurationPlanModifier{}.PlanModifyString(context.Background(), req, &resp)
			if !resp.PlanValue.Equal(c.want) {
				t.Errorf("planned %v, want %v", resp.PlanValue, c.want)
			}
		})
	}
}
