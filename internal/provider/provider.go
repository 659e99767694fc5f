package provider

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

var (
	_ provider.Provider                  = (*dataIntegrationProvider)(nil)
	_ provider.ProviderWithListResources = (*dataIntegrationProvider)(nil)
	_ provider.ProviderWithActions       = (*dataIntegrationProvider)(nil)
)

const allowedAPIKey = "a key that a header can carry as it is: no control character, no space at either end"

var (
	maxRetriesRule            = wholeNumberValidator{lo: 0, hi: 100}
	maxConcurrentRequestsRule = wholeNumberValidator{lo: 1, hi: 64}
)

const retryBudgetText = "5 minutes"

const allowedTimeout = "a positive duration such as \"30s\""

const allowedCACertificate = "one or more PEM certificates (-----BEGIN CERTIFICATE-----), such as file(\"ca.pem\")"

type dataIntegrationProvider struct {
	version string
	getenv  func(string) string
	// configured is what Configure made, for the jobs fast path (jobs_fast_path.go).
	configured atomic.Pointer[providerData]
}

// New returns a constructor of the provider at the given version, reading the
// process's environment.
func New(version string) func() provider.Provider {
	return NewWithEnv(version, os.Getenv)
}

// NewWithEnv is New reading its environment variables, proxy variables
// included, through getenv.
func NewWithEnv(version string, getenv func(string) string) func() provider.Provider {
	return func() provider.Provider {
		return &dataIntegrationProvider{version: version, getenv: getenv}
	}
}

type providerModel struct {
	BaseURL        types.String `tfsdk:"base_url"`
	APIKey         types.String `tfsdk:"api_key"`
	WorkspaceID    types.String `tfsdk:"workspace_id"`
	MaxRetries     types.Number `tfsdk:"max_retries"`
	RequestTimeout types.String `tfsdk:"request_timeout"`
	MaxConcurrent  types.Number `tfsdk:"max_concurrent_requests"`
	CACertificate  types.String `tfsdk:"ca_certificate"`
}

func (p *dataIntegrationProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "dataintegration"
	resp.Version = p.version
}

func (p *dataIntegrationProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Manages the customer-service connector and job executions of a data-integration service, and reads its jobs.",
		Attributes: map[string]schema.Attribute{
			"base_url": schema.StringAttribute{
				MarkdownDescription: "The service's base address, such as `https://api.example.com`. " +
					"An absolute `https` URL, or `http` on a loopback host only (`127.x.x.x`, `[::1]` or `localhost`, as the sandbox uses). Falls back to the `" + providerenv.BaseURL + "` environment variable; one of the two is required.",
				Optional:   true,
				Validators: []validator.String{stringCheck("an absolute https URL, or http on a loopback host", validate.BaseURL)},
			},
			"api_key": schema.StringAttribute{
				MarkdownDescription: "The service's API key, sent as the `Authorization` header exactly as given: " +
					"a scheme prefix goes in the value (`\"Token abc123\"`). No control character (such as the newline `file()` keeps) and no space at either end. " +
					"Falls back to the `" + providerenv.APIKey + "` environment variable; one of the two is required. Sensitive.",
				Optional:   true,
				Sensitive:  true,
				Validators: []validator.String{stringCheck(allowedAPIKey, validate.APIKey)},
			},
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "The default workspace (a UUID, in any letter case: the same UUID in another case is no change) of every resource and data source that takes a `workspace_id`. " +
					"Falls back to the `" + providerenv.WorkspaceID + "` environment variable. Optional: without it, each resource and data source must set its own.",
				Optional:   true,
				Validators: []validator.String{uuidValidator()},
			},
			// A Number, not an Int64: see wholeNumberValidator.
			"max_retries": schema.NumberAttribute{
				MarkdownDescription: "How many times at most a request is retried, to fail sooner than the time limit of retries. " +
					"A whole number from 0 to 100 (`0`: no retry). Unset, the default, the count has no limit: a request is retried until its operation's time limit (`timeouts`, or an action's `timeout`) ends, " +
					"or for " + retryBudgetText + " where it has none (see [Retries](guides/when-the-service-or-the-network-fails.md#retries)).",
				Optional:   true,
				Validators: []validator.Number{maxRetriesRule},
			},
			"max_concurrent_requests": schema.NumberAttribute{
				MarkdownDescription: "How many requests this provider configuration has in flight at most, retries and the pages of long lists included " +
					"(see [Large workspaces](guides/large-workspaces-and-rate-limits.md)). A whole number from 1 to 64, known at plan; defaults to `" + strconv.Itoa(client.DefaultMaxConcurrentRequests) + "`.",
				Optional:   true,
				Validators: []validator.Number{maxConcurrentRequestsRule},
			},
			"ca_certificate": schema.StringAttribute{
				MarkdownDescription: "One or more PEM certificates of the authorities that sign the service's certificate, trusted in addition to the system's: " +
					"for a private CA, or a proxy that re-signs HTTPS, such as `file(\"ca.pem\")`. A private key is refused. " +
					"Falls back to the `" + providerenv.CACertificate + "` environment variable, which holds the PEM itself. " +
					"There is no setting that turns verification off (see [Networks](guides/when-the-service-or-the-network-fails.md#networks)).",
				Optional:   true,
				Validators: []validator.String{stringCheck(allowedCACertificate, validate.CACertificate)},
			},
			"request_timeout": schema.StringAttribute{
				MarkdownDescription: "How long one request may take, as a duration such as `\"30s\"` or `\"2m\"`. Defaults to `\"" + client.DefaultRequestTimeout.String() + "\"`.",
				Optional:            true,
				Validators:          []validator.String{stringCheck(allowedTimeout, validate.Duration)},
			},
		},
	}
}

