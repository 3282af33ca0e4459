package main

import (
	"context"

	"github.com/valyala/fasthttp"
)

// deployHTTPAPI creates an HTTP API with one route (routeKey) to an
// HTTP_PROXY integration at uri, an optional authorizer (JSON, "" for
// none) on the route, and an auto-deployed $default stage; it returns the
// API id.
func deployHTTPAPI(addr, name, routeKey, uri, authorizer string) (string, error) {
	var api struct {
		ID string `json:"apiId"`
	}
	if err := call(addr, "POST", "/v2/apis", `{"name":"`+name+`","protocolType":"HTTP"}`, 201, &api); err != nil {
		return "", err
	}
	var integ struct {
		ID string `json:"integrationId"`
	}
	if err := call(addr, "POST", "/v2/apis/"+api.ID+"/integrations",
		`{"integrationType":"HTTP_PROXY","integrationMethod":"ANY","payloadFormatVersion":"1.0","integrationUri":"`+uri+`"}`,
		201, &integ); err != nil {
		return "", err
	}
	route := `{"routeKey":"` + routeKey + `","target":"integrations/` + integ.ID + `"}`
	if authorizer != "" {
		var auth struct {
			ID string `json:"authorizerId"`
		}
		if err := call(addr, "POST", "/v2/apis/"+api.ID+"/authorizers", authorizer, 201, &auth); err != nil {
			return "", err
		}
		route = `{"routeKey":"` + routeKey + `","target":"integrations/` + integ.ID +
			`","authorizationType":"JWT","authorizerId":"` + auth.ID + `"}`
	}
	if err := call(addr, "POST", "/v2/apis/"+api.ID+"/routes", route, 201, nil); err != nil {
		return "", err
	}
	return api.ID, call(addr, "POST", "/v2/apis/"+api.ID+"/stages", `{"stageName":"$default","autoDeploy":true}`, 201, nil)
}

// executeHTTPAPIProxy is a request to an HTTP API's `ANY /{proxy+}` route
// whose HTTP_PROXY backend is the bare server, measured against the bare
// reverse proxy to the same backend.
func executeHTTPAPIProxy() scenario {
	var path string
	return scenario{
		Name:     "ExecuteHttpApiProxy",
		Emulator: true,
		Baseline: "bare-proxy",
		Backend: func(_ context.Context, addr, backend string) error {
			id, err := deployHTTPAPI(addr, "bench-http-api", "ANY /{proxy+}", "http://"+backend+"/{proxy}", "")
			path = "/_aws/execute-api/" + id + "/items/42"
			return err
		},
		Build: func(req *fasthttp.Request) {
			req.Header.SetMethod(fasthttp.MethodGet)
			req.SetRequestURI(path)
		},
	}
}
