package execute_test

import (
	"encoding/json"
	"testing"

	"github.com/cloudemu/emulator/execute"
)

type named string

func (n named) Serve(_ *execute.Request, resp *execute.Response) { resp.Body = append(resp.Body, n...) }

func TestRoute(t *testing.T) {
	owns := func(ids ...string) func(string, string) bool {
		return func(id, _ string) bool {
			for _, x := range ids {
				if x == id {
					return true
				}
			}
			return false
		}
	}
	rest := execute.Owned{Handler: named("rest"), Owns: owns("r1", "both")}
	http := execute.Owned{Handler: named("http"), Owns: owns("h1", "both")}
	if h := execute.Route(rest); h != rest.Handler {
		t.Errorf("one kind is not served directly: %T", h)
	}
	h := execute.Route(rest, http)
	for id, want := range map[string]string{"r1": "rest", "h1": "http", "both": "rest", "nobody": "rest"} {
		resp := &execute.Response{}
		h.Serve(&execute.Request{APIID: id}, resp)
		if string(resp.Body) != want {
			t.Errorf("%s went to %s, want %s", id, resp.Body, want)
		}
	}
}

func TestNotEmulated(t *testing.T) {
	resp := &execute.Response{Body: []byte("stale")}
	execute.NotEmulated("HTTP and WebSocket APIs").Serve(&execute.Request{APIID: `ab"c\1`, RequestID: "rid"}, resp)
	var body struct{ Message string }
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		t.Fatalf("%s: %v", resp.Body, err)
	}
	want := `Invoking HTTP and WebSocket APIs is not emulated yet; API 'abc1' is one (see README "What is not emulated")`
	if resp.Status != 501 || body.Message != want {
		t.Errorf("%d %q", resp.Status, body.Message)
	}
	hdr := map[string]string{}
	for _, h := range resp.Headers {
		hdr[h.Name] = h.Value
	}
	if hdr["x-amzn-ErrorType"] != "NotImplementedException" || hdr["x-amzn-RequestId"] != "rid" || hdr["Content-Type"] != "application/json" {
		t.Errorf("headers %v", hdr)
	}
}
