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

// stringCheckValidator runs one of package validate's checks on a known string.
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

func notBlank(allowed string) stringCheckValidator {
	return stringCheck(allowed, validate.NotBlank)
}

// jobNameValidator keeps spaces at either end: a job made outside the provider may
// have them, and lookups match the exact name.
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

// wholeNumberValidator checks a Number: as an Int64, the framework would fail on a
// non-integer before any validator runs, with an error that blames the provider.
type wholeNumberValidator struct{ lo, hi int64 }

var _ validator.Number = wholeNumberValidator{}

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

func wholeNumber(n types.Number) int64 {
	i, _ := n.ValueBigFloat().Int64()
	return i
}

type streamsValidator struct{}

var _ validator.List = streamsValidator{}

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
