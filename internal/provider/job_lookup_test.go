package provider

import (
	"testing"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
)

func TestJobLookup_byNameKeepsExactMatchesOnly(t *testing.T) {
	t.Parallel()
	jobs := []client.Job{{ID: "1", Name: new("nightly")}, {ID: "2", Name: new("nightly (copy)")}, {ID: "3", Name: new("Nightly")}, {ID: "4", Name: new("nightly")}}
	got := jobsNamed(jobs, "nightly")
	if len(got) != 2 || got[0].ID != "1" || got[1].ID != "4" {
		t.Errorf("jobsNamed: %+v", got)
	}
	if got := jobsNamed(jobs, "weekly"); len(got) != 0 {
		t.Errorf("jobsNamed of a missing name: %+v", got)
	}
}
