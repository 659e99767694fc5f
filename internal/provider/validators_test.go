package provider

import (
	"context"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestValidators_refuseWithWhatIsAllowed: each validator lets a good value,
// a null and an unknown through, and refuses a bad value on its attribute,
// saying what is allowed.
func TestValidators_refuseWithWhatIsAllowed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	at := path.Root("attr")
	str := func(v validator.String, s types.String) []string {
		var resp validator.StringResponse
		v.ValidateString(ctx, validator.StringRequest{Path: at, ConfigValue: s}, &resp)
		return details(t, resp.Diagnostics.Errors())
	}
	num := func(v validator.Number, n types.Number) []string {
		var resp validator.NumberResponse
		v.ValidateNumber(ctx, validator.NumberRequest{Path: at, ConfigValue: n}, &resp)
		return details(t, resp.Diagnostics.Errors())
	}
	list := func(elems ...attr.Value) []string {
		var resp validator.ListResponse
		streamsValidator{}.ValidateList(ctx, validator.ListRequest{Path: at, ConfigValue: types.ListValueMust(types.StringType, elems)}, &resp)
		return details(t, resp.Diagnostics.Errors())
	}
	for _, c := range []struct {
		name    string
		got     []string
		refused string // a phrase of the refusal; "" when the value passes
	}{
		{"a UUID", str(uuidValidator(), types.StringValue("6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f")), ""},
		{"not a UUID", str(uuidValidator(), types.StringValue("job-1")), "Allowed: a UUID."},
		{"a null UUID", str(uuidValidator(), types.StringNull()), ""},
		{"an unknown UUID", str(uuidValidator(), types.StringUnknown()), ""},
		{"a name", str(nameValidator(), types.StringValue("desk")), ""},
		{"a blank name", str(nameValidator(), types.StringValue("  ")), "Allowed: a name that is not blank"},
		{"a job name with spaces at its ends", str(jobNameValidator(), types.StringValue(" nightly ")), ""},
		{"a blank job name", str(jobNameValidator(), types.StringValue(" ")), "Allowed: a job's exact name"},
		{"a whole number", num(wholeNumberValidator{0, 10}, types.NumberValue(big.NewFloat(10))), ""},
		{"a fraction", num(wholeNumberValidator{0, 10}, types.NumberValue(big.NewFloat(1.5))), "Allowed: a whole number from 0 to 10."},
		{"out of range", num(wholeNumberValidator{0, 10}, types.NumberValue(big.NewFloat(11))), "Allowed: a whole number from 0 to 10."},
		{"any whole number", num(wholeNumberValidator{math.MinInt64, math.MaxInt64}, types.NumberValue(big.NewFloat(0.5))), "Allowed: a whole number."},
		{"an unknown number", num(wholeNumberValidator{0, 10}, types.NumberUnknown()), ""},
		{"streams", list(types.StringValue("tickets")), ""},
		{"a stream twice", list(types.StringValue("tickets"), types.StringValue("tickets")), "Allowed: " + allowedStreams},
		{"a null stream", list(types.StringNull()), "a stream name is null"},
		{"a stream not known yet", list(types.StringUnknown(), types.StringValue("tickets")), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			switch {
			case c.refused == "" && len(c.got) != 0:
				t.Errorf("refused: %q", c.got)
			case c.refused != "" && (len(c.got) != 1 || !strings.Contains(c.got[0], c.refused) || !strings.HasPrefix(c.got[0], "attr: ")):
				t.Errorf("%q, want one refusal of attr with %q", c.got, c.refused)
			}
		})
	}
	if got := wholeNumber(types.NumberValue(big.NewFloat(42))); got != 42 {
		t.Errorf("wholeNumber(42) = %d", got)
	}
}

// details are the details of diags, each error an attribute's.
func details(t *testing.T, diags []diag.Diagnostic) []string {
	t.Helper()
	var out []string
	for _, d := range diags {
		if _, ok := d.(diag.DiagnosticWithPath); !ok {
			t.Errorf("%s is on no attribute", d.Summary())
		}
		out = append(out, d.Detail())
	}
	return out
}
