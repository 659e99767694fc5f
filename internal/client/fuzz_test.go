package client

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecodePage feeds any bytes to the decoding of a page of jobs: it never
// panics, and what it accepts survives a round trip unchanged.
func FuzzDecodePage(f *testing.F) {
	for _, s := range []string{
		`{"count": 1, "next_page": null, "results": [{"_id": "a", "name": "x", "is_active": true}]}`,
		`{}`, `{"results": null}`, `{"next_page": 2, "results": []}`, `[]`, ``, `<html>`, `{"results": [{"_id": 1}]}`,
		`{"count": 9223372036854775808}`, `{"results": [{"_id": "a"}]} trailing`, "{\"results\": [{\"name\": \"\xff\"}]}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Page[Job]
		if err := decode(bytes.NewReader(b), &p); err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		again, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("re-encoding an accepted page: %v", err)
		}
		var q Page[Job]
		if err := decode(bytes.NewReader(again), &q); err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip of %q: %+v, then %+v (%v)", b, p, q, err)
		}
	})
}
