package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
)

// PageSize is how many items the client asks for in each list request.
const PageSize = 100

// All is what a Visitor's Page returns to be given every item of a list.
const All = -1

// Visitor receives the pages of a list.
type Visitor[T any] struct {
	// Page is called with each page's items, in page order, one call at a
	// time. It returns how many more items it wants: All, a number (no page
	// is asked that could not be needed for them), or 0 to stop.
	Page func(items []T) (more int)
	// Reset, if set, is called when the list changed while it was read,
	// before it is read again from the first page: what Page was given
	// until then is to be forgotten.
	Reset func()
}

// Collect returns a Visitor that keeps the items keep accepts (every item
// when keep is nil), in order, and stops once it has limit of them (0: no
// limit); and the slice it keeps them in.
func Collect[T any](keep func(T) bool, limit int) (Visitor[T], *[]T) {
	var kept []T
	return Visitor[T]{
		Page: func(items []T) int {
			for _, it := range items {
				if keep != nil && !keep(it) {
					continue
				}
				kept = append(kept, it)
				if limit > 0 && len(kept) >= limit {
					return 0
				}
			}
			if limit > 0 {
				return limit - len(kept)
			}
			return All
		},
		Reset: func() { kept = nil },
	}, &kept
}

// listing is one list endpoint with its filters.
type listing struct {
	op, path string
	query    url.Values
}

// unreadable is the Error of a list whose pages were answered (HTTP 200) but
// cannot be read as one list, for the reason err.
func (l listing) unreadable(c *Client, err error) *Error {
	return c.failure(&request{op: l.op, method: http.MethodGet, path: l.path}, http.StatusOK, "", err, true)
}

// ErrListChanged is a list that changed while it was read, twice in a
// row: a read that gives up, rather than return items missing or doubled.
var ErrListChanged = errors.New("the list changed while it was read")

// walk reads a list and gives v its pages in order. The first page comes
// alone; when its envelope tells how many pages there are, the rest are
// asked side by side, at most the client's bound at once (which the client
// also holds every request to), else one after another, following
// next_page. The result is the same either way: the same items in the same
// order. When the list changes while it is read (count or total_pages
// differs between pages, or a page expected is missing), it is read again
// from the start, once; a second change is an error.
func walk[T any](ctx context.Context, c *Client, l listing, v Visitor[T]) error {
	for try := 0; ; try++ {
		err := walkOnce(ctx, c, l, v)
		if !errors.Is(err, ErrListChanged) {
			return err
		}
		if try == 1 {
			return l.unreadable(c, fmt.Errorf("%w, twice in a row (items were created or deleted meanwhile)", ErrListChanged))
		}
		if v.Reset != nil {
			v.Reset()
		}
	}
}

// walkOnce reads the list once; ErrListChanged when it changed meanwhile.
func walkOnce[T any](ctx context.Context, c *Client, l listing, v Visitor[T]) error {
	first, err := fetchPage[T](ctx, c, l, 1)
	if err != nil {
		return err
	}
	more := v.Page(first.Results)
	if more == 0 || first.NextPage == nil {
		return nil
	}
	next, err := forward(c, l, first, 1)
	if err != nil {
		return err
	}
	if n := pageCount(first); n > 1 && next == 2 && c.bound > 1 {
		if next, more, err = sideBySide(ctx, c, l, v, first, n, more); err != nil || next == 0 || more == 0 {
			return err
		}
	}
	return oneByOne(ctx, c, l, v, first, next, more)
}

// oneByOne reads the list from page next on, one page after another.
func oneByOne[T any](ctx context.Context, c *Client, l listing, v Visitor[T], first *Page[T], next, more int) error {
	for next != 0 && more != 0 {
		p, err := fetchPage[T](ctx, c, l, next)
		if err != nil {
			return changedIfGone(err)
		}
		if !sameSet(first, p) {
			return ErrListChanged
		}
		more = v.Page(p.Results)
		if p.NextPage == nil {
			return nil
		}
		if next, err = forward(c, l, p, next); err != nil {
			return err
		}
	}
	return nil
}

// fetched is the answer to one page asked side by side.
type fetched[T any] struct {
	page *Page[T]
	err  error
}

