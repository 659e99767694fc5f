package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// findJob reads the workspace's jobs until the one with the ID appears (the
// API has no single-job endpoint); nil when none has it.
func findJob(ctx context.Context, c *client.Client, ws, id string) (*client.Job, error) {
	v, found := client.Collect(func(j client.Job) bool { return sameID(j.ID, id) }, 1)
	if err := c.EachJobPage(ctx, ws, client.JobFilter{}, v); err != nil || len(*found) == 0 {
		return nil, err
	}
	return &(*found)[0], nil
}

// jobsByName lists the jobs named exactly name, with the service's name
// filter, every page.
func jobsByName(ctx context.Context, c *client.Client, ws, name string) ([]client.Job, error) {
	v, listed := client.Collect[client.Job](nil, 0)
	err := c.EachJobPage(ctx, ws, client.JobFilter{Name: &name}, v)
	return jobsNamed(*listed, name), err
}

// jobByName finds the one job named exactly name; nil, after an error on
// the attribute at, when no job or several jobs have the name.
func jobByName(ctx context.Context, c *client.Client, ws, name string, at path.Path, diags *diag.Diagnostics) *client.Job {
	found, err := jobsByName(ctx, c, ws, name)
	switch {
	case err != nil:
		addRequestError(diags, "Unable to List Jobs", ws, err)
	case len(found) != 1:
		addNameMatchError(diags, at, name, ws, found)
	default:
		return &found[0]
	}
	return nil
}

// jobsNamed keeps the jobs named exactly name: the service's matching rules
// are not published, and a filter that also matched "name (copy)" or "NAME"
// must not make the lookup ambiguous.
func jobsNamed(jobs []client.Job, name string) []client.Job {
	var out []client.Job
	for _, j := range jobs {
		if j.Name != nil && *j.Name == name {
			out = append(out, j)
		}
	}
	return out
}

// addNameMatchError says, on the attribute at, that no job or several jobs
// have the name.
func addNameMatchError(diags *diag.Diagnostics, at path.Path, name, ws string, found []client.Job) {
	if len(found) == 0 {
		diags.AddAttributeError(at, "Job Not Found",
			fmt.Sprintf("No job is named %q in workspace %s.", name, ws))
		return
	}
	ids := make([]string, len(found))
	for i, j := range found {
		ids[i] = j.ID
	}
	diags.AddAttributeError(at, "Several Jobs Match",
		fmt.Sprintf("%d jobs are named %q in workspace %s (IDs %s): give the job's ID instead (`id` on the data source, `job_id` on the trigger resource and the actions).",
			len(found), name, ws, strings.Join(ids, ", ")))
}
