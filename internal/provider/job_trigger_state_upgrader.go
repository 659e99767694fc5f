package provider

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

// UpgradeState gives the version 0 states, from builds without if_running, the
// values they behave as: the framework applies Default to the plan, never to the
// state, and each old trigger would plan an update that fails empty-plan gates.
func (r *jobTriggerResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{
		0: {StateUpgrader: func(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
			var state map[string]json.RawMessage
			if err := json.Unmarshal(req.RawState.JSON, &state); err != nil {
				resp.Diagnostics.AddError("Cannot Read the Trigger's State",
					"The state of this dataintegration_job_trigger, written by an earlier version of the provider, is not a JSON object: "+err.Error())
				return
			}
			if v, ok := state["if_running"]; !ok || string(v) == "null" {
				state["if_running"], _ = json.Marshal(validate.IfRunningFail)
			}
			if v, ok := state["triggers"]; !ok || string(v) == "null" {
				state["triggers"] = json.RawMessage(`{}`)
			}
			upgraded, err := json.Marshal(state)
			if err != nil {
				resp.Diagnostics.AddError("Cannot Read the Trigger's State", err.Error())
				return
			}
			resp.DynamicValue = &tfprotov6.DynamicValue{JSON: upgraded}
		}},
	}
}
