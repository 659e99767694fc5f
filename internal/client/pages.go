package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
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

// maxPages bounds how many pages one reading of a list asks, so that a
// service whose pages never end (each naming a next one, or never empty)
// gives an error rather than a read that never ends.
const maxPages = 1 << 20

// walk reads a list and gives v its pages in order. The end of the list is
// taken from whatever the answers give: a null next_page ends it; else
// total_pages; else count over the size of the first page; else the next
// page number is asked until an empty page, or a 404 past the last. When
// the first page tells how many pages there are, the rest are asked side
// by side, at most the client's bound at once (which the client also
// holds every request to), else one after another. The result is the same
// either way: the same items in the same order, as many as count says when
// the service gives one. When the list changes while it is read (count or
// total_pages differs between pages, a page expected is missing, or the
// items do not add up to count), it is read again from the start, once; a
// second change is an error. A list that does not end (a next_page that
// does not move forward, the same page again, more items than count) is an
// error at once. README.md, "Pages" and "Open points", says why.
func walk[T any](ctx context.Context, c *Client, l listing, v Visitor[T]) error {
	return walkFrom(ctx, c, l, nil, v)
}

// walkFrom is walk with the first page already read, when first is not
// nil; a list read again reads its first page anew.
func walkFrom[T any](ctx context.Context, c *Client, l listing, first *Page[T], v Visitor[T]) error {
	for try := 0; ; try++ {
		err := walkOnce(ctx, c, l, first, v)
		first = nil
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

// reading is one reading of a list: what its first page told, and what was
// read so far.
type reading[T any] struct {
	c     *Client
	l     listing
	v     Visitor[T]
	first *Page[T]
	// pages is how many pages the first page says the list has; 0 when it
	// does not say.
	pages int
	// read is how many items v was given; more what v wants still.
	read int64
	more int
	// last is the previous page's items, to tell a page served again.
	last     []T
	lastPage int
}

// walkOnce reads the list once; ErrListChanged when it changed meanwhile.
func walkOnce[T any](ctx context.Context, c *Client, l listing, first *Page[T], v Visitor[T]) error {
	if first == nil {
		var err error
		if first, err = fetchPage[T](ctx, c, l, 1); err != nil {
			return err
		}
	}
	r := &reading[T]{c: c, l: l, v: v, first: first, pages: pageCount(first)}
	next, err := r.take(first, 1)
	if err != nil || next == 0 {
		return err
	}
	if r.pages > 1 && next == 2 && c.bound > 1 {
		if next, err = sideBySide(ctx, r); err != nil || next == 0 {
			return err
		}
	}
	return oneByOne(ctx, r, next)
}

// take gives v page k, whose answer is p, and tells the page to read next:
// 0 when the list ends there, or v wants no more.
func (r *reading[T]) take(p *Page[T], k int) (int, error) {
	if err := r.check(p, k); err != nil {
		return 0, err
	}
	r.more = r.v.Page(p.Results)
	r.read += int64(len(p.Results))
	r.last, r.lastPage = p.Results, k
	if r.more == 0 {
		return 0, nil
	}
	next, err := r.after(p, k)
	if err != nil || next != 0 {
		return next, err
	}
	return 0, r.ended()
}

// check refuses page k (answer p) when it is not of the list read, or when
// the service served again the page before it.
func (r *reading[T]) check(p *Page[T], k int) error {
	switch {
	case !sameSet(r.first, p):
		return ErrListChanged
	case k > 1 && len(p.Results) > 0 && r.lastPage == k-1 && reflect.DeepEqual(p.Results, r.last):
		return r.l.unreadable(r.c, fmt.Errorf("the service's page %d holds the same items as page %d: it may not honour the %q parameter", k, k-1, queryPage))
	case r.first.Count != nil && r.read+int64(len(p.Results)) > *r.first.Count:
		return r.l.unreadable(r.c, fmt.Errorf("the service's pages hold more items than its count (%d) by page %d", *r.first.Count, k))
	}
	return nil
}

// after is the page to read after page k, whose answer is p: 0 when the
// list ends there.
func (r *reading[T]) after(p *Page[T], k int) (int, error) {
	switch {
	case p.NextPage.Ends():
		if k < r.pages {
			// The list ended before the page its first page promised.
			return 0, ErrListChanged
		}
		return 0, nil
	case p.NextPage.Sent:
		return forward(r.c, r.l, p, k)
	case r.pages > 0 && k < r.pages && len(p.Results) == 0:
		return 0, ErrListChanged
	case r.pages > 0 && k < r.pages:
		return k + 1, nil
	case r.pages > 0, len(p.Results) == 0:
		return 0, nil
	case k >= maxPages:
		return 0, r.l.unreadable(r.c, fmt.Errorf("the service's pages do not end after %d pages", maxPages))
	}
	// Nothing tells where the list ends: the next page will.
	return k + 1, nil
}

// ended checks a list read to its end: as many items as the first page's
// count, else the list changed meanwhile.
func (r *reading[T]) ended() error {
	if r.first.Count != nil && r.read != *r.first.Count {
		return ErrListChanged
	}
	return nil
}

// beyondEnd tells whether err, page k's, is the 404 of a page past the
// last of a list whose length nothing told: the end of the list. Else a
// 404 means that the list has shrunk since its first page was read.
func (r *reading[T]) beyondEnd(err error, k int) bool {
	return IsNotFound(err) && r.pages == 0 && r.first.Count == nil && k == r.lastPage+1 && !r.first.NextPage.Sent
}

// oneByOne reads the list from page next on, one page after another.
func oneByOne[T any](ctx context.Context, r *reading[T], next int) error {
	for next != 0 {
		p, err := fetchPage[T](ctx, r.c, r.l, next)
		if r.beyondEnd(err, next) {
			return nil
		}
		if err != nil {
			return changedIfGone(err)
		}
		if next, err = r.take(p, next); err != nil {
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

// sideBySide reads pages 2 to r.pages, at most the client's bound in
// flight and no more than twice that ahead of the page v awaits, asking no
// page that v cannot need. It returns the page to read on from, one after
// another, when the last page names a next one (0 when it does not).
func sideBySide[T any](ctx context.Context, r *reading[T]) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	n, per := r.pages, max(len(r.first.Results), 1)
	// Pages are asked up to ahead past the one v waits for: more than the
	// bound, so that a slow page does not keep the others from being
	// asked, while the bound holds the requests in flight.
	ahead := 2 * r.c.bound
	answers := make(map[int]chan fetched[T], ahead)
	asked := 1 // the last page asked
	for page := 2; page <= n; page++ {
		for asked < n && asked < page-1+ahead && (r.more < 0 || (asked-page+1)*per < r.more) {
			asked++
			ch := make(chan fetched[T], 1)
			answers[asked] = ch
			wg.Add(1)
			go func(k int) {
				defer wg.Done()
				p, err := fetchPage[T](ctx, r.c, r.l, k)
				ch <- fetched[T]{p, err}
			}(asked)
		}
		got := <-answers[page]
		delete(answers, page)
		if got.err != nil {
			return 0, changedIfGone(got.err)
		}
		next, err := r.take(got.page, page)
		if err != nil || next == 0 || page == n {
			// At page n, a next page named is past what the first page
			// told: read on one by one.
			return next, err
		}
	}
	return 0, nil
}

// pageCount is how many pages the first page's envelope says the list has:
// total_pages, or count over the size of the first page (every page but
// the last holds as many as the service serves, which may be fewer than
// asked, whatever page_size says); 0 when it does not say.
func pageCount[T any](first *Page[T]) int {
	if t := first.TotalPages; t != nil && *t > 0 {
		return int(min(*t, maxPages))
	}
	size := int64(len(first.Results))
	switch {
	case first.Count == nil || size == 0:
		return 0
	case *first.Count <= size:
		return 1
	}
	return int(min((*first.Count+size-1)/size, maxPages))
}

// sameSet tells whether page p belongs to the same result set as the first
// page: the count and total_pages that both give are equal.
func sameSet[T any](first, p *Page[T]) bool {
	same := func(a, b *int64) bool { return a == nil || b == nil || *a == *b }
	return same(first.Count, p.Count) && same(first.TotalPages, p.TotalPages)
}

// changedIfGone: a page past the first that the service does not find
// (404), where the first page told there would be one, means that the list
// has shrunk since its first page was read.
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
	next := *p.NextPage.Number
	var err error
	switch {
	case next <= int64(page):
		err = fmt.Errorf("the service's next_page (%d) does not move forward from page %d", next, page)
	case len(p.Results) == 0:
		err = fmt.Errorf("the service's page %d is empty but names a next page (%d)", page, next)
	case next > maxPages:
		err = fmt.Errorf("the service's next_page (%d) is past the %d pages a list is read to", next, maxPages)
	default:
		return int(next), nil
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
