package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/numbervalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/resourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/providerenv"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

var (
	_ resource.ResourceWithConfigure        = (*connectorResource)(nil)
	_ resource.ResourceWithConfigValidators = (*connectorResource)(nil)
	_ resource.ResourceWithValidateConfig   = (*connectorResource)(nil)
	_ resource.ResourceWithModifyPlan       = (*connectorResource)(nil)
	_ resource.ResourceWithImportState      = (*connectorResource)(nil)
	_ resource.ResourceWithIdentity         = (*connectorResource)(nil)
)

func NewConnectorResource() resource.Resource { return &connectorResource{} }

type connectorResource struct {
	data *providerData
}

type connectorResourceModel struct {
	connectorModel
	Token          types.String `tfsdk:"token"`
	TokenWO        types.String `tfsdk:"token_wo"`
	TokenWOVersion types.Number `tfsdk:"token_wo_version"`
}

func (r *connectorResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_customer_service_connector"
}

func (r *connectorResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The configuration of a customer-service connector: the platform account it reads, the token it reads with, and the streams it loads. " +
			"Creating one also makes the service create the connector's job, named after the connector (find it with `dataintegration_jobs` and `data_source`). " +
			"The service never returns the token, so a token changed outside Terraform cannot be detected.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				MarkdownDescription: connectorDescriptions["id"],
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"workspace_id": schema.StringAttribute{
				MarkdownDescription: "The workspace (a UUID) that holds the connector. Defaults to the provider's `workspace_id`; one of the two is required. " +
					"Changing it replaces the connector; a value known only at apply does not (see Workspaces); the same UUID in another letter case is no change.",
				Optional:   true,
				Computed:   true,
				Validators: []validator.String{uuidValidator()},
			},
			"name": schema.StringAttribute{
				MarkdownDescription: connectorDescriptions["name"],
				Required:            true,
				Validators:          []validator.String{stringvalidator.UTF8LengthAtMost(255), nameValidator()},
			},
			"url": schema.StringAttribute{
				MarkdownDescription: connectorDescriptions["url"],
				Required:            true,
				Validators:          []validator.String{stringCheck("an https URL of a host only, such as https://acme.example.com", validate.AccountURL)},
			},
			"agent_email": schema.StringAttribute{
				MarkdownDescription: connectorDescriptions["agent_email"],
				Required:            true,
				Validators:          []validator.String{stringCheck("an e-mail address such as agent@example.com", validate.Email)},
			},
			"streams": schema.ListAttribute{
				MarkdownDescription: connectorDescriptions["streams"] + " Their order is no change. " +
					"At least one. Defaults to all 15.",
				ElementType: types.StringType,
				Optional:    true,
				Computed:    true,
				Default:     listdefault.StaticValue(stringList(validate.CustomerServiceStreams)),
				Validators:  []validator.List{streamsValidator{}},
			},
			"connector_name": schema.StringAttribute{
				MarkdownDescription: connectorDescriptions["connector_name"],
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"created_at": schema.StringAttribute{
				MarkdownDescription: connectorDescriptions["created_at"],
				Computed:            true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"updated_at": schema.StringAttribute{
				MarkdownDescription: connectorDescriptions["updated_at"],
				Computed:            true,
			},
		},
	}
	maps.Copy(resp.Schema.Attributes, connectorTokenAttributes())
}

