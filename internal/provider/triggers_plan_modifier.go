package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// triggersPlanModifier takes an empty map and no map for the same: a trigger made
// without triggers holds an empty map, so `triggers = {}` later plans nothing.
type triggersPlanModifier struct{}

var _ planmodifier.Map = triggersPlanModifier{}

func (triggersPlanModifier) Description(context.Context) string {
	return "Replaces the resource when the map changes; an empty map and no map are the same."
}

func (m triggersPlanModifier) MarkdownDescription(ctx context.Context) string {
	return m.Description(ctx)
}

func (triggersPlanModifier) PlanModifyMap(_ context.Context, req planmodifier.MapRequest, resp *planmodifier.MapResponse) {
	empty := types.MapValueMust(types.StringType, map[string]attr.Value{})
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	if req.State.Raw.IsNull() {
		if req.ConfigValue.IsNull() {
			resp.PlanValue = empty
		}
		return
	}
	switch {
	case req.ConfigValue.IsUnknown():
		resp.RequiresReplace = true
	case isEmptyMap(req.ConfigValue) && isEmptyMap(req.StateValue):
		if req.ConfigValue.IsNull() {
			resp.PlanValue = req.StateValue
		}
	case !req.ConfigValue.Equal(req.StateValue):
		if req.ConfigValue.IsNull() {
			resp.PlanValue = empty
		}
		resp.RequiresReplace = true
	}
}

func isEmptyMap(v types.Map) bool {
	return v.IsNull() || (!v.IsUnknown() && len(v.Elements()) == 0)
}
