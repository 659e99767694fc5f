package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

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