func connectorTokenAttributes() map[string]schema.Attribute {
	tokenRule := "At most one of `token` and `token_wo`, not empty; one is required to create a connector. " +
		"Leaving both out of an existing (imported) connector leaves the service's token as it is."
	return map[string]schema.Attribute{
		"token": schema.StringAttribute{
			MarkdownDescription: "The platform's API key, which the connector authenticates with. Sensitive: kept in the state, hidden in plans. " +
				tokenRule + " It is sent when the connector is created and whenever its value changes.",
			Optional:   true,
			Sensitive:  true,
			Validators: []validator.String{stringCheck("a token that is not empty", validate.Token)},
		},
		"token_wo": schema.StringAttribute{
			MarkdownDescription: "The platform's API key, write-only: never in the state or the plan (Terraform or OpenTofu 1.11+). " + tokenRule +
				" It is sent when the connector is created and whenever `token_wo_version`, which it requires, changes.",
			Optional:  true,
			WriteOnly: true,
			Sensitive: true,
			Validators: []validator.String{
				stringCheck("a token that is not empty", validate.Token),
				stringvalidator.AlsoRequires(path.MatchRoot("token_wo_version")),
			},
		},
		// A Number, not an Int64: see wholeNumberValidator.
		"token_wo_version": schema.NumberAttribute{
			MarkdownDescription: "A whole number to change whenever `token_wo` holds a new token: a change sends `token_wo` to the service. Only with `token_wo`.",
			Optional:            true,
			Validators: []validator.Number{
				numbervalidator.AlsoRequires(path.MatchRoot("token_wo")),
				wholeNumberValidator{lo: math.MinInt64, hi: math.MaxInt64},
			},
		},
	}
}

func (r *connectorResource) ConfigValidators(context.Context) []resource.ConfigValidator {
	return []resource.ConfigValidator{
		// Both may be left out of an imported connector (see planToken), as
		// -generate-config-out writes it.
		resourcevalidator.Conflicting(path.MatchRoot("token"), path.MatchRoot("token_wo")),
	}
}

// ValidateConfig suggests token_wo where the engine has write-only attributes, on
// the resource: on the token attribute, the engine would print a literal token.
// Only the validate walk runs before Configure (r.data nil): once per command.
func (r *connectorResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if !req.ClientCapabilities.WriteOnlyAttributesAllowed || r.data != nil {
		return
	}
	var token, wo types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("token"), &token)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("token_wo"), &wo)...)
	if token.IsNull() || !wo.IsNull() || (!token.IsUnknown() && validate.Token(token.ValueString()) != nil) {
		return
	}
	resp.Diagnostics.AddWarning("Prefer token_wo",
		"token is kept in the state and in saved plans. This engine supports write-only attributes: "+
			"token_wo with token_wo_version keeps the token out of both. Replace token with token_wo, "+
			"set token_wo_version to 1, and raise it whenever the token changes.")
}

func (r *connectorResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = configuredData(req.ProviderData, &resp.Diagnostics)
}

func (r *connectorResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.data == nil {
		return
	}
	if !r.holdPlanned(ctx, req, resp) {
		return
	}
	r.data.planWorkspace(ctx, req, resp, true)
	planToken(ctx, req, resp)
	planStreams(ctx, req, resp)
	keepUpdatedAt(ctx, req, resp)
	r.data.checkPlannedWorkspace(ctx, req, resp)
	r.checkPlannedName(ctx, req, resp)
}

// holdPlanned fails the plan of a second instance of this walk holding the
// prior state's connector, before the apply deletes it under the first.
func (r *connectorResource) holdPlanned(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) bool {
	if req.State.Raw.IsNull() {
		return true
	}
	var id, ws types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &ws)...)
	if resp.Diagnostics.HasError() || id.ValueString() == "" {
		return !resp.Diagnostics.HasError()
	}
	if r.data.holds.hold(id.ValueString(), ws.ValueString(), true) {
		addHeldTwice(&resp.Diagnostics, id.ValueString(), ws.ValueString())
		return false
	}
	return true
}

