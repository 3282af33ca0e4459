package functions

import (
	"strings"
	"testing"
)

const nodeIndex = `
exports.asyncHandler = async (event, context) => {
  console.log('got', JSON.stringify(event));
  return { got: event, fn: context.functionName, id: context.awsRequestId };
};

exports.callbackHandler = (event, context, callback) => {
  setTimeout(() => callback(null, { via: 'callback', remaining: context.getRemainingTimeInMillis() > 0 }), 10);
};

exports.callbackError = (event, context, callback) => {
  callback(new TypeError('bad type'));
};

exports.throws = async () => {
  throw new RangeError('out of range');
};

exports.throwsSync = (event, context, callback) => {
  throw new Error('sync boom');
};

exports.syncReturn = () => 42;

exports.context = async (event, context) => ({
  functionName: context.functionName,
  functionVersion: context.functionVersion,
  invokedFunctionArn: context.invokedFunctionArn,
  memoryLimitInMB: context.memoryLimitInMB,
  awsRequestId: context.awsRequestId,
  logGroupName: context.logGroupName,
  remaining: context.getRemainingTimeInMillis(),
  env: process.env.AWS_EXECUTION_ENV,
});

exports.nested = { deeper: { handler: async () => 'deep' } };
`

func nodeFunction(t *testing.T, name, handler string, extra ...zipEntry) Function {
	if _, _, err := newNode("node").resolve(); err != nil {
		missingTool(t, "node", err)
	}
	entries := append([]zipEntry{
		{name: "index.js", body: nodeIndex},
		{name: "lib/util.js", body: "exports.handler = async (e) => ({ nested: true });\n"},
		{name: "esm/app.mjs", body: "export const handler = async (e) => 'esm';\n"},
		{name: "esmpkg/package.json", body: `{"type":"module"}`},
		{name: "esmpkg/app.js", body: "export const handler = async (e) => 'esm-js';\n"},
		{name: "missingdep.js", body: "require('not-installed');\nexports.handler = async () => 1;\n"},
		{name: "badsyntax.js", body: "exports.handler = async ( => 1;\n"},
	}, extra...)
	return function(name, "nodejs20.x", handler, makeZip(t, entries...))
}

func TestNodeHandlers(t *testing.T) {
	r, logs := newRuntime(t, Config{})
	fn := nodeFunction(t, "nodeasync", "index.asyncHandler")
	res := invoke(t, r, fn, `{"k":1}`)
	mustOK(t, res)
	m := decode(t, res.Payload)
	if m["fn"] != "nodeasync" || m["id"] != res.RequestID || m["got"].(map[string]any)["k"] != float64(1) {
		t.Errorf("payload %s", res.Payload)
	}
	if !strings.Contains(string(res.LogTail), "\t"+res.RequestID+"\tINFO\tgot {\"k\":1}\n") {
		t.Errorf("tail:\n%s", res.LogTail)
	}
	if len(logs.find("INFO\tgot")) != 1 {
		t.Errorf("console.log not logged")
	}

	for handler, want := range map[string]string{
		"index.callbackHandler":       `{"via":"callback","remaining":true}`,
		"index.syncReturn":            `null`, // Lambda ignores a sync handler's return value
		"index.nested.deeper.handler": `"deep"`,
		"lib/util.handler":            `{"nested":true}`,
		"esm/app.handler":             `"esm"`,
		"esmpkg/app.handler":          `"esm-js"`,
	} {
		res := invoke(t, r, nodeFunction(t, "node-"+strings.ReplaceAll(handler, "/", "-"), handler), `{}`)
		if res.FunctionError != "" || string(res.Payload) != want {
			t.Errorf("%s: %q %s, want %s\n%s", handler, res.FunctionError, res.Payload, want, res.LogTail)
		}
	}
}

func TestNodeErrors(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	for handler, want := range map[string][2]string{
		"index.throws":        {"RangeError", "out of range"},
		"index.throwsSync":    {"Error", "sync boom"},
		"index.callbackError": {"TypeError", "bad type"},
	} {
		fn := nodeFunction(t, "nodeerr", handler)
		res := invoke(t, r, fn, `{}`)
		m := decode(t, res.Payload)
		trace, _ := m["trace"].([]any)
		if res.FunctionError != "Unhandled" || m["errorType"] != want[0] || m["errorMessage"] != want[1] ||
			len(trace) < 2 || trace[0] != want[0]+": "+want[1] {
			t.Errorf("%s: %q %s", handler, res.FunctionError, res.Payload)
		}
		if !strings.Contains(string(res.LogTail), "\tERROR\tInvoke Error {\"errorType\":\""+want[0]) {
			t.Errorf("%s: tail:\n%s", handler, res.LogTail)
		}
		// Still warm after the error.
		mustOK(t, invoke(t, r, nodeFunction(t, "nodeerr", "index.syncReturn"), `{}`))
	}
}

func TestNodeInitErrors(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	for _, c := range []struct{ handler, errorType, message string }{
		{"nothere.handler", "Runtime.ImportModuleError", "Error: Cannot find module 'nothere'"},
		{"missingdep.handler", "Runtime.ImportModuleError", "Error: Cannot find module 'not-installed'"},
		{"index.nope", "Runtime.HandlerNotFound", "index.nope is undefined or not exported"},
		{"index.nested", "Runtime.HandlerNotFound", "index.nested is not a function"},
		{"index", "Runtime.MalformedHandlerName", "Bad handler"},
		{"badsyntax.handler", "Runtime.UserCodeSyntaxError", "SyntaxError: "},
	} {
		fn := nodeFunction(t, "nodeinit", c.handler)
		res := invoke(t, r, fn, `{}`)
		m := decode(t, res.Payload)
		if res.FunctionError != "Unhandled" || m["errorType"] != c.errorType || !strings.HasPrefix(m["errorMessage"].(string), c.message) {
			t.Errorf("%s: %q %s", c.handler, res.FunctionError, res.Payload)
		}
		if !strings.Contains(string(res.LogTail), "Error Type: "+c.errorType) {
			t.Errorf("%s: tail:\n%s", c.handler, res.LogTail)
		}
	}
}

func TestNodeContext(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := nodeFunction(t, "nodectx", "index.context")
	res := invoke(t, r, fn, `{}`)
	mustOK(t, res)
	m := decode(t, res.Payload)
	for k, v := range map[string]any{
		"functionName": "nodectx", "functionVersion": "$LATEST", "invokedFunctionArn": fn.ARN,
		"memoryLimitInMB": "128", "awsRequestId": res.RequestID, "logGroupName": "/aws/lambda/nodectx",
		"env": "AWS_Lambda_nodejs20.x",
	} {
		if m[k] != v {
			t.Errorf("context.%s = %v, want %v", k, m[k], v)
		}
	}
	if rem := m["remaining"].(float64); rem <= 0 || rem > 5000 {
		t.Errorf("remaining %v", rem)
	}
}
