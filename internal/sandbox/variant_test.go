package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

const connectorsPath = "/developers/workspaces/" + ws + "/connectors/"

// keys returns the keys of a JSON object, sorted.
func keys(m any) []string {
	var out []string
	for k := range m.(map[string]any) {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sorted(s ...string) []string { slices.Sort(s); return s }

// setVariant sets v, failing the test if it is refused.
func (h *harness) setVariant(v Variant) {
	h.t.Helper()
	if err := h.srv.SetVariant(v); err != nil {
		h.t.Fatal(err)
	}
}

// addConnectors creates connectors of the given names through the API.
func (h *harness) addConnectors(names ...string) {
	h.t.Helper()
	for _, n := range names {
		h.expect("POST", connectorsPath, connectorBody(n), 201, "")
	}
}

// TestVariant_envelope: the envelope carries the fields the variant names and
// no others; a field left out is absent, not null, on both lists.
func TestVariant_envelope(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 45})
	h.addConnectors("a", "b", "c")
	all := append(slices.Clone(EnvelopeFields), "results")
	for _, c := range []struct {
		envelope []string
		want     []string
	}{
		{nil, all},
		{[]string{}, []string{"results"}},
		{[]string{"count", "next_page"}, []string{"count", "next_page", "results"}},
		{[]string{"current_page", "total_pages"}, []string{"current_page", "results", "total_pages"}},
	} {
		h.setVariant(Variant{Envelope: c.envelope, MaxPageSize: 2})
		for _, path := range []string{jobsPath(""), jobsPath("?page=23"), connectorsPath, connectorsPath + "?page=2"} {
			p := h.expect("GET", path, nil, 200, "")
			if got := keys(p); !slices.Equal(got, sorted(c.want...)) {
				t.Errorf("envelope %q, %s: keys %v, want %v", c.envelope, path, got, c.want)
			}
			if len(p.(map[string]any)["results"].([]any)) == 0 {
				t.Errorf("envelope %q, %s: no results", c.envelope, path)
			}
		}
	}
	// On the last page next_page is there and null when kept, and absent
	// when left out.
	h.setVariant(Variant{Envelope: []string{"next_page"}})
	p := h.expect("GET", jobsPath("?page=3"), nil, 200, "").(map[string]any)
	if v, ok := p["next_page"]; !ok || v != nil {
		t.Errorf("last page with next_page kept: %v", p)
	}
	if p := h.expect("GET", jobsPath("?page=2"), nil, 200, "").(map[string]any); p["next_page"] != 3.0 {
		t.Errorf("next_page of page 2: %v", p["next_page"])
	}
	h.setVariant(Variant{Envelope: []string{"count"}})
	for _, path := range []string{jobsPath("?page=3"), jobsPath(""), connectorsPath} {
		if _, ok := h.expect("GET", path, nil, 200, "").(map[string]any)["next_page"]; ok {
			t.Errorf("%s: next_page left out of the envelope is in the answer", path)
		}
	}
	// The default envelope reads in the API's order.
	h.setVariant(Variant{})
	b, _ := json.Marshal(page[int]{count: 45, size: 20, total: 3, current: 1, next: new(2)}.wire(Variant{}, []int{}))
	if want := `{"count":45,"next_page":2,"previous_page":null,"page_size":20,"total_pages":3,"current_page":1,"results":[]}`; string(b) != want {
		t.Errorf("default envelope %s, want %s", b, want)
	}
}

