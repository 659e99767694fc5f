package acctest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client"
	"github.com/dataintegration/terraform-provider-dataintegration/internal/sandbox"
)

// BareRead is the floor the provider is held to: every page of jobs read one after another.
func BareRead(base string) (int, error) {
	hc := &http.Client{}
	n := 0
	for page := 1; page != 0; {
		p, err := barePage[client.Job](hc, base, "jobs/?", page)
		if err != nil {
			return 0, err
		}
		n += len(p.Results)
		page = 0
		if p.NextPage != nil {
			page = *p.NextPage
		}
	}
	return n, nil
}

// BareBoundedRead is BareRead with pages after the first read by bound workers.
func BareBoundedRead(base string, bound int) (int, error) {
	return bareBounded[client.Job](base, "jobs/?", bound)
}

// BareBoundedConnectors is BareBoundedRead of the customer-service connectors.
func BareBoundedConnectors(base string, bound int) (int, error) {
	return bareBounded[client.Connector](base, "connectors/?connector_name="+client.ConnectorKindCustomerService+"&", bound)
}

func bareBounded[T any](base, path string, bound int) (int, error) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: bound}}
	first, err := barePage[T](hc, base, path, 1)
	if err != nil {
		return 0, err
	}
	var (
		n    atomic.Int64
		next atomic.Int64
		errs = make(chan error, bound)
		wg   sync.WaitGroup
	)
	n.Add(int64(len(first.Results)))
	next.Store(1)
	for range bound {
		wg.Go(func() {
			for page := int(next.Add(1)); page <= first.TotalPages; page = int(next.Add(1)) {
				p, err := barePage[T](hc, base, path, page)
				if err != nil {
					errs <- err
					return
				}
				n.Add(int64(len(p.Results)))
			}
		})
	}
	wg.Wait()
	close(errs)
	return int(n.Load()), <-errs
}

type barePageOf[T any] struct {
	NextPage   *int `json:"next_page"`
	TotalPages int  `json:"total_pages"`
	Results    []T  `json:"results"`
}

func barePage[T any](hc *http.Client, base, path string, page int) (*barePageOf[T], error) {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/developers/workspaces/%s/%spage=%d&page_size=100", base, sandbox.DefaultWorkspaceID, path, page), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", sandbox.DefaultAPIKey)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var p barePageOf[T]
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		return nil, err
	}
	return &p, nil
}

// Best is the shortest of n runs of fn.
func Best(n int, fn func()) time.Duration {
	d := time.Duration(1<<63 - 1)
	for range n {
		start := time.Now()
		fn()
		d = min(d, time.Since(start))
	}
	return d
}

// BenchRow is one line of the table of figures.
type BenchRow struct {
	Figure, Value, Target string
	Met                   bool
	Report                bool // a figure to report, with no target to meet
}

// PrintFigures prints the figures with their targets and PASS, MISS or report.
func PrintFigures(rows []BenchRow) {
	fmt.Println("| figure | measured | target | |")
	fmt.Println("|---|---|---|---|")
	for _, r := range rows {
		mark := "PASS"
		switch {
		case r.Report:
			mark = "report"
		case !r.Met:
			mark = "MISS"
		}
		fmt.Printf("| %s | %s | %s | %s |\n", r.Figure, r.Value, r.Target, mark)
	}
}

// Missed fails b for each row that missed its target.
func Missed(b *testing.B, rows []BenchRow) {
	for _, r := range rows {
		if !r.Report && !r.Met {
			b.Errorf("target missed: %s: %s (target: %s)", r.Figure, r.Value, r.Target)
		}
	}
}
