// Package gateway provides API Gateway's mapping-template variables for
// the vtl engine: $input (body, json, path, params), $util
// (escapeJavaScript, parseJson, urlEncode, urlDecode, base64Encode,
// base64Decode), $context (with the writable requestOverride and
// responseOverride maps) and $stageVariables, plus MockStatus for MOCK
// integrations. It knows nothing of HTTP: the data plane fills a Request.
//
// A render goes:
//
//	ctx := gateway.NewContext(gateway.Context{RequestID: id, Stage: "dev", ...})
//	vars := gateway.Vars(gateway.Request{Body: body, QueryParams: q, Context: ctx, ...})
//	out, err := tmpl.Render(vars, vtl.DefaultLimits)
//	ov := gateway.ReadOverrides(ctx)
//
// Overrides set by a request template stay in ctx, so passing the same ctx
// to the response template's Request carries them over, as API Gateway
// does. Vars, NewContext and the values they hold are per request and are
// not safe for concurrent renders; $util is stateless and shared.
//
// The package must not import HTTP code or parse request lines: keeping it
// pure keeps `emulator template render` and the data plane identical.
package gateway