// TestVariant_maxPageSize: a page_size asked above the largest, and the
// default of 20, are cut to it; page_size tells the size served.
func TestVariant_maxPageSize(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 45, Variant: Variant{MaxPageSize: 10}})
	check := func(c struct {
		path           string
		size, results  float64
		total, count   float64
		next, previous any
	}) {
		t.Helper()
		p := h.expect("GET", c.path, nil, 200, "").(map[string]any)
		if p["page_size"] != c.size || float64(len(p["results"].([]any))) != c.results || p["total_pages"] != c.total ||
			p["count"] != c.count || p["next_page"] != c.next || p["previous_page"] != c.previous {
			t.Errorf("%s: %v", c.path, p)
		}
	}
	for _, c := range []struct {
		path           string
		size, results  float64
		total, count   float64
		next, previous any
	}{
		{jobsPath(""), 10, 10, 5, 45, 2.0, nil},
		{jobsPath("?page_size=500"), 10, 10, 5, 45, 2.0, nil},
		{jobsPath("?page_size=7&page=7"), 7, 3, 7, 45, nil, 6.0},
		{jobsPath("?page_size=500&page=5"), 10, 5, 5, 45, nil, 4.0},
	} {
		check(c)
	}
	h.expect("GET", jobsPath("?page_size=500&page=6"), nil, 404, "Invalid page.")
	// Each connector adds a job: 57 jobs from here on.
	h.addConnectors("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l")
	for _, c := range []struct {
		path           string
		size, results  float64
		total, count   float64
		next, previous any
	}{
		{connectorsPath + "?page_size=500", 10, 10, 2, 12, 2.0, nil},
		{connectorsPath + "?page=2", 10, 2, 2, 12, nil, 1.0},
	} {
		check(c)
	}
	// Above the default of 100, larger pages are served.
	h.setVariant(Variant{MaxPageSize: 1000})
	jobs := make([]Job, 100)
	if err := h.srv.AddJobs(ws, jobs...); err != nil {
		t.Fatal(err)
	}
	if p := h.expect("GET", jobsPath("?page_size=500"), nil, 200, "").(map[string]any); p["page_size"] != 500.0 || len(p["results"].([]any)) != 157 {
		t.Errorf("max 1000, page_size=500: page_size %v, %d results", p["page_size"], len(p["results"].([]any)))
	}
}

// TestVariant_pastEnd: a page past the last is 404 by default and an empty
// 200 page with "empty"; a page that is no positive integer stays 404.
func TestVariant_pastEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 45})
	for _, path := range []string{jobsPath("?page=4"), jobsPath("?name=nobody&page=2"), connectorsPath + "?page=2"} {
		h.expect("GET", path, nil, 404, "Invalid page.")
	}
	h.setVariant(Variant{PastEnd: PastEnd404})
	h.expect("GET", jobsPath("?page=4"), nil, 404, "Invalid page.")

	h.setVariant(Variant{PastEnd: PastEndEmpty})
	for _, c := range []struct {
		path              string
		count, total, cur float64
		previous          any
	}{
		{jobsPath("?page=4"), 45, 3, 4, 3.0},
		{jobsPath("?page=9&page_size=50"), 45, 1, 9, 8.0},
		{jobsPath("?page=9223372036854775807"), 45, 3, 9223372036854775807, 9223372036854775806.0},
		// An empty result set has one empty page, and the pages past it
		// are empty too.
		{jobsPath("?name=nobody"), 0, 1, 1, nil},
		{jobsPath("?name=nobody&page=2"), 0, 1, 2, 1.0},
		{connectorsPath, 0, 1, 1, nil},
		{connectorsPath + "?page=2", 0, 1, 2, 1.0},
	} {
		p := h.expect("GET", c.path, nil, 200, "").(map[string]any)
		if v, ok := p["next_page"]; !ok || v != nil || len(p["results"].([]any)) != 0 || p["count"] != c.count ||
			p["total_pages"] != c.total || p["current_page"] != c.cur || p["previous_page"] != c.previous {
			t.Errorf("%s: %v", c.path, p)
		}
	}
	if p := h.expect("GET", jobsPath("?page=3"), nil, 200, "").(map[string]any); len(p["results"].([]any)) != 5 {
		t.Errorf("the last page is no longer served: %v", p)
	}
	for _, q := range []string{"?page=0", "?page=-1", "?page=x"} {
		h.expect("GET", jobsPath(q), nil, 404, "Invalid page.")
	}
	// With results alone, past the end is an empty list.
	h.setVariant(Variant{PastEnd: PastEndEmpty, Envelope: []string{}})
	if p := h.expect("GET", jobsPath("?page=4"), nil, 200, ""); !slices.Equal(keys(p), []string{"results"}) || len(p.(map[string]any)["results"].([]any)) != 0 {
		t.Errorf("past the end, results alone: %v", p)
	}
}

