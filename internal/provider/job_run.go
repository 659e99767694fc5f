package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

// A run of a job, shared by the trigger resource and the two actions: naming the
// job, triggering it once, waiting while it runs, and saying why a trigger failed.

var (
	pathJobID   = path.Root("job_id")
	pathJobName = path.Root("job_name")
)

// Room for the client's retries, each bounded by the request timeout and Retry-After.
const (
	defaultTriggerTimeout = 5 * time.Minute
	defaultCancelTimeout  = 5 * time.Minute
)

// The waits of if_running = "wait", doubling up to the last. With no execution
// status in the API, each wait ends with a read of the job and a new trigger.
const (
	firstRunningWait = 2 * time.Second
	maxRunningWait   = 30 * time.Second
)

const allowedIfRunning = `"fail" or "wait"`

// ifRunningDescription describes if_running; bound names what ends the wait.
func ifRunningDescription(bound string) string {
	return "What to do when the job is already running: `\"fail\"` (the default) fails at once; " +
		"`\"wait\"` triggers it again, after " +
		shortDuration(firstRunningWait) + " and then less often (at most every " + shortDuration(maxRunningWait) + "), until the service accepts or " +
		bound + " ends. A job that becomes inactive or is deleted meanwhile fails at once. The job still runs once."
}

// jobIDByName resolves name when the job is triggered, not at plan: the job may
// not exist yet. It is "" after an error on job_name.
func jobIDByName(ctx context.Context, c *client.Client, ws, name string, diags *diag.Diagnostics) string {
	if j := jobByName(ctx, c, ws, name, pathJobName, diags); j != nil {
		return j.ID
	}
	return ""
}

type jobRun struct {
	ws, job string
	force   bool
	wait    bool
	// waiting, if set, is told how long the run has waited so far.
	waiting func(elapsed time.Duration)
	again   string
}

// An apply reruns an action only where its action_trigger taints the resource on
// failure, so the action says to invoke it again.
const (
	againApply  = "apply again"
	againInvoke = "invoke the action again with `terraform apply -invoke=action.dataintegration_run_job.<name>` and the apply's variables; " +
		"applying the same configuration again runs it only where the action_trigger that ran it sets `on_failure = taint` (Terraform 1.16 and later)"
)

// stillRunningError is a run whose context ended while it waited: the job was not triggered.
type stillRunningError struct {
	waited time.Duration
	err    error
}

func (e *stillRunningError) Error() string {
	return fmt.Sprintf("still running after waiting %s: %v", e.waited.Round(time.Second), e.err)
}

func (e *stillRunningError) Unwrap() error { return e.err }

// trigger retries a trigger only when the service cannot have acted on it. With
// wait, a 409 for a job still active (so running) is waited out and triggered
// again. It returns the job as last read on a 409, if it was read.
func (r jobRun) trigger(ctx context.Context, c *client.Client) (*client.Job, error) {
	start, pause := time.Now(), firstRunningWait
	for {
		err := c.TriggerJob(ctx, r.ws, r.job, r.force)
		if !r.wait || client.StatusCode(err) != http.StatusConflict {
			return nil, err
		}
		// A 409 changed nothing: a job still there and active is running.
		j, ferr := findJob(ctx, c, r.ws, r.job)
		switch {
		case ferr != nil && ctx.Err() != nil:
			return nil, &stillRunningError{waited: time.Since(start), err: err}
		case ferr != nil, j == nil, !j.IsActive:
			return j, err
		}
		if r.waiting != nil {
			r.waiting(time.Since(start))
		}
		if client.Sleep(ctx, pause) != nil {
			return j, &stillRunningError{waited: time.Since(start), err: err}
		}
		pause = min(2*pause, maxRunningWait)
	}
}

func runningMessage(job string, elapsed time.Duration) string {
	return fmt.Sprintf("job %s is running; waiting (%s elapsed)", job, elapsed.Round(time.Second))
}

// triggerLimit bounds a trigger, and names the setting that sets it.
type triggerLimit struct {
	d       time.Duration
	setting string
}

