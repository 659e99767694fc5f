package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/validate"
)

// adoptClockMargin widens a create's time in flight against the service's
// _created_at (NTP keeps clocks within a fraction of a second), and stays under
// the seconds before a rerun, so an earlier attempt's connector is never adopted.
const adoptClockMargin = 2 * time.Second

// lostCreate sorts the connectors a lost create may have made by when the service
// made them, against the time the request was in flight.
type lostCreate struct {
	during []client.Connector // made while the request was in flight
	before []client.Connector // there before it was sent: never adopted
	unsure []client.Connector // made after it, or with a time that cannot be read
}

func sortLostCreate(found []client.Connector, sent client.ConnectorSpec, start, end time.Time) lostCreate {
	var l lostCreate
	for _, c := range found {
		if !sameConnector(c, sent) {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, c.CreatedAt)
		switch {
		case err != nil || at.After(end.Add(adoptClockMargin)):
			l.unsure = append(l.unsure, c)
		case at.Before(start.Add(-adoptClockMargin)):
			l.before = append(l.before, c)
		default:
			l.during = append(l.during, c)
		}
	}
	return l
}

// sameConnector tells whether c has what a create sent; the token is never returned.
func sameConnector(c client.Connector, sent client.ConnectorSpec) bool {
	streams := sent.Streams
	if len(streams) == 0 {
		streams = validate.CustomerServiceStreams
	}
	return c.Configuration.URL == sent.URL && c.Configuration.AgentEmail == sent.AgentEmail &&
		len(c.Streams) == len(streams) && sameElements(c.Streams, streams)
}

// createOrAdopt settles a create whose answer leaves unknown whether the service
// acted (lost, 500, 502, 504) by listing the name: a connector one of the sends
// made is adopted, so no apply creates a second; with none of the name, the create
// is sent again within the retry budget. The caller holds the name's lock.
func (r *connectorResource) createOrAdopt(ctx context.Context, diags *diag.Diagnostics, ws string, sent client.ConnectorSpec, start time.Time, err error) *client.Connector {
	cl := r.data.client
	budget, limit := ctx, "the operation's time limit"
	if _, ok := ctx.Deadline(); !ok {
		limit = fmt.Sprintf("the retry budget (%s)", shortDuration(cl.RetryBudget()))
		named, cancel := client.WithLimit(ctx, "the retry budget", cl.RetryBudget())
		defer cancel()
		var stop context.CancelFunc
		budget, stop = context.WithDeadline(named, start.Add(cl.RetryBudget()))
		defer stop()
	}
	for sends := 1; ; sends++ {
		e, ok := errors.AsType[*client.Error](err)
		switch {
		case ok && !e.Sent && ctx.Err() != nil:
			// Interrupted while it waited for its turn to be sent.
			diags.AddError("Connector Not Created", fmt.Sprintf(
				"Terraform was interrupted before the create of connector %q was sent to workspace %s: nothing was created, and the next apply creates it.", sent.Name, ws))
			return nil
		case !ok || !e.MayHaveTakenEffect():
			addRequestError(diags, "Unable to Create Connector", ws, err)
			return nil
		}
		c, none := r.settleCreate(ctx, diags, ws, sent, start, e, sends)
		if !none {
			return c
		}
		wait := cl.Backoff(sends - 1)
		deadline, _ := budget.Deadline()
		why := ""
		switch {
		case cl.MaxRetries() >= 0 && sends > cl.MaxRetries():
			why = fmt.Sprintf("max_retries (%d) was reached", cl.MaxRetries())
		case ctx.Err() != nil:
			why = "Terraform was interrupted"
		case !time.Now().Add(wait).Before(deadline):
			why = limit + " would run out first"
		case client.Sleep(budget, wait) != nil:
			why = "Terraform was interrupted"
			if ctx.Err() == nil {
				why = limit + " ran out"
			}
		}
		if why != "" {
			diags.AddError("Connector Not Created", fmt.Sprintf(
				"%s. Workspace %s holds no connector named %q: the service did not create it, and applying again is safe. "+
					"It was not sent again: %s.", sentTimes(e, sends), ws, sent.Name, why))
			return nil
		}
		if c, err = cl.CreateConnector(budget, ws, sent); err == nil {
			return c
		}
	}
}

// sentTimes is the answer to the last of a create's sends, and which send it was.
func sentTimes(e *client.Error, sends int) string {
	lost := strings.TrimSuffix(answer(e), ".")
	if sends == 1 {
		return lost
	}
	return fmt.Sprintf("%s (send %d of the create: the %d before it made nothing)", lost, sends, sends-1)
}