// TestVariant_filters: the untyped filters match exactly and case-sensitively
// by default, as a case-insensitive substring with "partial", and not at all
// with "ignored"; on jobs and on connectors, is_active unchanged.
func TestVariant_filters(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: DefaultJobs})
	// Their jobs: name and data_source the connector's name,
	// connector_name customer_service, schema_name support_desk and
	// billing_desk.
	h.addConnectors("Support Desk", "Billing desk")
	// seeded counts the generated jobs that keep keeps (zendesk among them
	// holds "desk", and customer_service is its connector_name too).
	seeded := func(keep func(Job) bool) float64 {
		n := 0.0
		for _, j := range SeedJobs(ws, DefaultJobs) {
			if keep(j) {
				n++
			}
		}
		return n
	}
	lower := func(s, sub string) bool { return strings.Contains(strings.ToLower(s), sub) }
	all := float64(DefaultJobs + 2)
	for _, c := range []struct {
		mode  string
		cases []struct {
			path string
			want float64
		}
	}{
		{FiltersExact, []struct {
			path string
			want float64
		}{
			{jobsPath("?data_source=stripe"), seeded(func(j Job) bool { return j.DataSource == "stripe" })},
			{jobsPath("?data_source=Stripe"), 0},
			{jobsPath("?data_source=strip"), 0},
			{jobsPath("?name=Support%20Desk"), 1},
			{jobsPath("?name=support%20desk"), 0},
			{jobsPath("?schema_name=raw&connector_name=crm"), seeded(func(j Job) bool { return j.SchemaName == "raw" && j.ConnectorName == "crm" })},
			{connectorsPath + "?name=Support%20Desk", 1},
			{connectorsPath + "?name=support%20desk", 0},
			{connectorsPath + "?name=Desk", 0},
			{connectorsPath + "?connector_name=customer_service", 2},
			{connectorsPath + "?connector_name=Customer_Service", 0},
		}},
		{FiltersPartial, []struct {
			path string
			want float64
		}{
			{jobsPath("?data_source=STRIP"), seeded(func(j Job) bool { return j.DataSource == "stripe" })},
			{jobsPath("?name=DESK"), 2 + seeded(func(j Job) bool { return lower(j.Name, "desk") })},
			{jobsPath("?name=billing%20D"), 1},
			{jobsPath("?schema_name=AW"), seeded(func(j Job) bool { return j.SchemaName == "raw" })},
			{jobsPath("?connector_name=CR"), seeded(func(j Job) bool { return j.ConnectorName == "crm" })},
			{jobsPath("?connector_name=Service&schema_name=_DESK"), 2},
			{jobsPath("?name=desk&is_active=false"), seeded(func(j Job) bool { return lower(j.Name, "desk") && !j.IsActive })},
			{jobsPath("?data_source=nobody"), 0},
			{connectorsPath + "?name=DESK", 2},
			{connectorsPath + "?name=support", 1},
			{connectorsPath + "?connector_name=Customer", 2},
			{connectorsPath + "?connector_name=crm", 0},
		}},
		{FiltersIgnored, []struct {
			path string
			want float64
		}{
			{jobsPath("?data_source=nobody"), all},
			{jobsPath("?name=x&schema_name=y&connector_name=z"), all},
			{jobsPath("?name=x&is_active=false"), seeded(func(j Job) bool { return !j.IsActive })},
			{connectorsPath + "?name=nobody", 2},
			{connectorsPath + "?connector_name=crm", 2},
		}},
	} {
		modes := []string{c.mode}
		if c.mode == FiltersExact {
			modes = append(modes, "") // the default
		}
		for _, mode := range modes {
			h.setVariant(Variant{Filters: mode})
			for _, k := range c.cases {
				p := h.expect("GET", k.path+"&page_size=100", nil, 200, "").(map[string]any)
				if p["count"] != k.want || float64(len(p["results"].([]any))) != k.want {
					t.Errorf("filters %q, %s: count %v, %d results, want %v", mode, k.path, p["count"], len(p["results"].([]any)), k.want)
				}
			}
		}
	}
}

