package provider

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

// stringCheckValidator runs one of package validate's checks on a known
// string value and reports on the attribute what is wrong and what is
// allowed.
type stringCheckValidator struct {
	allowed string
	check   func(string) error
}

var _ validator.String = stringCheckValidator{}

func stringCheck(allowed string, check func(string) error) stringCheckValidator {
	return stringCheckValidator{allowed: allowed, check: check}
}

func uuidValidator() stringCheckValidator {
	return stringCheck("a UUID", validate.UUID)
}

func nameValidator() stringCheckValidator {
	return stringCheck("a name that is not blank, without control characters", validate.Name)
}

// notBlank refuses an empty or blank string (spaces or invisible
// characters only), with validate.NotBlank; allowed says what is allowed
// instead.
func notBlank(allowed string) stringCheckValidator {
	return stringCheck(allowed, validate.NotBlank)
}

// jobNameValidator refuses a blank job name, which no lookup could find.
// Spaces at either end are kept: a job made outside this provider may have
// them, and a lookup keeps only the jobs named exactly so (jobsNamed).
func jobNameValidator() stringCheckValidator {
	return notBlank("a job's exact name, with a character that shows")
}

func (v stringCheckValidator) Description(context.Context) string {
	return "value must be " + v.allowed
}

func (v stringCheckValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v stringCheckValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := v.check(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Value",
			fmt.Sprintf("%s: %s. Allowed: %s.", req.Path, err, v.allowed))
	}
}

// wholeNumberValidator checks a Number attribute with validate.WholeNumber.
// The whole-number attributes are Number, not Int64, in the schema: the
// framework turns a non-integer into an Int64 before any validator runs, and
// fails with an error that blames the provider. Both are a number to
// Terraform, so states and configurations are the same.
type wholeNumberValidator struct{ lo, hi int64 }

var _ validator.Number = wholeNumberValidator{}

// allowed says which numbers pass; no bounds are named when there are none
// beyond an int64's.
func (v wholeNumberValidator) allowed() string {
	if v.lo == math.MinInt64 && v.hi == math.MaxInt64 {
		return "a whole number"
	}
	return fmt.Sprintf("a whole number from %d to %d", v.lo, v.hi)
}

func (v wholeNumberValidator) Description(context.Context) string {
	return "value must be " + v.allowed()
}

func (v wholeNumberValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v wholeNumberValidator) ValidateNumber(_ context.Context, req validator.NumberRequest, resp *validator.NumberResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := validate.WholeNumber(req.ConfigValue.ValueBigFloat(), v.lo, v.hi); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Value",
			fmt.Sprintf("%s: %s. Allowed: %s.", req.Path, err, v.allowed()))
	}
}

// wholeNumber is a Number's value as an int64, once wholeNumberValidator
// has passed it.
func wholeNumber(n types.Number) int64 {
	i, _ := n.ValueBigFloat().Int64()
	return i
}

// streamsValidator checks a list of stream names with validate.Streams and
// names the allowed streams when it fails.
type streamsValidator struct{}

var _ validator.List = streamsValidator{}

// allowedStreams says which stream names a list may hold.
var allowedStreams = "the names " + strings.Join(validate.CustomerServiceStreams, ", ") + ", each at most once"

func (streamsValidator) Description(context.Context) string {
	return "value must be a non-empty list of " + allowedStreams
}

func (v streamsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (streamsValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	names := make([]string, 0, len(req.ConfigValue.Elements()))
	for _, e := range req.ConfigValue.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsUnknown() {
			return // checked again once known
		}
		if s.IsNull() {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Value",
				fmt.Sprintf("%s: a stream name is null. Allowed: %s.", req.Path, allowedStreams))
			return
		}
		names = append(names, s.ValueString())
	}
	if err := validate.Streams(names); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Attribute Value",
			fmt.Sprintf("%s: %s. Allowed: %s.", req.Path, err, allowedStreams))
	}
}
