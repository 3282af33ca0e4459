package functions

import (
	"strings"
	"testing"
)

const pythonApp = `
import json, logging, os, sys, time

def handler(event, context):
    return {"got": event, "runtime": os.environ.get("AWS_EXECUTION_ENV")}

def fails(event, context):
    raise ValueError("bad value " + str(event.get("x")))

def context_fields(event, context):
    return {
        "function_name": context.function_name,
        "function_version": context.function_version,
        "invoked_function_arn": context.invoked_function_arn,
        "memory_limit_in_mb": context.memory_limit_in_mb,
        "aws_request_id": context.aws_request_id,
        "log_group_name": context.log_group_name,
        "log_stream_name": context.log_stream_name,
        "remaining": context.get_remaining_time_in_millis(),
        "trace": os.environ.get("_X_AMZN_TRACE_ID"),
    }

def env(event, context):
    return {k: os.environ.get(k) for k in event["keys"]}

def prints(event, context):
    print("hello from python")
    sys.stderr.write("to stderr\n")
    logging.getLogger().warning("a warning")
    return "ok"

def unserializable(event, context):
    return object()

def exits(event, context):
    sys.exit(2)

def sleeps(event, context):
    time.sleep(event["s"])
    return "slept"

not_a_function = 3
`

func pythonFunction(t *testing.T, name, handler string, extra ...zipEntry) Function {
	if _, _, err := newPython("python3").resolve(); err != nil {
		missingTool(t, "python3", err)
	}
	entries := append([]zipEntry{
		{name: "app.py", body: pythonApp},
		{name: "pkg/__init__.py", body: ""},
		{name: "pkg/mod.py", body: "def handler(event, context):\n    return 'nested'\n"},
		{name: "broken.py", body: "import does_not_exist\n"},
		{name: "syntax.py", body: "def handler(:\n"},
	}, extra...)
	return function(name, "python3.12", handler, makeZip(t, entries...))
}

func TestPythonReturn(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := pythonFunction(t, "py", "app.handler")
	res := invoke(t, r, fn, `{"a":[1,2]}`)
	mustOK(t, res)
	if string(res.Payload) != `{"got": {"a": [1, 2]}, "runtime": "AWS_Lambda_python3.12"}` {
		t.Errorf("payload %s", res.Payload)
	}
	if res.InitDuration <= 0 {
		t.Errorf("no init duration")
	}
	res = invoke(t, r, fn, `{}`)
	mustOK(t, res)
	if res.InitDuration != 0 {
		t.Errorf("second invoke was cold")
	}
	for _, h := range []string{"pkg/mod.handler", "pkg.mod.handler"} {
		f := pythonFunction(t, "pynested", h)
		if res := invoke(t, r, f, `{}`); string(res.Payload) != `"nested"` {
			t.Errorf("%s: %s %s", h, res.FunctionError, res.Payload)
		}
	}
}

func TestPythonException(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := pythonFunction(t, "pyerr", "app.fails")
	res := invoke(t, r, fn, `{"x":7}`)
	m := decode(t, res.Payload)
	if res.FunctionError != "Unhandled" || m["errorType"] != "ValueError" || m["errorMessage"] != "bad value 7" || m["requestId"] != res.RequestID {
		t.Fatalf("%q %s", res.FunctionError, res.Payload)
	}
	trace, _ := m["stackTrace"].([]any)
	if len(trace) != 1 || !strings.Contains(trace[0].(string), `app.py", line 8, in fails`) {
		t.Errorf("stackTrace %v", m["stackTrace"])
	}
	if !strings.Contains(string(res.LogTail), "[ERROR] ValueError: bad value 7\rTraceback (most recent call last):") {
		t.Errorf("tail:\n%s", res.LogTail)
	}
	// The instance survives a handler's exception.
	if all, _ := poolSize(r, fn); all != 1 {
		t.Errorf("%d instances", all)
	}

	res = invoke(t, r, pythonFunction(t, "pymarshal", "app.unserializable"), `{}`)
	if m := decode(t, res.Payload); m["errorType"] != "Runtime.MarshalError" ||
		!strings.HasPrefix(m["errorMessage"].(string), "Unable to marshal response: Object of type object is not JSON serializable") {
		t.Errorf("marshal error %s", res.Payload)
	}

	res = invoke(t, r, pythonFunction(t, "pyexit", "app.exits"), `{}`)
	if m := decode(t, res.Payload); m["errorType"] != "Runtime.ExitError" ||
		m["errorMessage"] != "RequestId: "+res.RequestID+" Error: Runtime exited with error: exit status 2" {
		t.Errorf("sys.exit: %s", res.Payload)
	}
}

