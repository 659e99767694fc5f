package sandbox

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// The values of Variant.PastEnd and Variant.Filters; empty means the first
// of each.
const (
	PastEnd404   = "404"
	PastEndEmpty = "empty"

	FiltersExact   = "exact"
	FiltersPartial = "partial"
	FiltersIgnored = "ignored"
)

// EnvelopeFields are a list page's fields besides results, in the API's order.
var EnvelopeFields = []string{"count", "next_page", "previous_page", "page_size", "total_pages", "current_page"}

// NullableFields are the job fields Variant.NullFields may name.
var NullableFields = []string{"data_source", "connector_name", "schema_name", "name", "_updated_at"}

func checkVariant(v Variant) error {
	for _, f := range v.Envelope {
		if !slices.Contains(EnvelopeFields, f) {
			return fmt.Errorf("envelope: unknown field %q: allowed are %s", f, strings.Join(EnvelopeFields, ", "))
		}
	}
	if v.MaxPageSize < 0 {
		return fmt.Errorf("max_page_size must not be negative, got %d", v.MaxPageSize)
	}
	if v.PastEnd != "" && v.PastEnd != PastEnd404 && v.PastEnd != PastEndEmpty {
		return fmt.Errorf(`past_end must be "404" or "empty", got %q`, v.PastEnd)
	}
	if v.Filters != "" && v.Filters != FiltersExact && v.Filters != FiltersPartial && v.Filters != FiltersIgnored {
		return fmt.Errorf(`filters must be "exact", "partial" or "ignored", got %q`, v.Filters)
	}
	for _, f := range v.NullFields {
		if !slices.Contains(NullableFields, f) {
			return fmt.Errorf("null_fields: %q cannot be null: allowed are %s", f, strings.Join(NullableFields, ", "))
		}
	}
	return nil
}

// clone keeps a nil Envelope nil and an empty one empty: they differ.
func (v Variant) clone() Variant {
	v.Envelope = slices.Clone(v.Envelope)
	v.NullFields = slices.Clone(v.NullFields)
	return v
}

// SetVariant replaces the variant; requests being served finish with the
// old one.
func (s *Server) SetVariant(v Variant) error {
	v.PastEnd, v.Filters = strings.ToLower(v.PastEnd), strings.ToLower(v.Filters)
	if err := checkVariant(v); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.variant = v.clone()
	return nil
}

// Variant returns a copy of the variant.
func (s *Server) Variant() Variant {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.variant.clone()
}

func (s *Server) sideGetVariant(w http.ResponseWriter, _ *http.Request, _ *workspace) {
	writeJSON(w, http.StatusOK, s.Variant())
}

func (s *Server) sidePutVariant(w http.ResponseWriter, r *http.Request, _ *workspace) {
	sidePut(w, r, `a variant object, {"envelope": ["count", "next_page", "previous_page", "page_size", "total_pages", "current_page"] (null: all, []: none), `+
		`"max_page_size": 100, "past_end": "404" or "empty", "filters": "exact", "partial" or "ignored", "extra_fields": true or false, "null_fields": ["data_source", "name"]}`, func(v *Variant) error { return s.SetVariant(*v) })
}

func (v Variant) maxPageSize() int {
	if v.MaxPageSize == 0 {
		return 100
	}
	return v.MaxPageSize
}

func (v Variant) match(q map[string][]string, key, value string) bool {
	f, ok := q[key]
	switch {
	case !ok || v.Filters == FiltersIgnored:
		return true
	case v.Filters == FiltersPartial:
		return strings.Contains(strings.ToLower(value), strings.ToLower(f[0]))
	}
	return f[0] == value
}

func extraFields(kind string) object {
	return object{
		{"_links", map[string]any{"self": map[string]string{"href": "/" + kind}}},
		{"owner", "sandbox"},
		{"tags", []string{"sandbox", kind}},
		{"revision", 1},
		{"archived_at", nil},
	}
}