func (p *dataIntegrationProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var cfg providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	conf := client.Config{
		BaseURL:         p.baseURLSetting(cfg.BaseURL, &resp.Diagnostics),
		APIKey:          p.apiKeySetting(cfg.APIKey, &resp.Diagnostics),
		KeyFrom:         keyFrom(cfg.APIKey),
		CACertificate:   p.caCertificateSetting(cfg.CACertificate, &resp.Diagnostics),
		Version:         p.version,
		Engine:          engineProduct(engineName(), req.TerraformVersion),
		AppendUserAgent: p.getenv(providerenv.AppendUserAgent),
		Getenv:          p.getenv,
		MaxRetries:      wholeNumberSetting(cfg.MaxRetries, "max_retries", maxRetriesRule, client.NoRetryLimit, &resp.Diagnostics),
		RequestTimeout:  requestTimeoutSetting(cfg.RequestTimeout, &resp.Diagnostics),
		MaxConcurrentRequests: wholeNumberSetting(cfg.MaxConcurrent, "max_concurrent_requests", maxConcurrentRequestsRule,
			client.DefaultMaxConcurrentRequests, &resp.Diagnostics),
	}
	workspaceID := p.workspaceSetting(cfg.WorkspaceID, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}

	data := &providerData{workspaceID: workspaceID, secrets: append([]string{conf.APIKey}, proxySecrets(p.getenv)...)}
	conf.Log = func(ctx context.Context, msg string, fields map[string]any) {
		tflog.Debug(data.maskedContext(ctx), msg, fields)
	}
	c, err := client.New(conf)
	if errors.Is(err, client.ErrProxyURL) {
		resp.Diagnostics.AddError("Invalid Proxy Setting", err.Error()+". The provider reads it from the environment the engine runs in.")
		return
	}
	if err != nil {
		at := path.Root("base_url")
		if errors.Is(err, client.ErrNoCertificate) {
			at = path.Root("ca_certificate")
		}
		resp.Diagnostics.AddAttributeError(at, "Invalid Provider Setting", err.Error())
		return
	}
	data.client = c
	p.configured.Store(data)
	resp.DataSourceData = data
	resp.ResourceData = data
	resp.ListResourceData = data
	resp.ActionData = data
}

// A value from the environment skips the schema's validators: each setting's
// reader checks it, with its errors on the attribute.

func (p *dataIntegrationProvider) baseURLSetting(v types.String, diags *diag.Diagnostics) string {
	s := p.requiredSetting(diags, v, "base_url", providerenv.BaseURL)
	if s != "" && v.IsNull() {
		if err := validate.BaseURL(s); err != nil {
			diags.AddAttributeError(path.Root("base_url"), "Invalid Provider Setting", fmt.Sprintf("%s: %s.", providerenv.BaseURL, err))
		}
	}
	return s
}

func (p *dataIntegrationProvider) apiKeySetting(v types.String, diags *diag.Diagnostics) string {
	s := p.requiredSetting(diags, v, "api_key", providerenv.APIKey)
	if s != "" && v.IsNull() {
		if err := validate.APIKey(s); err != nil {
			diags.AddAttributeError(path.Root("api_key"), "Invalid Provider Setting",
				fmt.Sprintf("%s: %s. Allowed: %s.", providerenv.APIKey, err, allowedAPIKey))
		}
	}
	return s
}

