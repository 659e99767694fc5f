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

// What dataintegration_job_trigger and the dataintegration_run_job action
// share: naming the job, triggering it once, waiting for its running
// execution when asked to, and saying why a trigger failed.

var (
	pathJobID   = path.Root("job_id")
	pathJobName = path.Root("job_name")
)

// Default timeouts of a trigger and of a cancel: room for the client's
// retries, each bounded by the request timeout and Retry-After.
const (
	defaultTriggerTimeout = 5 * time.Minute
	defaultCancelTimeout  = 5 * time.Minute
)

// The waits between two triggers of a job that is running, with
// if_running = "wait": the first, then each twice the one before, up to the
// last. The API has no execution status, so each wait ends with a read of
// the job and a trigger.
const (
	firstRunningWait = 2 * time.Second
	maxRunningWait   = 30 * time.Second
)

// allowedIfRunning says which values if_running accepts.
const allowedIfRunning = `"fail" or "wait"`

// ifRunningDescription describes if_running; bound names what ends the
// wait, such as "`timeout`".
func ifRunningDescription(bound string) string {
	return "What to do when the job is already running: `\"fail\"` (the default) fails at once, naming the job; " +
		"`\"wait\"` waits for its execution to end, reading the job and triggering it again, at first after " +
		shortDuration(firstRunningWait) + " and then less and less often (at most every " + shortDuration(maxRunningWait) + "), until " +
		bound + " ends. A job that becomes inactive or is deleted meanwhile fails at once. " +
		"The service's refusal of a running job changes nothing, so triggering again is safe: the job still runs once."
}

// jobIDByName is the ID of the one job named exactly name; "" after an
// error on job_name when no job or several jobs have it. It is looked up
// when the job is triggered: the name is known at plan time even when the
// job does not exist yet.
func jobIDByName(ctx context.Context, c *client.Client, ws, name string, diags *diag.Diagnostics) string {
	if j := jobByName(ctx, c, ws, name, pathJobName, diags); j != nil {
		return j.ID
	}
	return ""
}

// jobRun is one run of a job that Terraform asks for.
type jobRun struct {
	ws, job string
	force   bool
	// wait is if_running = "wait".
	wait bool
	// waiting, when set, is told each time the run waits for the job's
	// execution to end, with how long it has waited so far.
	waiting func(elapsed time.Duration)
	// again says how to run the job once more after a refusal, as in
	// "apply again"; applying again does not rerun an action.
	again string
}

// How to run the job once more: the trigger resource, whose create failed,
// by applying again; the run action by invoking it, since an apply of the
// same configuration runs it again only where its action_trigger taints
// the resource on failure.
const (
	againApply  = "apply again"
	againInvoke = "invoke the action again with `terraform apply -invoke=action.dataintegration_run_job.<name>` and the apply's variables; " +
		"applying the same configuration again runs it only where the action_trigger that ran it sets `on_failure = taint` (Terraform 1.16 and later)"
)

// stillRunningError is a run that waited for the job's execution to end
// until its context ended: the job was not triggered.
type stillRunningError struct {
	waited time.Duration
	// err is the last refusal: a 409.
	err error
}

func (e *stillRunningError) Error() string {
	return fmt.Sprintf("still running after waiting %s: %v", e.waited.Round(time.Second), e.err)
}

func (e *stillRunningError) Unwrap() error { return e.err }

// trigger asks the service to run the job, with the client's retry rules:
// a trigger is retried only when the service cannot have acted on it. With
// wait, a 409 for a job that is still active (so running) is followed by a
// wait and a new trigger, until the service accepts one or ctx ends. It
// returns the job as last read on a 409, if it was read.
func (r jobRun) trigger(ctx context.Context, c *client.Client) (*client.Job, error) {
	start, pause := time.Now(), firstRunningWait
	for {
		err := c.TriggerJob(ctx, r.ws, r.job, r.force)
		if !r.wait || client.StatusCode(err) != http.StatusConflict {
			return nil, err
		}
		// The 409 changed nothing on the service: a job that is still
		// there and active is running, and may be triggered again.
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

// runningMessage is what a run says while it waits.
func runningMessage(job string, elapsed time.Duration) string {
	return fmt.Sprintf("job %s is running; waiting (%s elapsed)", job, elapsed.Round(time.Second))
}

// triggerLimit is what bounds a trigger: its length, and the setting that
// sets it (timeouts.create, or an action's timeout).
type triggerLimit struct {
	d       time.Duration
	setting string
}

// addTriggerError explains, on the attribute at, why a trigger failed. On a
// 409 it says whether the job is inactive or running, from seen, the job
// read while waiting, or else from reading it once: the service's reason is
// not part of its published API.
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
			// Best effort: when the job cannot be read, the generic reason stays.
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
	case limitEnded(ctx) || client.OutOfTime(err):
		// A trigger in flight when the timeout ended is triggerAnswerLost's;
		// one whose retries would outlast it ends a moment before.
		diags.AddError("Timeout Triggering Job", fmt.Sprintf(
			"The trigger of job %s did not complete within %s (%s): %v. "+
				"The job did not start: the service refused each attempt without doing anything, or none reached it. "+
				"To run it, %s; or raise %s.", job, limit.setting, limit.d, err, r.again, limit.setting))
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		// Answered before the service did anything, retried as long as
		// allowed.
		var e *client.Error
		errors.As(err, &e)
		diags.AddError("Unable to Trigger Job", fmt.Sprintf(
			"%s. The job did not start: the service refused each attempt without doing anything. To run it, %s.", answer(e), r.again))
	default:
		addRequestError(diags, "Unable to Trigger Job", ws, err)
	}
}

// limitEnded tells whether the deadline of ctx, the trigger's limit, has
// passed: known at once, where ctx.Err() follows by a moment, so that a
// request cut off by the limit is never blamed on anything else.
func limitEnded(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// whatEnded says what ended a wait: the limit, or an interruption.
func whatEnded(ctx context.Context, limit triggerLimit) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("%s (%s) ended", limit.setting, limit.d)
	}
	return "Terraform was interrupted"
}

// shortDuration writes d as people do: "5m" and "1h", not "5m0s" and
// "1h0m0s"; "1m30s" stays as it is.
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