// settleCreate looks for the connector a create's sends since start may have made:
// the one to adopt, none when the name is free, or nil after an error.
func (r *connectorResource) settleCreate(ctx context.Context, diags *diag.Diagnostics, ws string, sent client.ConnectorSpec, start time.Time, e *client.Error, sends int) (c *client.Connector, none bool) {
	end := time.Now()
	lost := sentTimes(e, sends)
	// Done even when Terraform is interrupted: a connector made must reach the state.
	found, lerr := connectorsByName(context.WithoutCancel(ctx), r.data.client, ws, sent.Name)
	if lerr != nil {
		diags.AddError("Connector May Have Been Created", fmt.Sprintf(
			"%s. The service may have created connector %q all the same, and looking for it failed too (%v). Nothing was recorded in the state. "+
				"Look in workspace %s for a connector of that name created at %s: if there is one, import it "+
				"(applying again fails with Connector Name Taken rather than create a second while it is there):\n\n%s",
			lost, sent.Name, lerr, ws, start.UTC().Format(time.RFC3339), importBlock(ws, "<its id>")))
		return nil, false
	}
	if len(found) == 0 {
		return nil, true
	}
	l := sortLostCreate(found, sent, start, end)
	switch {
	case len(l.during) == 1:
		c := l.during[0]
		diags.AddWarning("Connector Created, Its Answer Lost", fmt.Sprintf(
			"%s. The service had created the connector all the same: connector %s, named %q, created at %s while the request was in flight, "+
				"with the URL, agent e-mail and streams sent. It is recorded in the state as this resource and the apply goes on: nothing was created twice.",
			lost, c.ID, c.Name, c.CreatedAt))
		return &c, false
	case len(l.during)+len(l.unsure) > 0:
		diags.AddError("Connector May Have Been Created", fmt.Sprintf(
			"%s. Workspace %s holds %d connectors named %q with the configuration sent that the service made during the request or after it, "+
				"so which one this apply made, if any, is unknown, and none was recorded in the state. "+
				"Import the one to keep and delete any other (applying again fails with Connector Name Taken while they are there):\n%s",
			lost, ws, len(l.during)+len(l.unsure), sent.Name, importList(ws, append(l.during, l.unsure...))))
	default:
		diags.AddError("Connector Not Created", fmt.Sprintf(
			"%s. Workspace %s holds no connector named %q with the configuration sent that was made since the request was sent: "+
				"the service did not create it, and applying again is safe.%s",
			lost, ws, sent.Name, existedBefore(ws, l.before)))
	}
	return nil, false
}

// nameFree tells whether workspace ws has no connector of the name. A killed apply
// leaves connectors the state lost, and two connectors of one name make two jobs
// job_name cannot tell apart: a create fails instead. The name lock keeps two
// creates of one apply apart; outlivesRivals settles two applies.
func (r *connectorResource) nameFree(ctx context.Context, diags *diag.Diagnostics, ws string, name *nameLock) bool {
	found, err := r.data.checks.named(ctx, r.data.client, ws, name.name)
	switch {
	case err != nil && ctx.Err() != nil:
		diags.AddError("Connector Not Created", fmt.Sprintf(
			"Terraform was interrupted while the provider looked for a connector named %q in workspace %s, before creating one: "+
				"nothing was created, and the next apply creates it.", name.name, ws))
		return false
	case err != nil:
		addRequestError(diags, "Unable to Create Connector", ws, err)
		return false
	case len(found) == 0:
		return true
	}
	c := found[0]
	if slices.Contains(name.made, c.ID) {
		diags.AddError("Connector Name Taken", fmt.Sprintf(
			"Another resource of this apply has just created connector %s, named %q, in workspace %s: "+
				"two resources give the same name, and one connector cannot be managed by both. Give each resource a name of its own.",
			c.ID, name.name, ws))
		return false
	}
	diags.AddError("Connector Name Taken", fmt.Sprintf(
		"Workspace %s already holds a connector named %q: %s, created at %s. No second one was created: "+
			"two connectors of one name would make two jobs of that name. "+
			"Another apply or pipeline may have just created it, or someone else; or an apply of this resource was killed while creating it, which leaves it out of the state. "+
			"If it is the one this resource stands for, adopt it with an import block, then apply again:\n\n%s\n\n"+
			"Otherwise give this resource another name, or delete that connector.",
		ws, name.name, c.ID, c.CreatedAt, importBlock(ws, c.ID)))
	return false
}