// TestVariant_extraFields: the page, each job of a list and each connector
// carry fields the API does not list, beside all of their own.
func TestVariant_extraFields(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 2})
	h.addConnectors("desk")
	extras := []string{"_links", "archived_at", "owner", "revision", "tags"}
	job := []string{"_created_at", "_id", "_updated_at", "connector_name", "data_source", "is_active", "name", "schema_name"}
	conn := []string{"_created_at", "_id", "_updated_at", "configuration", "connector_name", "name", "streams"}
	env := append(slices.Clone(EnvelopeFields), "results")
	check := func(what string, obj any, own []string, with bool) {
		t.Helper()
		want := sorted(own...)
		if with {
			want = sorted(append(slices.Clone(own), extras...)...)
		}
		if got := keys(obj); !slices.Equal(got, want) {
			t.Errorf("extra_fields %v, %s: keys %v, want %v", with, what, got, want)
		}
	}
	for _, with := range []bool{false, true} {
		h.setVariant(Variant{ExtraFields: with})
		p := h.expect("GET", jobsPath(""), nil, 200, "").(map[string]any)
		check("jobs page", p, env, with)
		for _, j := range p["results"].([]any) {
			check("job", j, job, with)
		}
		p = h.expect("GET", connectorsPath, nil, 200, "").(map[string]any)
		check("connectors page", p, env, with)
		c := p["results"].([]any)[0].(map[string]any)
		check("listed connector", c, conn, with)
		check("read connector", h.expect("GET", connectorsPath+c["_id"].(string)+"/", nil, 200, ""), conn, with)
		check("created connector", h.expect("POST", connectorsPath, connectorBody("more"), 201, ""), conn, with)
	}
	p := h.expect("GET", jobsPath(""), nil, 200, "").(map[string]any)
	if _, nested := p["_links"].(map[string]any)["self"].(map[string]any); !nested || p["count"] != 5.0 {
		t.Errorf("the extra fields hold no nested object, or the page changed: %v", p)
	}
}

// TestVariant_nullFields: the fields named are null in every job of a list,
// the others keep their values, and filters still match the stored values.
func TestVariant_nullFields(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 5, Variant: Variant{NullFields: []string{"name", "_updated_at"}}})
	h.addConnectors("desk")
	seeded := SeedJobs(ws, 5)
	p := h.expect("GET", jobsPath("?name="+strings.ReplaceAll(seeded[2].Name, " ", "%20")), nil, 200, "").(map[string]any)
	if p["count"] != 1.0 {
		t.Fatalf("a filter on a field sent as null: %v", p)
	}
	for _, fields := range [][]string{{"name", "_updated_at"}, NullableFields} {
		h.setVariant(Variant{NullFields: fields})
		p = h.expect("GET", jobsPath(""), nil, 200, "").(map[string]any)
		for _, r := range p["results"].([]any) {
			j := r.(map[string]any)
			for _, f := range jobWireFields {
				v, ok := j[f]
				if null := slices.Contains(fields, f); !ok || (v == nil) != null {
					t.Errorf("null_fields %v: %s is %v (present %v)", fields, f, v, ok)
				}
			}
		}
	}
	// Connectors and the server's own view keep the values.
	if c := h.expect("GET", connectorsPath, nil, 200, "").(map[string]any)["results"].([]any)[0].(map[string]any); c["name"] != "desk" || c["_updated_at"] == nil {
		t.Errorf("a connector lost a value: %v", c)
	}
	if j := h.srv.Jobs(ws)[0]; j.Name != seeded[0].Name {
		t.Errorf("the stored job lost its name: %+v", j)
	}
}

