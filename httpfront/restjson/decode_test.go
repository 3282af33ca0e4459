package restjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

// parityBody has the member kinds request bodies have: strings, pointers,
// numbers of several sizes, booleans, maps, slices, nested structures, a
// raw value and values with their own UnmarshalJSON.
type parityBody struct {
	Name   string            `json:"name"`
	Desc   *string           `json:"description"`
	Count  int32             `json:"count"`
	Big    *int64            `json:"big"`
	Rate   float64           `json:"rate"`
	On     *bool             `json:"enabled"`
	Tags   map[string]string `json:"tags"`
	Types  []string          `json:"types"`
	Any    any               `json:"any"`
	Raw    json.RawMessage   `json:"raw"`
	Nested *struct {
		Types []string `json:"types"`
		Limit *int     `json:"limit"`
	} `json:"endpointConfiguration"`
	Ops []struct {
		Op, Path string
		Value    *string `json:"value"`
	} `json:"patchOperations"`
	Stamp epochLike `json:"stamp"`
}

type epochLike int64

func (e *epochLike) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*e = epochLike(f * 1000)
	return nil
}

var paritySeeds = []string{
	`{}`, `{"name":"a","description":"d","count":3,"big":9007199254740993,"rate":1.5,"enabled":true}`,
	`{"tags":{"a":"b","c":"d"},"types":["REGIONAL"],"any":{"x":[1,"2",null,true]},"raw":{"k":[1]}}`,
	`{"endpointConfiguration":{"types":["EDGE"],"limit":5},"patchOperations":[{"op":"replace","path":"/a","value":"b"}]}`,
	`{"NAME":"case","Name":"dup","name":"last"}`, `{"name":"\ud800\udc00 \u00e9 \xff"}`, `{"count":1.5}`,
	`{"count":"3"}`, `{"count":99999999999}`, `{"tags":[1]}`, `{"name":null,"tags":null,"types":null}`,
	`{"name":"a"} trailing`, `{"name":"a"`, `{"rate":1e400}`, `{"stamp":1700000000.5}`, `{"stamp":"x"}`,
	`{"any":1e2,"raw":  [ 1 , 2 ] }`, `{"unknown":{"deep":[[[]]]},"name":"k"}`, `{"types":["a",1]}`,
	`{"enabled":"true"}`, `{"big":-1}`, `{"description":""}`, ` {"name":"space"} `,
}

func decodeStd(b []byte) (parityBody, error) {
	var v parityBody
	err := json.Unmarshal(b, &v)
	return v, err
}

func checkParity(t *testing.T, b []byte) {
	want, werr := decodeStd(b)
	var got parityBody
	gerr := decodeJSON(b, &got)
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		t.Fatalf("%q: error %v, encoding/json %v", b, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %+v\nwant %+v", b, got, want)
	}
}

// TestDecodeParity: the fast decoder decodes what encoding/json decodes,
// to the same values, and fails with encoding/json's error.
func TestDecodeParity(t *testing.T) {
	for _, s := range paritySeeds {
		checkParity(t, []byte(s))
	}
}

func FuzzDecodeParity(f *testing.F) {
	for _, s := range paritySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkParity)
}
