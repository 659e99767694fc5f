package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// triggerAnswerLost tells whether a failed trigger may have started the job:
// the request reached the service and its answer was lost (a 500, 502 or
// 504, a connection that broke once it was sent, or limit, the operation's
// time, ending while it was in flight). The API cannot tell whether the job
// started (it has no execution status), so the trigger counts as done, with
// a warning that ends with then, what the caller does about it: sending it
// again, now or later, could run the job twice. A trigger runs its job at
// most once.
func triggerAnswerLost(ctx context.Context, diags *diag.Diagnostics, job string, err error, limit triggerLimit, then string) bool {
	e, ok := errors.AsType[*client.Error](err)
	if !ok || !e.MayHaveTakenEffect() {
		return false
	}
	lost := answer(e)
	if e.StatusCode == 0 && limitEnded(ctx) {
		lost = fmt.Sprintf("No answer from the service to %s %s before %s (%s) ran out", e.Method, e.Path, limit.setting, shortDuration(limit.d))
	}
	diags.AddWarning("Job Triggered, Its Answer Lost", fmt.Sprintf(
		"%s. The trigger of job %s reached the service, but its answer was lost, so whether the job started is unknown: "+
			"the service's API cannot say. %s", lost, job, then))
	return true
}