// jobWireFields are the fields of a job as the API lists them.
var jobWireFields = []string{"_id", "_created_at", "_updated_at", "data_source", "connector_name", "schema_name", "name", "is_active"}

// TestVariant_refused: New and SetVariant refuse a variant they cannot
// honour, naming the field and what is allowed; a refused one changes
// nothing.
func TestVariant_refused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v    Variant
		want []string
	}{
		{Variant{Envelope: []string{"count", "results"}}, []string{`envelope: unknown field "results"`, "allowed are count, next_page, previous_page, page_size, total_pages, current_page"}},
		{Variant{Envelope: []string{"Count"}}, []string{`envelope: unknown field "Count"`}},
		{Variant{MaxPageSize: -1}, []string{"max_page_size must not be negative, got -1"}},
		{Variant{PastEnd: "200"}, []string{`past_end must be "404" or "empty", got "200"`}},
		{Variant{Filters: "fuzzy"}, []string{`filters must be "exact", "partial" or "ignored", got "fuzzy"`}},
		{Variant{NullFields: []string{"name", "is_active"}}, []string{`null_fields: "is_active" cannot be null`, "allowed are data_source, connector_name, schema_name, name, _updated_at"}},
		{Variant{NullFields: []string{"_id"}}, []string{`null_fields: "_id"`}},
	} {
		_, err := New(Config{Variant: c.v})
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("New with %+v: %v, want %q", c.v, err, w)
			}
		}
	}
	h := newHarness(t, Config{Jobs: 1, Variant: Variant{Filters: FiltersPartial}})
	if err := h.srv.SetVariant(Variant{Filters: "fuzzy"}); err == nil {
		t.Error("SetVariant took filters fuzzy")
	}
	if got := h.srv.Variant(); got.Filters != FiltersPartial {
		t.Errorf("a refused variant changed it: %+v", got)
	}
}

// TestVariant_sideDoor: PUT /_sandbox/variant sets the variant and GET shows
// it, behind the key; they are counted as the other side-door routes are:
// by route, never faulted, not held as the API's requests.
func TestVariant_sideDoor(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Config{Jobs: 3})
	got := h.expect("GET", "/_sandbox/variant", nil, 200, "").(map[string]any)
	if v, ok := got["envelope"]; !ok || v != nil || len(got) != 1 {
		t.Errorf("default variant: %v", got)
	}
	h.expect("PUT", "/_sandbox/faults", map[string]any{"rate": 1, "statuses": []int{503}}, 200, "")
	body := map[string]any{"envelope": []string{}, "max_page_size": 2, "past_end": "empty", "filters": "ignored", "extra_fields": true, "null_fields": []string{"name"}}
	if got := h.expect("PUT", "/_sandbox/variant", body, 200, ""); !jsonEqual(got, body) {
		t.Errorf("PUT answered %v", got)
	}
	if got := h.expect("GET", "/_sandbox/variant", nil, 200, ""); !jsonEqual(got, body) {
		t.Errorf("GET after PUT: %v", got)
	}
	want := Variant{Envelope: []string{}, MaxPageSize: 2, PastEnd: PastEndEmpty, Filters: FiltersIgnored, ExtraFields: true, NullFields: []string{"name"}}
	v := h.srv.Variant()
	if v.Envelope == nil || !slices.Equal(v.Envelope, want.Envelope) || v.MaxPageSize != 2 || v.PastEnd != want.PastEnd ||
		v.Filters != want.Filters || !v.ExtraFields || !slices.Equal(v.NullFields, want.NullFields) {
		t.Errorf("Variant() %+v, want %+v", v, want)
	}
	v.NullFields[0] = "schema_name"
	if h.srv.Variant().NullFields[0] != "name" {
		t.Error("a change to what Variant returned changed the server's")
	}

	for _, c := range []struct {
		body any
		want string
	}{
		{map[string]any{"past_end": "later"}, `past_end must be "404" or "empty"`},
		{map[string]any{"envelope": []string{"results"}}, "allowed are count"},
		{map[string]any{"past-end": "empty"}, `json: unknown field "past-end": the body must be a variant object, {"envelope": [`},
		{map[string]any{"envelope": "none"}, `(null: all, []: none)`},
		{map[string]any{"max_page_size": "10"}, "variant object"},
		{[]string{"count"}, "variant object"},
	} {
		h.expect("PUT", "/_sandbox/variant", c.body, 400, c.want)
	}
	if st, _, _ := h.call("PUT", "/_sandbox/variant", "", map[string]any{}); st != 401 {
		t.Errorf("PUT without a key: %d", st)
	}
	if st, _, _ := h.call("GET", "/_sandbox/variant", "nope", nil); st != 401 {
		t.Errorf("GET with an unknown key: %d", st)
	}
	if v := h.srv.Variant(); v.MaxPageSize != 2 || v.Filters != FiltersIgnored {
		t.Errorf("a refused or unauthorized PUT changed the variant: %+v", v)
	}

	st := h.srv.Stats()
	if st.ByRoute["PUT /_sandbox/variant"] != 8 || st.ByRoute["GET /_sandbox/variant"] != 3 || st.Requests != 12 ||
		st.Faults != 0 || st.MaxInFlight != 0 {
		t.Errorf("stats: %+v", st)
	}
}

