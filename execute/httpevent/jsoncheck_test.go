package httpevent_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// decode parses a JSON document the test expects or a package wrote,
// failing the test when it is not valid JSON.
func decode(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatalf("not a JSON object: %v\n%s", err, raw)
	}
	return m
}

// sameJSON fails the test when got and want are not the same JSON value.
func sameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	g, w := decode(t, got), decode(t, []byte(want))
	if !reflect.DeepEqual(g, w) {
		gj, _ := json.MarshalIndent(g, "", " ")
		wj, _ := json.MarshalIndent(w, "", " ")
		t.Errorf("event differs\ngot:  %s\nwant: %s", gj, wj)
	}
}

// topKeys is the names of the object raw's members, in order.
func topKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var keys []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// member is the raw text of the object raw's member at path (names).
func member(t *testing.T, raw []byte, path ...string) []byte {
	t.Helper()
	for _, name := range path {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v, ok := m[name]
		if !ok {
			t.Fatalf("no member %q in %s", name, raw)
		}
		raw = v
	}
	return raw
}
