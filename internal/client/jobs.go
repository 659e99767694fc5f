package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
)

// PageSize is how many items the client asks for in each list request.
const PageSize = 100

// JobFilter selects and orders jobs. Nil fields are not sent; every filter
// is applied by the service.
type JobFilter struct {
	ConnectorName *string
	DataSource    *string
	Name          *string
	SchemaName    *string
	IsActive      *bool
	// Ordering is passed through as it is; empty means the service's order.
	Ordering string
}

// EachJobPage calls fn with each page of the workspace's jobs in order,
// following next_page until it is null, and stops early when fn returns
// false.
func (c *Client) EachJobPage(ctx context.Context, workspaceID string, f JobFilter, fn func([]Job) bool) error {
	q := url.Values{}
	setJobFilter(q, f)
	return eachPage(ctx, c, "list jobs", fmt.Sprintf(pathJobs, url.PathEscape(workspaceID)), q, fn)
}

// JobsPageAt returns one page of the workspace's jobs, PageSize a page, and
// the number of the page after it: 0 after the last.
func (c *Client) JobsPageAt(ctx context.Context, workspaceID string, f JobFilter, page int) ([]Job, int, error) {
	q := url.Values{}
	setJobFilter(q, f)
	return pageAt[Job](ctx, c, "list jobs", fmt.Sprintf(pathJobs, url.PathEscape(workspaceID)), q, page)
}

// TriggerJob starts an execution of the job. force_full_refresh is sent only
// when true: the service defaults it to false.
func (c *Client) TriggerJob(ctx context.Context, workspaceID, jobID string, forceFullRefresh bool) error {
	q := url.Values{}
	if forceFullRefresh {
		q.Set(queryForceFullRefresh, "true")
	}
	return c.do(ctx, request{
		op:     "trigger job",
		method: http.MethodPost,
		path:   fmt.Sprintf(pathJobRun, url.PathEscape(workspaceID), url.PathEscape(jobID)),
		query:  q,
		want:   http.StatusCreated,
	})
}

// CancelJob cancels the job's running execution.
func (c *Client) CancelJob(ctx context.Context, workspaceID, jobID string) error {
	return c.do(ctx, request{
		op:     "cancel job",
		method: http.MethodDelete,
		path:   fmt.Sprintf(pathJobCancel, url.PathEscape(workspaceID), url.PathEscape(jobID)),
		want:   http.StatusNoContent,
	})
}

// eachPage walks a list endpoint page by page, PageSize items at a time,
// following next_page until it is null, and stops early when fn returns
// false.
func eachPage[T any](ctx context.Context, c *Client, op, path string, q url.Values, fn func([]T) bool) error {
	for page := 1; page != 0; {
		items, next, err := pageAt[T](ctx, c, op, path, q, page)
		if err != nil {
			return err
		}
		if !fn(items) {
			return nil
		}
		page = next
	}
	return nil
}

// pageAt fetches one page of PageSize items and says which page comes next:
// 0 after the last. It never computes pages from count; a next_page that
// does not move forward, or that follows an empty page, is an error rather
// than a walk that never ends.
func pageAt[T any](ctx context.Context, c *Client, op, path string, q url.Values, page int) ([]T, int, error) {
	pq := url.Values{}
	for k, v := range q {
		pq[k] = v
	}
	pq.Set(queryPage, strconv.Itoa(page))
	pq.Set(queryPageSize, strconv.Itoa(PageSize))
	var p *Page[T]
	r := request{op: op, method: http.MethodGet, path: path, query: pq, want: http.StatusOK, read: func(body io.Reader) (err error) {
		p, err = DecodePage[T](body)
		return err
	}}
	if err := c.do(ctx, r); err != nil {
		return nil, 0, err
	}
	if p.NextPage == nil {
		return p.Results, 0, nil
	}
	next := *p.NextPage
	var err error
	switch {
	case next <= int64(page):
		err = fmt.Errorf("the service's next_page (%d) does not move forward from page %d", next, page)
	case len(p.Results) == 0:
		err = fmt.Errorf("the service's page %d is empty but names a next page (%d)", page, next)
	default:
		return p.Results, int(next), nil
	}
	return nil, 0, c.failure(&r, http.StatusOK, "", err, true)
}

// DecodePage reads one list answer, as the client does for every page: as
// it streams in, at most 16 MiB of it, into room for a full page (the
// decoder fills it without growing it).
func DecodePage[T any](body io.Reader) (*Page[T], error) {
	p := Page[T]{Results: make([]T, 0, PageSize)}
	if err := decode(body, &p); err != nil {
		return nil, err
	}
	return &p, nil
}