// keyFrom names where apiKeySetting read the key.
func keyFrom(v types.String) string {
	if v.IsNull() {
		return "the " + providerenv.APIKey + " environment variable"
	}
	return "api_key in the provider block"
}

func (p *dataIntegrationProvider) caCertificateSetting(v types.String, diags *diag.Diagnostics) string {
	s, _ := p.stringSetting(diags, v, "ca_certificate", providerenv.CACertificate)
	if s == "" {
		return ""
	}
	if v.IsNull() {
		if err := validate.CACertificate(s); err != nil {
			diags.AddAttributeError(path.Root("ca_certificate"), "Invalid Provider Setting",
				fmt.Sprintf("%s: %s. Allowed: %s.", providerenv.CACertificate, err, allowedCACertificate))
		}
	}
	return validate.NormalizePEM(s)
}

func (p *dataIntegrationProvider) workspaceSetting(v types.String, diags *diag.Diagnostics) string {
	s, _ := p.stringSetting(diags, v, "workspace_id", providerenv.WorkspaceID)
	if s != "" && v.IsNull() {
		if err := validate.UUID(s); err != nil {
			diags.AddAttributeError(path.Root("workspace_id"), "Invalid Provider Setting", fmt.Sprintf("%s: %s.", providerenv.WorkspaceID, err))
		}
	}
	return s
}

func wholeNumberSetting(v types.Number, attr string, rule wholeNumberValidator, def int, diags *diag.Diagnostics) int {
	at := path.Root(attr)
	switch {
	case v.IsUnknown():
		addUnknownSetting(diags, at)
		return 0
	case v.IsNull():
		return def
	}
	if err := validate.WholeNumber(v.ValueBigFloat(), rule.lo, rule.hi); err != nil {
		diags.AddAttributeError(at, "Invalid Provider Setting", fmt.Sprintf("%s: %s. Allowed: %s.", at, err, rule.allowed()))
		return 0
	}
	return int(wholeNumber(v))
}

func requestTimeoutSetting(v types.String, diags *diag.Diagnostics) time.Duration {
	at := path.Root("request_timeout")
	switch {
	case v.IsUnknown():
		addUnknownSetting(diags, at)
		return 0
	case v.IsNull():
		return 0
	}
	if err := validate.Duration(v.ValueString()); err != nil {
		diags.AddAttributeError(at, "Invalid Provider Setting", fmt.Sprintf("%s: %s. Allowed: %s.", at, err, allowedTimeout))
		return 0
	}
	d, _ := time.ParseDuration(v.ValueString())
	return d
}

func (p *dataIntegrationProvider) requiredSetting(diags *diag.Diagnostics, v types.String, attr, env string) string {
	s, known := p.stringSetting(diags, v, attr, env)
	if known && s == "" {
		diags.AddAttributeError(path.Root(attr), "Missing Provider Setting",
			fmt.Sprintf("The provider needs %s: set it in the provider configuration or in the %s environment variable.", attr, env))
	}
	return s
}

// stringSetting is the attribute, else its environment variable; known is false,
// after an error, when the attribute is unknown.
func (p *dataIntegrationProvider) stringSetting(diags *diag.Diagnostics, v types.String, attr, env string) (value string, known bool) {
	if v.IsUnknown() {
		diags.AddAttributeError(path.Root(attr), "Unknown Provider Setting",
			fmt.Sprintf("%s must be known when Terraform plans: do not set it from a value computed during apply, or leave it out and use %s.", attr, env))
		return "", false
	}
	if !v.IsNull() {
		return v.ValueString(), true
	}
	return p.getenv(env), true
}

func addUnknownSetting(diags *diag.Diagnostics, at path.Path) {
	diags.AddAttributeError(at, "Unknown Provider Setting",
		fmt.Sprintf("%s must be known when Terraform plans: do not set it from a value computed during apply.", at))
}

func (p *dataIntegrationProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewConnectorResource,
		NewJobTriggerResource,
	}
}

// Engines without actions ignore them and load the provider all the same.
func (p *dataIntegrationProvider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{
		NewRunJobAction,
		NewCancelJobAction,
	}
}

func (p *dataIntegrationProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewJobsDataSource,
		NewJobDataSource,
		NewConnectorDataSource,
		NewConnectorsDataSource,
	}
}

func (p *dataIntegrationProvider) ListResources(_ context.Context) []func() list.ListResource {
	return []func() list.ListResource{
		NewConnectorListResource,
	}
}