// addTriggerError says on at why a trigger failed. The service does not publish
// why it answers 409, so the job (seen while waiting, else read once) tells.
func addTriggerError(ctx context.Context, c *client.Client, diags *diag.Diagnostics, at path.Path, r jobRun, seen *client.Job, limit triggerLimit, err error) {
	job, ws := r.job, r.ws
	var still *stillRunningError
	switch status := client.StatusCode(err); {
	case errors.As(err, &still):
		diags.AddAttributeError(at, "Job Still Running", fmt.Sprintf(
			"Job %s was still running when %s, after waiting %s for its execution to end (HTTP 409: %s). "+
				"The job was not triggered by this run. Once its execution has ended, %s; or raise %s, or cancel the execution.",
			job, whatEnded(ctx, limit), still.waited.Round(time.Second), serviceMessage(err), r.again, limit.setting))
	case status == http.StatusNotFound:
		addJobNotFound(diags, at, ws, job, err)
	case status == http.StatusConflict:
		j := seen
		if j == nil {
			// Best effort: unread, the job leaves the generic reason.
			j, _ = findJob(ctx, c, ws, job)
		}
		switch {
		case j != nil && !j.IsActive:
			diags.AddAttributeError(at, "Job Is Inactive", fmt.Sprintf(
				"The service refused to run job %s because it is inactive (HTTP 409: %s). Activate the job in the service, then %s.", job, serviceMessage(err), r.again))
		case j != nil:
			diags.AddAttributeError(at, "Job Already Running", fmt.Sprintf(
				"The service refused to run job %s, which is active, so most likely already running (HTTP 409: %s). "+
					"Once its execution has ended, %s, or cancel it; with if_running = %q, the provider waits for it instead.",
				job, serviceMessage(err), r.again, validate.IfRunningWait))
		default:
			diags.AddAttributeError(at, "Job Not Triggered", fmt.Sprintf(
				"The service refused to run job %s (HTTP 409: %s). A job that is inactive or already running cannot be triggered.", job, serviceMessage(err)))
		}
	case !limitEnded(ctx) && gaveUpEarly(err):
		diags.AddError("Trigger Given Up Before Its Limit", fmt.Sprintf(
			"The trigger of job %s was given up before %s (%s) ended, since the wait before its next attempt would have passed it: %v. "+
				"The job did not start: the service refused each attempt without doing anything. "+
				"To run it, %s; or raise %s.", job, limit.setting, limit.d, err, r.again, limit.setting))
	case limitEnded(ctx) || client.OutOfTime(err):
		// A trigger in flight when the timeout ended is triggerAnswerLost's.
		diags.AddError("Timeout Triggering Job", fmt.Sprintf(
			"The trigger of job %s did not complete within %s (%s): %v. "+
				"The job did not start: the service refused each attempt without doing anything, or none reached it. "+
				"To run it, %s; or raise %s.", job, limit.setting, limit.d, err, r.again, limit.setting))
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		// Refused before the service did anything, and retried as long as allowed.
		var e *client.Error
		errors.As(err, &e)
		diags.AddError("Unable to Trigger Job", fmt.Sprintf(
			"%s. The job did not start: the service refused each attempt without doing anything. To run it, %s.", answer(e), r.again))
	default:
		addRequestError(diags, "Unable to Trigger Job", ws, err)
	}
}

// gaveUpEarly tells a request given up because its next wait would end past
// its limit, rather than cut off by it.
func gaveUpEarly(err error) bool {
	e, ok := errors.AsType[*client.Error](err)
	return ok && e.Limit != "" && e.Wait > 0
}

// limitEnded tells whether the limit of ctx has passed: known at once, where
// ctx.Err() follows a moment later, so no request it cut off is blamed on another cause.
func limitEnded(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

func whatEnded(ctx context.Context, limit triggerLimit) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("%s (%s) ended", limit.setting, limit.d)
	}
	return "Terraform was interrupted"
}

// shortDuration writes "5m", not "5m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// triggerAnswerLost tells whether a failed trigger may have reached the service.
// The API cannot say whether the job started, and a resend could run it twice: the
// trigger counts as done, with a warning ending in then (how to run it again).
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
		"%s. Whether the trigger of job %s was carried out is unknown: the service may have started the run before the answer failed, "+
			"or the run may not have started at all, and the service's API cannot say which. %s", strings.TrimSuffix(lost, "."), job, then))
	return true
}
