package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/acctest"
)

// TestJobTrigger_stateUpgrade: a trigger's state of schema version 0, as
// Terraform hands it over, is read with if_running as that version behaved
// ("fail") where it has none, keeps the one it has, and keeps every other
// attribute; job_name, which states before it lack, is null.
func TestJobTrigger_stateUpgrade(t *testing.T) {
	t.Parallel()
	p := serveProto(t)
	const typ = "dataintegration_job_trigger"
	const before = `"id":"7d0c5a44-3b7e-4c7a-9d8e-2f6b1a0c9e11","workspace_id":"11111111-1111-4111-8111-111111111111",` +
		`"job_id":"3F94703E-61D2-5F9C-A8A9-B88DB4DFA78E","force_full_refresh":true,"triggers":{"commit":"abc"},` +
		`"cancel_on_destroy":false,"triggered_at":"2026-11-21T07:00:00Z","timeouts":{"create":"2m","delete":null}`
	cases := []struct {
		name, state, ifRunning, jobName string
	}{
		{"before job_name and if_running (schema version 0)", `{` + before + `}`, "fail", ""},
		{"no triggers (schema version 0)", `{` + strings.Replace(before, `{"commit":"abc"}`, "null", 1) + `}`, "fail", ""},
		{"before if_running (schema version 0)", `{` + before + `,"job_name":null}`, "fail", ""},
		{"if_running null", `{` + before + `,"job_name":"Nightly","if_running":null}`, "fail", "Nightly"},
		{"if_running wait", `{` + before + `,"job_name":null,"if_running":"wait"}`, "wait", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := p.Server.UpgradeResourceState(context.Background(), &tfprotov6.UpgradeResourceStateRequest{
				TypeName: typ, Version: 0, RawState: &tfprotov6.RawState{JSON: []byte(c.state)},
			})
			if err != nil {
				t.Fatal(err)
			}
			acctest.FailOnProto(t, resp.Diagnostics)
			v, err := resp.UpgradedState.Unmarshal(p.Schemas.ResourceSchemas[typ].ValueType())
			if err != nil {
				t.Fatal(err)
			}
			var attrs map[string]tftypes.Value
			if err := v.As(&attrs); err != nil {
				t.Fatal(err)
			}
			str := func(name string) string {
				var s *string
				if err := attrs[name].As(&s); err != nil {
					t.Fatal(err)
				}
				if s == nil {
					return ""
				}
				return *s
			}
			if got := str("if_running"); got != c.ifRunning {
				t.Errorf("if_running = %q, want %q", got, c.ifRunning)
			}
			if got := str("job_name"); got != c.jobName {
				t.Errorf("job_name = %q, want %q", got, c.jobName)
			}
			if got := str("job_id"); got != "3F94703E-61D2-5F9C-A8A9-B88DB4DFA78E" {
				t.Errorf("job_id = %q, not kept as written", got)
			}
			var triggers map[string]tftypes.Value
			want := 1
			if strings.Contains(c.state, `"triggers":null`) {
				want = 0 // and known: the empty map written since
			}
			if err := attrs["triggers"].As(&triggers); err != nil || attrs["triggers"].IsNull() || len(triggers) != want {
				t.Errorf("triggers = %v (%v), want %d elements", attrs["triggers"], err, want)
			}
		})
	}
	if v := p.Schemas.ResourceSchemas[typ].Version; v != 1 {
		t.Errorf("the trigger's schema version is %d: a new version needs an upgrader from the one before (UpgradeState)", v)
	}
}