func TestPythonInitErrors(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	for _, c := range []struct{ handler, errorType, message string }{
		{"broken.handler", "Runtime.ImportModuleError", "Unable to import module 'broken': No module named 'does_not_exist'"},
		{"missing.handler", "Runtime.ImportModuleError", "Unable to import module 'missing': No module named 'missing'"},
		{"app.nope", "Runtime.HandlerNotFound", "Handler 'nope' missing on module 'app'"},
		{"app", "Runtime.MalformedHandlerName", "Bad handler 'app': not enough values to unpack (expected 2, got 1)"},
		{"syntax.handler", "Runtime.UserCodeSyntaxError", "Syntax error in module 'syntax': "},
	} {
		fn := pythonFunction(t, "pyinit", c.handler)
		res := invoke(t, r, fn, `{}`)
		m := decode(t, res.Payload)
		if res.FunctionError != "Unhandled" || m["errorType"] != c.errorType || !strings.HasPrefix(m["errorMessage"].(string), c.message) {
			t.Errorf("%s: %q %s", c.handler, res.FunctionError, res.Payload)
		}
		tail := string(res.LogTail)
		if !strings.Contains(tail, "INIT_REPORT Init Duration: ") || !strings.Contains(tail, "Error Type: "+c.errorType) ||
			!strings.Contains(tail, "[ERROR] "+c.errorType) {
			t.Errorf("%s: tail:\n%s", c.handler, tail)
		}
		if all, _ := poolSize(r, fn); all != 0 {
			t.Errorf("%s: a failed init left %d instances", c.handler, all)
		}
	}
}

func TestPythonContextAndEnv(t *testing.T) {
	r, _ := newRuntime(t, Config{})
	fn := pythonFunction(t, "pyctx", "app.context_fields")
	fn.MemoryMB = 256
	res := invoke(t, r, fn, `{}`)
	mustOK(t, res)
	m := decode(t, res.Payload)
	for k, v := range map[string]any{
		"function_name": "pyctx", "function_version": "$LATEST", "invoked_function_arn": fn.ARN,
		"memory_limit_in_mb": "256", "aws_request_id": res.RequestID, "log_group_name": "/aws/lambda/pyctx",
	} {
		if m[k] != v {
			t.Errorf("context.%s = %v, want %v", k, m[k], v)
		}
	}
	if rem := m["remaining"].(float64); rem <= 0 || rem > 5000 {
		t.Errorf("remaining %v", rem)
	}
	if s, _ := m["log_stream_name"].(string); !strings.Contains(s, "/[$LATEST]") {
		t.Errorf("log stream %q", s)
	}
	if s, _ := m["trace"].(string); !strings.HasPrefix(s, "Root=1-") {
		t.Errorf("_X_AMZN_TRACE_ID %q", s)
	}

	fn = pythonFunction(t, "pyenv", "app.env")
	fn.Environment = map[string]string{"GREETING": "hi", "AWS_LAMBDA_FUNCTION_NAME": "spoofed"}
	res = invoke(t, r, fn, `{"keys":["GREETING","AWS_LAMBDA_FUNCTION_NAME","AWS_REGION","TZ"]}`)
	mustOK(t, res)
	if string(res.Payload) != `{"GREETING": "hi", "AWS_LAMBDA_FUNCTION_NAME": "pyenv", "AWS_REGION": "us-east-1", "TZ": ":UTC"}` {
		t.Errorf("env %s", res.Payload)
	}
}

func TestPythonLogs(t *testing.T) {
	r, logs := newRuntime(t, Config{})
	fn := pythonFunction(t, "pylog", "app.prints")
	res := invoke(t, r, fn, `{}`)
	mustOK(t, res)
	tail := string(res.LogTail)
	for _, want := range []string{"hello from python\n", "to stderr\n", "[WARNING]\t", "\t" + res.RequestID + "\ta warning\n"} {
		if !strings.Contains(tail, want) {
			t.Errorf("tail lacks %q:\n%s", want, tail)
		}
	}
	if recs := logs.find("hello from python"); len(recs) != 1 || recs[0]["requestId"] != res.RequestID {
		t.Errorf("log records %v", recs)
	}
}
