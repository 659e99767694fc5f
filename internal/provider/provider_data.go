package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// providerData is what resources and data sources receive from Configure.
type providerData struct {
	client *client.Client
	// workspaceID is the default workspace; empty when none was given.
	workspaceID string
	// secrets are masked in every log line the provider writes.
	secrets []string
	// jobs shares the walks over job lists between the lookups by ID.
	jobs jobIndex
	// names keeps two creates of one connector name apart (nameFree).
	names nameLocks
	// reachable remembers the workspaces the API key was found to reach
	// (checkWorkspace).
	reachable workspaceChecks
}

// configuredData turns the ProviderData a resource or data source receives
// into the provider's data; nil when the provider is not configured yet.
func configuredData(raw any, diags *diag.Diagnostics) *providerData {
	if raw == nil {
		return nil
	}
	d, ok := raw.(*providerData)
	if !ok {
		diags.AddError("Unexpected Provider Data",
			fmt.Sprintf("Expected *providerData, got %T. This is a bug in the provider: please report it.", raw))
		return nil
	}
	return d
}

// maskedContext masks the provider's secrets in whatever is logged with the
// returned context. The client's log calls go through it, so every request
// logged is masked.
func (d *providerData) maskedContext(ctx context.Context) context.Context {
	ctx = tflog.MaskFieldValuesWithFieldKeys(ctx, "api_key", "token", "Authorization")
	for _, s := range d.secrets {
		if s != "" {
			ctx = tflog.MaskAllFieldValuesStrings(ctx, s)
			ctx = tflog.MaskMessageStrings(ctx, s)
		}
	}
	return ctx
}

// nameLocks makes the creates of one connector name in one workspace wait
// for each other, within the provider's process (see nameFree).
type nameLocks struct{ m sync.Map }

// nameLock is one name in one workspace: held by one create at a time, with
// the connectors this process created under it.
type nameLock struct {
	mu   sync.Mutex
	name string
	made []string
}

// lock waits for the name in workspace ws, and returns it held.
func (l *nameLocks) lock(ws, name string) *nameLock {
	v, _ := l.m.LoadOrStore(strings.ToLower(ws)+"/"+name, &nameLock{name: name})
	n, _ := v.(*nameLock)
	n.mu.Lock()
	return n
}

// workspaceChecks holds, per workspace, what the service answered when
// asked whether the API key reaches it.
type workspaceChecks struct{ m sync.Map }

type workspaceCheck struct {
	mu    sync.Mutex
	asked bool
	err   error
}

func (w *workspaceChecks) of(ws string) *workspaceCheck {
	v, _ := w.m.LoadOrStore(strings.ToLower(ws), &workspaceCheck{})
	c, _ := v.(*workspaceCheck)
	return c
}