// checkPlannedName fails the plan of a create, a replacement's included, whose
// name the workspace holds already, or another create of this plan gives:
// the apply would delete the replaced connector before its create failed. A
// connector another instance of this plan holds is left to the apply's checks:
// it is this instance's own, replaced in place, or one the apply deletes first.
func (r *connectorResource) checkPlannedName(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || resp.Diagnostics.HasError() {
		return
	}
	var ws, name types.String
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("workspace_id"), &ws)...)
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	if resp.Diagnostics.HasError() || ws.IsUnknown() || ws.IsNull() || name.IsUnknown() || name.IsNull() {
		return
	}
	w, n := ws.ValueString(), name.ValueString()
	if r.data.holds.create(w, n) {
		addNamePlannedTwice(&resp.Diagnostics, w, n)
		return
	}
	found, err := r.data.plannedNamed(ctx, w, n)
	if err != nil {
		addRequestError(&resp.Diagnostics, "Unable to List Connectors", w, err)
		return
	}
	for _, c := range found {
		if r.data.holds.holds(c.ID, w) {
			continue
		}
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Connector Name Taken", fmt.Sprintf(
			"Workspace %s already holds a connector named %q: %s, created at %s. This plan creates a connector of that name there "+
				"(a new one, or a replacement moved from another workspace, deleted from there first), and the create would fail: "+
				"two connectors of one name would make two jobs of that name. Nothing was changed. "+
				"If it is the one this resource stands for, adopt it with an import block:\n\n%s\n\n"+
				"Otherwise give this resource another name, or delete that connector. "+
				"If it is this resource's own, replaced (tainted, or -replace) by a plan with -refresh=false, plan again without -refresh=false. "+
				"A destroy plans this create too, in the refresh it starts with: to destroy the rest meanwhile, destroy with -refresh=false.",
			w, n, c.ID, c.CreatedAt, importBlock(w, c.ID)))
		return
	}
}

// planToken requires a token only to create: an imported connector keeps the
// service's token until the configuration gives one. A replacement creates,
// and is named as the cause: an import into another workspace is one.
func planToken(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	replacing := !req.State.Raw.IsNull() && resp.RequiresReplace.Contains(path.Root("workspace_id"))
	if !req.State.Raw.IsNull() && !replacing || req.Plan.Raw.IsNull() {
		return
	}
	var token, wo types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("token"), &token)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("token_wo"), &wo)...)
	if resp.Diagnostics.HasError() || !token.IsNull() || !wo.IsNull() {
		return
	}
	if !replacing {
		resp.Diagnostics.AddAttributeError(path.Root("token"), "Missing Token",
			"A new connector needs the platform's token: set token, or token_wo with token_wo_version. "+
				"Only a connector that already exists (imported) may leave both out.")
		return
	}
	var id, from, to types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("workspace_id"), &from)...)
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("workspace_id"), &to)...)
	why := fmt.Sprintf("workspace_id changes from %s to %s", from.ValueString(), to.ValueString())
	if to.IsUnknown() {
		why = fmt.Sprintf("workspace_id, now %s, is known only at apply", from.ValueString())
	}
	resp.Diagnostics.AddAttributeError(path.Root("token"), "Missing Token", fmt.Sprintf(
		"This plan replaces connector %s: %s, and a connector cannot move, so the apply would delete it (and its job) and create another, "+
			"which needs the platform's token. To keep the connector, set workspace_id = %q (after an import, the workspace it was imported from); "+
			"to replace it, set token, or token_wo with token_wo_version.", id.ValueString(), why, from.ValueString()))
}

// keepUpdatedAt keeps updated_at known when the framework plans it unknown for a
// difference ModifyPlan finds meaningless (a UUID's case, the streams' order).
func keepUpdatedAt(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() || resp.Diagnostics.HasError() {
		return
	}
	var prior types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("updated_at"), &prior)...)
	trial := resp.Plan
	resp.Diagnostics.Append(trial.SetAttribute(ctx, path.Root("updated_at"), prior)...)
	// token_wo is never in the state; the framework drops it from the plan.
	resp.Diagnostics.Append(trial.SetAttribute(ctx, path.Root("token_wo"), types.StringNull())...)
	if !resp.Diagnostics.HasError() && trial.Raw.Equal(req.State.Raw) {
		resp.Plan = trial
	}
}