func existedBefore(ws string, before []client.Connector) string {
	if len(before) == 0 {
		return ""
	}
	return fmt.Sprintf(" The workspace held %d such connector(s) made before the request, which were not taken for this one "+
		"(one of them could be it only if this machine's clock were more than %s ahead of the service's). "+
		"To manage one of them instead of creating a new one, import it:\n%s", len(before), adoptClockMargin, importList(ws, before))
}

// importList lists the connectors one line each, then an import block: it
// works on every engine, where the import command's name differs between them.
func importList(ws string, cs []client.Connector) string {
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = fmt.Sprintf("- %s (created at %s)", c.ID, c.CreatedAt)
	}
	id := cs[0].ID
	if len(cs) > 1 {
		id = "<the one to keep>"
	}
	return strings.Join(lines, "\n") + "\n\n" + importBlock(ws, id)
}

// importBlock adopts connector id of ws into the resource whose address the
// engine prints with the error, after "with"; the provider is never told it.
func importBlock(ws, id string) string {
	return fmt.Sprintf("import {\n  to = <the address after \"with\" above>\n  id = \"%s/%s\"\n}", ws, id)
}

// outlivesRivals tells whether c, just created, is the one of its name to keep: two
// applies may both find the name free. The older one wins and a tie loses on both
// sides, so two never stand; the loser deletes c and records nothing.
func (r *connectorResource) outlivesRivals(ctx context.Context, diags *diag.Diagnostics, ws string, c *client.Connector) bool {
	// An interruption keeps c, with the warning below, rather than wait on retries.
	found, err := r.data.checks.named(ctx, r.data.client, ws, c.Name)
	if err != nil {
		why := fmt.Sprintf("listing the connectors of that name afterwards failed (%v)", err)
		if ctx.Err() != nil {
			why = "Terraform was interrupted before the connectors of that name were listed again"
		}
		diags.AddWarning("Connector Created, Rivals Not Checked", fmt.Sprintf(
			"Connector %s, named %q, was created in workspace %s and is recorded in the state, but %s, "+
				"so another apply creating the same name at the same moment would go unnoticed. If workspace %s holds two connectors named %q, delete the one not in this state.",
			c.ID, c.Name, ws, why, ws, c.Name))
		return true
	}
	var older []client.Connector
	for _, rival := range found {
		if !sameID(rival.ID, c.ID) && !createdAfter(rival, *c) {
			older = append(older, rival)
		}
	}
	if len(older) == 0 {
		return true
	}
	rival := older[0]
	raced := fmt.Sprintf("Another apply, or another provider configuration of this one, created connector %s, named %q, in workspace %s a moment ago (created at %s), while this one created connector %s (created at %s): "+
		"two pipelines or runs created the same name at once. Two connectors of one name would make two jobs of that name, and the one created first is kept.",
		rival.ID, c.Name, ws, rival.CreatedAt, c.ID, c.CreatedAt)
	next := fmt.Sprintf("If connector %s is the one this resource stands for, import it (or let the apply that created it manage it); "+
		"otherwise give this resource another name:\n%s", rival.ID, importList(ws, []client.Connector{rival}))
	if !createdAfter(*c, rival) {
		// A tie: the other apply deletes rival too, so it is not one to import.
		raced = fmt.Sprintf("Another apply, or another provider configuration of this one, created connector %s, named %q, in workspace %s at the same moment as this one created connector %s "+
			"(both created at %s, or at a time that cannot be read). Two connectors of one name would make two jobs of that name, "+
			"and neither can be told to be first, so each apply deletes the one it made.", rival.ID, c.Name, ws, c.ID, c.CreatedAt)
		next = "Then apply again, which creates one."
	}
	// Done even when Terraform is interrupted: a lost race must not leave two of one name.
	if err := r.data.client.DeleteConnector(context.WithoutCancel(ctx), ws, c.ID); err != nil && !client.IsNotFound(err) {
		diags.AddError("Connector Name Taken", fmt.Sprintf(
			"%s Deleting connector %s, which this apply created, failed too (%v), and it is not recorded in the state. "+
				"Delete connector %s by hand (it is this apply's). %s", raced, c.ID, err, c.ID, next))
		return false
	}
	diags.AddError("Connector Name Taken", fmt.Sprintf("%s This apply deleted connector %s, and records nothing. %s", raced, c.ID, next))
	return false
}

// createdAfter is false when either time cannot be read: a rival of unknown time is older.
func createdAfter(a, b client.Connector) bool {
	at, errA := time.Parse(time.RFC3339Nano, a.CreatedAt)
	bt, errB := time.Parse(time.RFC3339Nano, b.CreatedAt)
	return errA == nil && errB == nil && at.After(bt)
}
