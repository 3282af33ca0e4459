package sesv2http

import (
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/actors/ses"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/restjson"
)

func operation(t *testing.T, name string) *awswire.Operation {
	t.Helper()
	for i := range awswire.Operations {
		if op := &awswire.Operations[i]; op.Service == awswire.SESv2 && op.Name == name {
			return op
		}
	}
	t.Fatalf("no SESv2 operation %s", name)
	return nil
}

// TestListEmailIdentitiesPost: the current SDK's form of the listing (a
// POSTed NextToken and PageSize) pages as the model's GET does.
func TestListEmailIdentitiesPost(t *testing.T) {
	env := actorstest.New(t)
	svc := ses.New(env.Sys, env.Store, time.Now, slog.New(slog.DiscardHandler), ses.Options{})
	t.Cleanup(svc.Detach)
	for _, name := range []string{"a.com", "b@c.com", "d.org"} {
		if _, err := svc.CreateIdentity(actorstest.Scope, name, nil); err != nil {
			t.Fatal(err)
		}
	}
	list := Handlers(svc)["ListEmailIdentities"]
	call := func(body string) (int, map[string]any, error) {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod("POST")
		ctx.Request.SetBodyString(body)
		c := &restjson.Call{Ctx: &ctx, Op: operation(t, "ListEmailIdentities"), Scope: actorstest.Scope}
		if err := list(c); err != nil {
			return 0, nil, err
		}
		var out map[string]any
		if err := json.Unmarshal(ctx.Response.Body(), &out); err != nil {
			t.Fatal(err)
		}
		return ctx.Response.StatusCode(), out, nil
	}
	st, out, err := call(`{"PageSize":2}`)
	if err != nil || st != 200 || len(out["EmailIdentities"].([]any)) != 2 || out["NextToken"] == nil {
		t.Fatalf("first page %d %v %v", st, out, err)
	}
	b, _ := json.Marshal(map[string]any{"NextToken": out["NextToken"], "PageSize": 2})
	st, out, err = call(string(b))
	if err != nil || st != 200 || len(out["EmailIdentities"].([]any)) != 1 || out["NextToken"] != nil {
		t.Fatalf("second page %d %v %v", st, out, err)
	}
	for _, bad := range []string{`{"PageSize":0}`, `{"PageSize":"x"}`, `{oops`, `{"NextToken":"forged"}`} {
		if _, _, err := call(bad); err == nil {
			t.Errorf("%s accepted", bad)
		} else if we, ok := err.(*awswire.Error); !ok || we.Code != "BadRequestException" {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