// sideBySide reads pages 2 to n, at most the client's bound in flight
// and no more than twice that ahead of the page v awaits, asking no page
// that more cannot need. It returns the page to read on from, one after another,
// when page n names a next one (0 when it does not), and what v wants
// still.
func sideBySide[T any](ctx context.Context, c *Client, l listing, v Visitor[T], first *Page[T], n, more int) (int, int, error) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	per := max(len(first.Results), 1)
	// Pages are asked up to ahead past the one v waits for: more than the
	// bound, so that a slow page does not keep the others from being
	// asked, while the bound holds the requests in flight.
	ahead := 2 * c.bound
	answers := make(map[int]chan fetched[T], ahead)
	asked := 1 // the last page asked
	for page := 2; page <= n; page++ {
		// Ask the pages after this one that are in reach and may be needed.
		for asked < n && asked < page-1+ahead && (more < 0 || (asked-page+1)*per < more) {
			asked++
			ch := make(chan fetched[T], 1)
			answers[asked] = ch
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				p, err := fetchPage[T](ctx, c, l, k)
				ch <- fetched[T]{p, err}
			}(asked)
		}
		got := <-answers[page]
		delete(answers, page)
		switch {
		case got.err != nil:
			return 0, 0, changedIfGone(got.err)
		case !sameSet(first, got.page):
			return 0, 0, ErrListChanged
		case page < n && (got.page.NextPage == nil || len(got.page.Results) == 0):
			// The list ended before the page its first page promised.
			return 0, 0, ErrListChanged
		}
		if more = v.Page(got.page.Results); more == 0 {
			return 0, 0, nil
		}
		if page == n && got.page.NextPage != nil {
			// More pages than the first one told: read on one by one.
			next, err := forward(c, l, got.page, n)
			return next, more, err
		}
	}
	return 0, more, nil
}

// pageCount is how many pages the first page's envelope says the list has:
// total_pages, or count over the page size (page_size, or what the first
// page holds when that is the size asked); 0 when it does not say.
func pageCount[T any](first *Page[T]) int {
	if t := first.TotalPages; t != nil && *t > 0 {
		return int(min(*t, 1<<20))
	}
	if first.Count == nil || *first.Count <= 0 {
		return 0
	}
	size := int64(0)
	switch {
	case first.PageSize != nil && *first.PageSize > 0:
		size = *first.PageSize
	case len(first.Results) == PageSize:
		size = PageSize
	default:
		return 0
	}
	return int(min((*first.Count+size-1)/size, 1<<20))
}

// sameSet tells whether page p belongs to the same result set as the first
// page: the count and total_pages that both give are equal.
func sameSet[T any](first, p *Page[T]) bool {
	same := func(a, b *int64) bool { return a == nil || b == nil || *a == *b }
	return same(first.Count, p.Count) && same(first.TotalPages, p.TotalPages)
}

// changedIfGone: a page past the first that the service does not find
// (404) means that the list has shrunk since its first page was read.
func changedIfGone(err error) error {
	if IsNotFound(err) {
		return fmt.Errorf("%w: %w", ErrListChanged, err)
	}
	return err
}

// forward is the page after page, as p names it; an error when it does not
// move forward, or follows an empty page, rather than a walk that never
// ends.
func forward[T any](c *Client, l listing, p *Page[T], page int) (int, error) {
	next := *p.NextPage
	var err error
	switch {
	case next <= int64(page):
		err = fmt.Errorf("the service's next_page (%d) does not move forward from page %d", next, page)
	case len(p.Results) == 0:
		err = fmt.Errorf("the service's page %d is empty but names a next page (%d)", page, next)
	default:
		return int(min(next, 1<<30)), nil
	}
	return 0, l.unreadable(c, err)
}

// fetchPage asks for one page of PageSize items.
func fetchPage[T any](ctx context.Context, c *Client, l listing, page int) (*Page[T], error) {
	q := url.Values{}
	for k, v := range l.query {
		q[k] = v
	}
	q.Set(queryPage, strconv.Itoa(page))
	q.Set(queryPageSize, strconv.Itoa(PageSize))
	var p *Page[T]
	err := c.do(ctx, request{op: l.op, method: http.MethodGet, path: l.path, query: q, want: http.StatusOK, read: func(body io.Reader) (err error) {
		p, err = DecodePage[T](body)
		return err
	}})
	return p, err
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