// planStreams keeps the state's streams when only their order changed: it means
// nothing to the service.
func planStreams(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var planned, prior types.List
	resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root("streams"), &planned)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("streams"), &prior)...)
	if resp.Diagnostics.HasError() || !knownStrings(planned) || !knownStrings(prior) || planned.Equal(prior) {
		return
	}
	if a, b := listStrings(planned), listStrings(prior); len(a) == len(b) && sameElements(a, b) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("streams"), prior)...)
	}
}

func knownStrings(l types.List) bool {
	if l.IsNull() || l.IsUnknown() {
		return false
	}
	for _, e := range l.Elements() {
		if e.IsNull() || e.IsUnknown() {
			return false
		}
	}
	return true
}

func (r *connectorResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var plan connectorResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	token := r.token(ctx, plan, req.Config, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	ws := plan.WorkspaceID.ValueString()
	spec := client.ConnectorSpec{
		Name:       plan.Name.ValueString(),
		URL:        plan.URL.ValueString(),
		Token:      token,
		AgentEmail: plan.AgentEmail.ValueString(),
		Streams:    listStrings(plan.Streams),
	}
	name := r.data.names.lock(ws, spec.Name)
	defer name.mu.Unlock()
	defer r.data.checks.begin(ws)()
	if !r.nameFree(ctx, &resp.Diagnostics, ws, name) {
		return
	}
	start := time.Now()
	c, err := r.data.client.CreateConnector(ctx, ws, spec)
	if err != nil {
		if c = r.createOrAdopt(ctx, &resp.Diagnostics, ws, spec, start, err); c == nil {
			return
		}
	}
	r.data.checks.made(ws)
	if !r.outlivesRivals(ctx, &resp.Diagnostics, ws, c) {
		return
	}
	name.made = append(name.made, c.ID)
	plan.fill(c)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	setConnectorIdentity(ctx, nil, resp.Identity, plan.connectorModel, &resp.Diagnostics)
}

func (r *connectorResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state connectorResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws, id := state.WorkspaceID.ValueString(), state.ID.ValueString()
	if r.data.holds.hold(id, ws, false) {
		addHeldTwice(&resp.Diagnostics, id, ws)
		return
	}
	c, err := r.data.client.ReadConnector(ctx, ws, id)
	switch {
	case client.IsNotFound(err):
		if !r.confirmGone(ctx, &resp.Diagnostics, "Unable to Read Connector", state) {
			return
		}
		if state.Name.IsNull() {
			// Only an import leaves a state without a name: say where the connector was looked for.
			resp.Diagnostics.AddError("Connector Not Found", fmt.Sprintf(
				"Workspace %s holds no connector %s (HTTP 404). If the connector is in another workspace, give that workspace: "+
					"workspace_id in the import block's identity, or an import ID of <workspace_id>/<connector_id>, "+
					"and the same workspace_id in the resource's configuration. "+
					"Without one, the connector is looked for in the provider's workspace_id.", ws, id))
			return
		}
		// The framework wants an identity even of a resource gone.
		setConnectorIdentity(ctx, req.Identity, resp.Identity, state.connectorModel, &resp.Diagnostics)
		resp.State.RemoveResource(ctx)
		return
	case err != nil:
		addRequestError(&resp.Diagnostics, "Unable to Read Connector", ws, err)
		return
	}
	if !checkConnectorKind(c, &resp.Diagnostics) {
		return
	}
	state.fill(c)
	resp.Diagnostics.Append(resp.State.Set(ctx, &state)...)
	setConnectorIdentity(ctx, req.Identity, resp.Identity, state.connectorModel, &resp.Diagnostics)
}

func (r *connectorResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state connectorResourceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Every planned key is sent, so a saved plan applied after a change out of band
	// still leaves the service as planned.
	u := client.ConnectorUpdate{
		Name:       plan.Name.ValueStringPointer(),
		URL:        plan.URL.ValueStringPointer(),
		AgentEmail: plan.AgentEmail.ValueStringPointer(),
		Streams:    listStrings(plan.Streams),
	}
	// The token is sent only when it or token_wo_version changed.
	if !plan.Token.Equal(state.Token) || !plan.TokenWOVersion.Equal(state.TokenWOVersion) {
		token := r.token(ctx, plan, req.Config, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		if token != "" {
			u.Token = &token
		}
	}

	ws := state.WorkspaceID.ValueString()
	c, err := r.data.client.UpdateConnector(ctx, ws, state.ID.ValueString(), u)
	switch {
	case client.IsNotFound(err):
		if r.confirmGone(ctx, &resp.Diagnostics, "Unable to Update Connector", state) {
			resp.Diagnostics.AddError("Connector Deleted Outside Terraform", fmt.Sprintf(
				"Connector %s (%q) was deleted from workspace %s outside Terraform since the plan was made (HTTP 404 to the update, and the workspace's list no longer holds it). "+
					"Nothing was changed: run terraform plan again, and read what it plans from the workspace as it is now.",
				state.ID.ValueString(), state.Name.ValueString(), ws))
		}
		return
	case err != nil:
		addRequestError(&resp.Diagnostics, "Unable to Update Connector", ws, err)
		return
	}
	plan.fill(c)
	resp.Diagnostics.Append(resp.State.Set(ctx, &plan)...)
	setConnectorIdentity(ctx, req.Identity, resp.Identity, plan.connectorModel, &resp.Diagnostics)
}

func (r *connectorResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state connectorResourceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ws := state.WorkspaceID.ValueString()
	err := r.data.client.DeleteConnector(ctx, ws, state.ID.ValueString())
	switch {
	case err == nil:
	case client.IsNotFound(err):
		r.confirmGone(ctx, &resp.Diagnostics, "Unable to Delete Connector", state)
	default:
		addRequestError(&resp.Diagnostics, "Unable to Delete Connector", ws, err)
	}
}

// confirmGone believes a 404 only when the workspace's list lacks the connector:
// a wrong base_url or workspace answers 404 too, for every connector of the state.
func (r *connectorResource) confirmGone(ctx context.Context, diags *diag.Diagnostics, summary string, state connectorResourceModel) bool {
	ws, id := state.WorkspaceID.ValueString(), state.ID.ValueString()
	f := client.ConnectorFilter{Name: state.Name.ValueStringPointer()} // a name keeps the list short; none after an import
	listed, err := r.data.client.ListConnectors(ctx, ws, f)
	if err != nil {
		why := err.Error()
		if e, ok := errors.AsType[*client.Error](err); ok {
			why = answer(e)
		}
		diags.AddError(summary, fmt.Sprintf(
			"The service answered 404 (not found) for connector %s, and listing the connectors of workspace %s failed too. %s. "+
				"The connector is kept in the state. Check base_url (and its path, if it has one) and workspace_id.", id, ws, strings.TrimSuffix(why, ".")))
		return false
	}
	for _, c := range listed {
		if sameID(c.ID, id) {
			diags.AddError(summary, fmt.Sprintf(
				"The service answered 404 (not found) for connector %s, yet lists it in workspace %s. "+
					"The connector is kept in the state; try again.", id, ws))
			return false
		}
	}
	return true
}

// ImportState takes "<workspace_id>/<connector_id>", "<connector_id>", or an identity.
func (r *connectorResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var ws, id, noWorkspace, instead string
	if req.ID == "" && req.Identity != nil {
		var idy connectorIdentityModel
		if resp.Diagnostics.Append(req.Identity.Get(ctx, &idy)...); resp.Diagnostics.HasError() {
			return
		}
		ws, id = idy.WorkspaceID.ValueString(), idy.ID.ValueString()
		// A workspace_id given blank is refused, not taken as left out.
		if (!idy.WorkspaceID.IsNull() && validate.UUID(ws) != nil) || validate.UUID(id) != nil {
			got := fmt.Sprintf("id %q and no workspace_id", id)
			if !idy.WorkspaceID.IsNull() {
				got = fmt.Sprintf("id %q and workspace_id %q", id, ws)
			}
			resp.Diagnostics.AddError("Invalid Import Identity",
				"Expected an identity of id and, optionally, workspace_id (left out, the provider's), each a UUID; got "+got+".")
			return
		}
		noWorkspace = fmt.Sprintf("The import identity of connector %s names no workspace_id", id)
		instead = "Give workspace_id in the import block's identity"
	} else {
		var ok bool
		ws, id, ok = strings.Cut(req.ID, "/")
		if !ok {
			ws, id = "", req.ID
		}
		if (ok && validate.UUID(ws) != nil) || validate.UUID(id) != nil {
			resp.Diagnostics.AddError("Unexpected Format of ID",
				fmt.Sprintf("Expected <workspace_id>/<connector_id>, or <connector_id> alone when the provider has a workspace_id, each a UUID; got %q.", req.ID))
			return
		}
		noWorkspace = fmt.Sprintf("The import ID %q names no workspace", req.ID)
		instead = fmt.Sprintf("Import by <workspace_id>/%s instead", id)
	}
	if ws == "" {
		if r.data == nil || r.data.workspaceID == "" {
			// The resource's own workspace_id is not known at import.
			resp.Diagnostics.AddError("Missing Workspace", fmt.Sprintf(
				"%s, and the provider has no workspace_id. %s, with the ID of the workspace that holds the connector, "+
					"or set workspace_id in the provider configuration or the %s environment variable.", noWorkspace, instead, providerenv.WorkspaceID))
			return
		}
		ws = r.data.workspaceID
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("workspace_id"), ws)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	setConnectorIdentity(ctx, nil, resp.Identity, connectorModel{ID: types.StringValue(id), WorkspaceID: types.StringValue(ws)}, &resp.Diagnostics)
}

type connectorIdentityModel struct {
	ID          types.String `tfsdk:"id"`
	WorkspaceID types.String `tfsdk:"workspace_id"`
}

func (r *connectorResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"id": identityschema.StringAttribute{
				Description:       connectorDescriptions["id"] + " Required to import.",
				RequiredForImport: true,
			},
			"workspace_id": identityschema.StringAttribute{
				Description:       "The workspace (a UUID) that holds the connector. Optional to import: the provider's `workspace_id` when left out.",
				OptionalForImport: true,
			},
		},
	}
}

