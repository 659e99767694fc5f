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

	"github.com/dataintegration/terraform-provider-dataintegration/internal/client/request"
)

// All is what a Visitor's Page returns to be given every item of a list.
const All = -1

// Visitor receives the pages of a list, in order, one call at a time.
type Visitor[T any] struct {
	// Page returns how many more items it wants: All, a number, or 0.
	Page func(items []T) (more int)
	// Reset forgets what Page was given: the list is read again.
	Reset func()
}

// Collect returns a Visitor that keeps the items keep accepts (all when
// nil), up to limit (0: no limit), and the slice it keeps them in.
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

func (l listing) unreadable(c *request.Client, err error) *Error {
	return c.Unreadable(request.Call{Op: l.op, Method: http.MethodGet, Path: l.path}, err)
}

// ErrListChanged is a list that changed twice in a row while it was read:
// giving up beats returning items missing or doubled.
var ErrListChanged = errors.New("the list changed while it was read")

// maxPages turns a service whose pages never end into an error.
const maxPages = 1 << 20

// walk reads a list as README.md, "Pages", says.
func walk[T any](ctx context.Context, c *request.Client, l listing, v Visitor[T]) error {
	return walkFrom(ctx, c, l, nil, v)
}

func walkFrom[T any](ctx context.Context, c *request.Client, l listing, first *Page[T], v Visitor[T]) error {
	return walkTries(ctx, c, l, first, v, nil)
}

// walkGrowing reads a list one page after another and takes it though others
// add items meanwhile (README.md, "Pages"). Where the service keeps its
// order, an item added ahead of the page being read pushes the rest on: an
// item present throughout is read at least once, and one pushed across a
// page's end twice, which id drops (an item without one is kept). Only an item deleted can hide one, so a
// count that falls, or fewer items than page 1 counted, is a changed list.
func walkGrowing[T any](ctx context.Context, c *request.Client, l listing, v Visitor[T], id func(T) string) error {
	return walkTries(ctx, c, l, nil, v, id)
}

