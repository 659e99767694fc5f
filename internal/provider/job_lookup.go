package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

// findJob reads the job list until the ID appears: the API has no single-job endpoint.
func findJob(ctx context.Context, c *client.Client, ws, id string) (*client.Job, error) {
	v, found := client.Collect(func(j client.Job) bool { return sameID(j.ID, id) }, 1)
	if err := c.EachJobPage(ctx, ws, client.JobFilter{}, v); err != nil || len(*found) == 0 {
		return nil, err
	}
	return &(*found)[0], nil
}

func jobsByName(ctx context.Context, c *client.Client, ws, name string) ([]client.Job, error) {
	v, listed := client.Collect[client.Job](nil, 0)
	err := c.EachJobPage(ctx, ws, client.JobFilter{Name: &name}, v)
	return jobsNamed(*listed, name), err
}

// jobByName is nil, after an error on at, unless exactly one job has the name.
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

// jobsNamed keeps exact matches: the service's matching rules are not published,
// and "name (copy)" must not make a lookup ambiguous.
func jobsNamed(jobs []client.Job, name string) []client.Job {
	var out []client.Job
	for _, j := range jobs {
		if j.Name != nil && *j.Name == name {
			out = append(out, j)
		}
	}
	return out
}

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