// setConnectorIdentity keeps a prior identity's letter case, as the state's IDs.
func setConnectorIdentity(ctx context.Context, prior, out *tfsdk.ResourceIdentity, m connectorModel, diags *diag.Diagnostics) {
	if out == nil {
		return
	}
	want := connectorIdentityModel{ID: m.ID, WorkspaceID: m.WorkspaceID}
	if prior != nil && !prior.Raw.IsFullyNull() {
		var had connectorIdentityModel
		if !prior.Get(ctx, &had).HasError() &&
			sameID(had.ID.ValueString(), want.ID.ValueString()) && sameID(had.WorkspaceID.ValueString(), want.WorkspaceID.ValueString()) {
			want = had
		}
	}
	diags.Append(out.Set(ctx, want)...)
}

func (r *connectorResource) token(ctx context.Context, plan connectorResourceModel, config tfsdk.Config, diags *diag.Diagnostics) string {
	if !plan.Token.IsNull() {
		return plan.Token.ValueString()
	}
	var wo types.String
	diags.Append(config.GetAttribute(ctx, path.Root("token_wo"), &wo)...)
	return wo.ValueString()
}

// fill leaves the token attributes as configured: the service never returns a token.
func (m *connectorResourceModel) fill(c *client.Connector) {
	m.connectorModel.fill(c)
	m.TokenWO = types.StringNull()
}
