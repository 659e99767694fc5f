package provider

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

func TestJobTrigger_shortDuration(t *testing.T) {
	t.Parallel()
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

// TestTriggerAnswerLost_saysWhatIsKnown: the warning of an ambiguous answer
// quotes what came back (a status, or nothing), never says that the trigger
// reached the service, says the run may not have started, and ends with how
// to run the job again.
func TestTriggerAnswerLost_saysWhatIsKnown(t *testing.T) {
	t.Parallel()
	limit := triggerLimit{d: time.Minute, setting: "timeouts.create"}
	for name, tc := range map[string]struct {
		err  error
		want string
	}{
		"502": {&client.Error{Method: "POST", Path: "/run/", StatusCode: 502, Message: "502 Bad Gateway", Sent: true},
			"The service answered HTTP 502 to POST /run/: 502 Bad Gateway."},
		"504": {&client.Error{Method: "POST", Path: "/run/", StatusCode: 504, Sent: true}, "The service answered HTTP 504 to POST /run/"},
		"no answer": {&client.Error{Method: "POST", Path: "/run/", Err: io.ErrUnexpectedEOF, Sent: true},
			"No answer from the service to POST /run/: unexpected EOF."},
	} {
		t.Run(name, func(t *testing.T) {
			var diags diag.Diagnostics
			if !triggerAnswerLost(t.Context(), &diags, "job-1", tc.err, limit, "Replace it.") {
				t.Fatal("an ambiguous answer was not taken as lost")
			}
			onlyWarning(t, diags, "Job Triggered, Its Answer Lost", tc.want, "job-1", "may not have started", "Replace it.")
			if d := diags[0].Detail(); strings.Contains(d, "reached the service") || !strings.HasSuffix(d, "Replace it.") {
				t.Errorf("the warning claims more than is known, or does not end with how to run again: %s", d)
			}
		})
	}
	var diags diag.Diagnostics
	if triggerAnswerLost(t.Context(), &diags, "job-1", &client.Error{Method: "POST", StatusCode: 503, Sent: true}, limit, "") || len(diags) != 0 {
		t.Errorf("a 503, which the service answers without acting, was taken as lost: %v", diags)
	}
}

// TestTriggerError_givenUpBeforeItsLimit: a trigger given up because its next
// wait would pass its limit says so, not "Timeout"; one cut off by the limit
// says Timeout.
func TestTriggerError_givenUpBeforeItsLimit(t *testing.T) {
	t.Parallel()
	limit := triggerLimit{d: time.Minute, setting: "timeouts.create"}
	r := jobRun{job: "job-1", ws: "ws-1", again: "apply again"}
	early := &client.Error{Method: "POST", Path: "/run/", StatusCode: 503, Sent: true, Attempts: 2, Tried: 400 * time.Millisecond,
		Limit: "timeouts.create (1m0s)", Wait: 2 * time.Minute}
	var diags diag.Diagnostics
	addTriggerError(t.Context(), nil, &diags, path.Root("job_id"), r, nil, limit, early)
	onlyError(t, diags, "Trigger Given Up Before Its Limit", "given up before timeouts.create (1m0s) ended", "the next attempt would wait 2m0s, past the end of timeouts.create", "The job did not start")
	cut := &client.Error{Method: "POST", Path: "/run/", StatusCode: 503, Sent: true, Attempts: 9, Tried: time.Minute, Limit: "timeouts.create (1m0s)"}
	diags = nil
	addTriggerError(t.Context(), nil, &diags, path.Root("job_id"), r, nil, limit, cut)
	onlyError(t, diags, "Timeout Triggering Job", "did not complete within timeouts.create")
}
