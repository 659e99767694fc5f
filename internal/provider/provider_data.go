package provider

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// providerData is what resources and data sources receive from Configure.
type providerData struct {
	client      *client.Client
	workspaceID string
	secrets     []string
	jobs        jobIndex
	names       nameLocks
	checks      nameChecks
	reachable   workspaceChecks
	holds       planHolds
}

// configuredData is nil when the provider is not configured yet.
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

// maskedContext masks the secrets in all that is logged with ctx, the client's
// requests included.
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

// nameLocks keeps apart two creates of one connector name in one workspace:
// per workspace, a *nameLock by name.
type nameLocks struct{ ws client.Workspaces[sync.Map] }

// nameLock records the connectors this process created under the name.
type nameLock struct {
	mu   sync.Mutex
	name string
	made []string
}

func (l *nameLocks) lock(ws, name string) *nameLock {
	v, _ := l.ws.Of(ws, nil).LoadOrStore(name, &nameLock{name: name})
	n, _ := v.(*nameLock)
	n.mu.Lock()
	return n
}

// workspaceChecks holds, per workspace, whether the API key reaches it.
type workspaceChecks struct {
	ws client.Workspaces[workspaceCheck]
}

type workspaceCheck struct {
	mu    sync.Mutex
	asked bool
	err   error
	// told is whether a plan was told of err already.
	told bool
}

func (w *workspaceChecks) of(ws string) *workspaceCheck {
	return w.ws.Of(ws, nil)
}
