package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
)

// sameDurationPlanModifier keeps the state's duration for one that means the same,
// such as "300s" for "5m": an update that changes nothing would be noise.
type sameDurationPlanModifier struct{}

var _ planmodifier.String = sameDurationPlanModifier{}

func (sameDurationPlanModifier) Description(context.Context) string {
	return "Keeps the state's duration when the configured one is the same length of time."
}

func (m sameDurationPlanModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (sameDurationPlanModifier) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.StateValue.IsNull() || req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	planned, err1 := time.ParseDuration(req.ConfigValue.ValueString())
	prior, err2 := time.ParseDuration(req.StateValue.ValueString())
	if err1 == nil && err2 == nil && planned == prior {
		resp.PlanValue = req.StateValue
	}
}