// jsonEqual compares a decoded answer with what a value encodes to.
func jsonEqual(got, want any) bool {
	a, _ := json.Marshal(got)
	b, _ := json.Marshal(want)
	var x, y any
	_ = json.Unmarshal(a, &x)
	_ = json.Unmarshal(b, &y)
	a, _ = json.Marshal(x)
	b, _ = json.Marshal(y)
	return bytes.Equal(a, b)
}

// TestVariant_concurrent: the variant changes while lists are served; each
// answer is whole under one variant or the other. Run with -race.
func TestVariant_concurrent(t *testing.T) {
	t.Parallel()
	srv, err := New(Config{Jobs: 30})
	if err != nil {
		t.Fatal(err)
	}
	variants := []Variant{{}, {Envelope: []string{"count"}, MaxPageSize: 5, NullFields: []string{"name"}, ExtraFields: true}}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 200 {
			if err := srv.SetVariant(variants[i%2]); err != nil {
				t.Error(err)
			}
			_ = srv.Variant()
		}
	})
	for range 3 {
		wg.Go(func() {
			for range 100 {
				for _, path := range []string{jobsPath(""), connectorsPath} {
					req := httptest.NewRequest("GET", path, nil)
					req.Header.Set("Authorization", key)
					rec := httptest.NewRecorder()
					srv.ServeHTTP(rec, req)
					var p map[string]any
					if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &p) != nil {
						t.Errorf("%s: %d %s", path, rec.Code, rec.Body)
						return
					}
					n := len(p["results"].([]any))
					_, all := p["next_page"]
					_, extra := p["owner"]
					if all == extra || (path == jobsPath("") && (all && n != 20 || !all && n != 5)) {
						t.Errorf("%s: a page of two variants: %v", path, p)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestVariant_keywordsInAnyCase: the side door reads past_end and filters
// in any letter case, as the command's flags do.
func TestVariant_keywordsInAnyCase(t *testing.T) {
	t.Parallel()
	srv, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.SetVariant(Variant{PastEnd: "EMPTY", Filters: "Partial"}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Variant(); got.PastEnd != PastEndEmpty || got.Filters != FiltersPartial {
		t.Errorf("variant %+v, want past_end %q and filters %q", got, PastEndEmpty, FiltersPartial)
	}
	if err := srv.SetVariant(Variant{PastEnd: "LATER"}); err == nil {
		t.Error("past_end LATER was taken")
	}
}
