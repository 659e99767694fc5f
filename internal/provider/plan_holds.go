package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// planHolds is what the resource instances of one walk (one Configure) hold:
// the engine reads and plans each instance once a walk, without its address,
// so a connector read twice or planned twice from a prior state is held by
// two addresses. A replacement plans its create from no prior state, and the
// data sources and list resource read apart, so neither counts.
type planHolds struct {
	mu      sync.Mutex
	read    map[string]string // connector ID in lower case: its workspace
	planned map[string]string
	creates map[string]bool // "workspace/name" of the creates planned
	// createsIn counts them by workspace (in lower case).
	createsIn map[string]int
	lists     map[string]*planList
}

// planList is a workspace's whole list, or one name's, shared by a walk's checks.
type planList struct {
	mu    sync.Mutex
	done  bool
	items []client.Connector
}

// hold records that an instance read (or planned, when planned is true) the
// connector, and tells whether another instance of this walk did already.
func (h *planHolds) hold(id, ws string, planned bool) (twice bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := &h.read
	if planned {
		m = &h.planned
	}
	if *m == nil {
		*m = map[string]string{}
	}
	key := strings.ToLower(id)
	_, twice = (*m)[key]
	(*m)[key] = strings.ToLower(ws)
	return twice
}

// holds tells whether an instance of this walk read the connector, in ws, or
// planned it from its prior state: a create of its name is then that
// instance's replacement (a tainted one is planned as a create), or waits for
// the apply's checks.
func (h *planHolds) holds(id, ws string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	key, ws := strings.ToLower(id), strings.ToLower(ws)
	return h.read[key] == ws && ws != "" || h.planned[key] == ws && ws != ""
}

// wasRead tells whether an instance of this walk read the connector: the
// engine reads each instance before it plans it, unless the plan does not
// refresh or the walk is an apply's.
func (h *planHolds) wasRead(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.read[strings.ToLower(id)]
	return ok
}

// create records a create of name in ws, and tells whether another instance
// of this walk plans one already.
func (h *planHolds) create(ws, name string) (twice bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.creates == nil {
		h.creates = map[string]bool{}
	}
	key := strings.ToLower(ws) + "/" + name
	twice = h.creates[key]
	if !twice {
		if h.createsIn == nil {
			h.createsIn = map[string]int{}
		}
		h.createsIn[strings.ToLower(ws)]++
	}
	h.creates[key] = true
	return twice
}

func addHeldTwice(diags *diag.Diagnostics, id, ws string) {
	diags.AddError("Connector in Two Addresses", fmt.Sprintf(
		"Connector %s of workspace %s is held by two resource addresses of this configuration (imported, or in the state, twice). "+
			"Deleting or replacing either would delete the connector, and its job, under the other. Nothing was changed. "+
			"Keep one address: delete the second import block; or take the other out of the state with terraform state rm <address> "+
			"(tofu state rm on OpenTofu), or on Terraform 1.7 and later a removed block whose lifecycle has destroy = false.", id, ws))
}

func addNamePlannedTwice(diags *diag.Diagnostics, ws, name string) {
	diags.AddAttributeError(path.Root("name"), "Connector Name Taken", fmt.Sprintf(
		"Two resources of this configuration create a connector named %q in workspace %s: "+
			"the apply would create one and fail the other, and two connectors of one name would make two jobs of that name. "+
			"Nothing was changed. Give each resource a name of its own.", name, ws))
}

// plannedNamed returns the customer-service connectors of ws named name for a
// plan: one list a name, until the creates planned in the walk reach twice
// the pages of the workspace's whole list; from then on one whole list
// answers every check of the walk. A few creates in a large workspace list
// by name alone, and many spend at most three times what knowing their count
// would. A plan does not race an apply as a create does (nameChecks): the
// apply's checks still run.
func (d *providerData) plannedNamed(ctx context.Context, ws, name string) ([]client.Connector, error) {
	h := &d.holds
	h.mu.Lock()
	planned := h.createsIn[strings.ToLower(ws)]
	h.mu.Unlock()
	pages := d.checks.pages(ws)
	whole := pages >= 0 && (pages == 1 || planned >= 2*pages)
	key := strings.ToLower(ws)
	if !whole {
		key += "/" + name
	}
	h.mu.Lock()
	if h.lists == nil {
		h.lists = map[string]*planList{}
	}
	l := h.lists[key]
	if l == nil {
		l = &planList{}
		h.lists[key] = l
	}
	h.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		var items []client.Connector
		var err error
		if whole {
			var l listed
			l, err = readWhole(ctx, d.client, ws, false)
			items = l.items
		}
		if !whole || errors.Is(err, client.ErrListChanged) {
			// Others delete from the workspace as it is read.
			items, err = connectorsOfName(ctx, d.client, ws, name)
			if whole && err == nil {
				return exactly(items, name), nil
			}
		}
		if err != nil {
			return nil, err // asked again by the next check
		}
		l.items, l.done = items, true
	}
	return exactly(l.items, name), nil
}
