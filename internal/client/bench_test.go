package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// jobsPage is the JSON of a page of n jobs, as the service sends it.
func jobsPage(n int) []byte {
	jobs := make([]map[string]any, n)
	for i := range jobs {
		jobs[i] = map[string]any{
			"_id": fmt.Sprintf("6f1c2d3e-4b5a-4c7d-8e9f-%012d", i), "_created_at": "2026-01-05T10:00:00.000Z",
			"_updated_at": "2026-01-05T10:01:00.000Z", "data_source": "salesforce", "connector_name": "crm",
			"schema_name": "analytics", "name": fmt.Sprintf("salesforce to analytics %03d", i), "is_active": i%4 != 0,
		}
	}
	b, _ := json.Marshal(map[string]any{"count": 10000, "next_page": 2, "previous_page": nil, "page_size": n, "results": jobs})
	return b
}

// BenchmarkDecodeJobsPage decodes a page of 100 jobs; allocs/job is what
// `make bench` reports.
func BenchmarkDecodeJobsPage(b *testing.B) {
	page := jobsPage(PageSize)
	b.ReportAllocs()
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		p, err := DecodePage[Job](bytes.NewReader(page))
		if err != nil || len(p.Results) != PageSize {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	allocs := testing.AllocsPerRun(20, func() { _, _ = DecodePage[Job](bytes.NewReader(page)) })
	b.ReportMetric(allocs/PageSize, "allocs/job")
}