func walkTries[T any](ctx context.Context, c *request.Client, l listing, first *Page[T], v Visitor[T], id func(T) string) error {
	for try := 0; ; try++ {
		err := walkOnce(ctx, c, l, first, v, id)
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

type reading[T any] struct {
	c        *request.Client
	l        listing
	v        Visitor[T]
	first    *Page[T]
	pages    int // as the first page says; 0 when it does not
	read     int64
	more     int
	last     []T
	lastPage int
	// A list read as it grows (walkGrowing): the key of an item, the keys
	// read, and the page read last, whose count and pages are the latest.
	id     func(T) string
	seen   map[string]bool
	latest *Page[T]
}

func walkOnce[T any](ctx context.Context, c *request.Client, l listing, first *Page[T], v Visitor[T], id func(T) string) error {
	if first == nil {
		var err error
		if first, err = fetchPage[T](ctx, c, l, 1); err != nil {
			return err
		}
	}
	r := &reading[T]{c: c, l: l, v: v, first: first, pages: pageCount(first), id: id, latest: first}
	if id != nil {
		r.seen = map[string]bool{}
	}
	next, err := r.take(first, 1)
	if err != nil || next == 0 {
		return err
	}
	if r.pages > 1 && next == 2 && c.Bound() > 1 && id == nil {
		if next, err = sideBySide(ctx, r); err != nil || next == 0 {
			return err
		}
	}
	return oneByOne(ctx, r, next)
}

func (r *reading[T]) take(p *Page[T], k int) (int, error) {
	if err := r.check(p, k); err != nil {
		return 0, err
	}
	items := p.Results
	if r.id != nil {
		items = r.unseen(p)
	}
	r.more = r.v.Page(items)
	r.read += int64(len(items))
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

// unseen is p's items not read before, in a list read as it grows; p's
// count and pages become the latest.
func (r *reading[T]) unseen(p *Page[T]) []T {
	fresh := make([]T, 0, len(p.Results))
	for _, it := range p.Results {
		if key := r.id(it); key == "" || !r.seen[key] {
			r.seen[key] = true
			fresh = append(fresh, it)
		}
	}
	r.latest = p
	if n := pagesOf(p, len(r.first.Results)); n > 0 {
		r.pages = n
	}
	return fresh
}

func (r *reading[T]) check(p *Page[T], k int) error {
	switch {
	case r.id != nil && r.shrank(p):
		return ErrListChanged
	case r.id == nil && !sameSet(r.first, p):
		return ErrListChanged
	case k > 1 && len(p.Results) > 0 && r.lastPage == k-1 && reflect.DeepEqual(p.Results, r.last) && sameSet(r.latest, p):
		return r.l.unreadable(r.c, fmt.Errorf("the service's page %d holds the same items as page %d: it may not honour the %q parameter", k, k-1, queryPage))
	case r.id == nil && r.first.Count != nil && r.read+int64(len(p.Results)) > *r.first.Count:
		return r.l.unreadable(r.c, fmt.Errorf("the service's pages hold more items than its count (%d) by page %d", *r.first.Count, k))
	}
	return nil
}

func (r *reading[T]) after(p *Page[T], k int) (int, error) {
	switch {
	case p.NextPage.Ends():
		if k < r.pages {
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
	return k + 1, nil
}

// shrank: a list read as it grows has changed when its count or pages fall.
func (r *reading[T]) shrank(p *Page[T]) bool {
	fell := func(was, now *int64) bool { return was != nil && now != nil && *now < *was }
	return fell(r.latest.Count, p.Count) || fell(r.latest.TotalPages, p.TotalPages)
}

func (r *reading[T]) ended() error {
	switch {
	case r.id != nil:
		// Items added ahead of the pages read are not read; every item
		// page 1 counted is, unless one was deleted.
		if c := r.latest.Count; r.first.Count != nil && (r.read < *r.first.Count || c != nil && r.read > *c) {
			return ErrListChanged
		}
	case r.first.Count != nil && r.read != *r.first.Count:
		return ErrListChanged
	}
	return nil
}

// beyondEnd: a 404 past the last page ends a list whose length nothing
// told; any other 404 means the list shrank.
func (r *reading[T]) beyondEnd(err error, k int) bool {
	return IsNotFound(err) && r.pages == 0 && r.first.Count == nil && k == r.lastPage+1 && !r.first.NextPage.Sent
}

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

type fetched[T any] struct {
	page *Page[T]
	err  error
}

func sideBySide[T any](ctx context.Context, r *reading[T]) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	n, per := r.pages, max(len(r.first.Results), 1)
	// Asking past the bound keeps a slow page from holding up the others;
	// the bound still holds the requests in flight.
	ahead := 2 * r.c.Bound()
	answers := make(map[int]chan fetched[T], ahead)
	asked := 1
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
			return next, err
		}
	}
	return 0, nil
}

// pageCount divides count by the first page's size, not page_size: the
// service may serve fewer than asked.
func pageCount[T any](first *Page[T]) int {
	return pagesOf(first, len(first.Results))
}

// pagesOf is the pages p tells of, at size items a page.
func pagesOf[T any](p *Page[T], size int) int {
	if t := p.TotalPages; t != nil && *t > 0 {
		return int(min(*t, maxPages))
	}
	n := int64(size)
	switch {
	case p.Count == nil || n == 0:
		return 0
	case *p.Count <= n:
		return 1
	}
	return int(min((*p.Count+n-1)/n, maxPages))
}

func sameSet[T any](first, p *Page[T]) bool {
	same := func(a, b *int64) bool { return a == nil || b == nil || *a == *b }
	return same(first.Count, p.Count) && same(first.TotalPages, p.TotalPages)
}

// changedIfGone: a 404 for a promised page means the list shrank.
func changedIfGone(err error) error {
	if IsNotFound(err) {
		return fmt.Errorf("%w: %w", ErrListChanged, err)
	}
	return err
}

// forward refuses a next_page that would make a walk that never ends.
func forward[T any](c *request.Client, l listing, p *Page[T], page int) (int, error) {
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

func fetchPage[T any](ctx context.Context, c *request.Client, l listing, page int) (*Page[T], error) {
	q := url.Values{}
	for k, v := range l.query {
		q[k] = v
	}
	q.Set(queryPage, strconv.Itoa(page))
	q.Set(queryPageSize, strconv.Itoa(PageSize))
	var p *Page[T]
	err := c.Do(ctx, request.Call{Op: l.op, Method: http.MethodGet, Path: l.path, Query: q, Want: http.StatusOK, Read: func(body io.Reader) (err error) {
		p, err = DecodePage[T](body)
		return err
	}})
	return p, err
}

// DecodePage reads one list answer as the client does, into a full page.
func DecodePage[T any](body io.Reader) (*Page[T], error) {
	p := Page[T]{Results: make([]T, 0, PageSize)}
	if err := request.Decode(body, &p); err != nil {
		return nil, err
	}
	return &p, nil
}
