# The emulator's bootstrap for python3.x functions: the Lambda Runtime API
# loop as AWS's runtime interface client (awslambdaric) runs it. It loads
# the handler named by _HANDLER ("module.function", "dir/module.function")
# from LAMBDA_TASK_ROOT, then answers invocations one at a time.
import http.client
import importlib
import json
import logging
import os
import sys
import time
import traceback

API = os.environ["AWS_LAMBDA_RUNTIME_API"]
BASE = "/2018-06-01/runtime"
_request_id = ""


class _Client:
    """One kept-alive connection to the Runtime API."""

    def __init__(self):
        self.conn = None

    def call(self, method, path, body=None, headers=None):
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(API)
            try:
                self.conn.request(method, BASE + path, body=body, headers=headers or {})
                r = self.conn.getresponse()
                return r.status, r.headers, r.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise


client = _Client()


def to_json(obj):
    return json.dumps(obj).encode("utf-8")


def make_error(message, error_type, stack_trace, request_id=""):
    return {
        "errorMessage": message or "",
        "errorType": error_type or "",
        "requestId": request_id,
        "stackTrace": stack_trace or [],
    }


class FaultError(Exception):
    def __init__(self, error_type, message, trace=None):
        super().__init__(message)
        self.error_type = error_type
        self.message = message
        self.trace = trace


def log_error(err):
    """Writes an error as the runtime does: one record, lines joined by \\r."""
    desc = "[ERROR]"
    if err.get("errorType"):
        desc += " " + err["errorType"]
    if err.get("errorMessage"):
        desc += (":" if err.get("errorType") else "") + " " + err["errorMessage"]
    lines = [desc]
    if err.get("stackTrace") is not None:
        lines.append("Traceback (most recent call last):")
        for element in err["stackTrace"]:
            lines.extend(element.splitlines() or [""])
    sys.stdout.write("\r".join(lines) + "\n")
    sys.stdout.flush()


def user_frames(tb):
    """The traceback's frames from the first one that is not this file's."""
    frames = traceback.extract_tb(tb)
    for i, frame in enumerate(frames):
        if frame.filename != __file__:
            return traceback.format_list(frames[i:])
    return []


def load_handler(handler):
    try:
        modname, fname = handler.rsplit(".", 1)
    except ValueError as e:
        raise FaultError("Runtime.MalformedHandlerName", "Bad handler '{}': {}".format(handler, e))
    try:
        if modname.split(".")[0] in sys.builtin_module_names:
            raise FaultError("Runtime.BuiltInModuleConflict",
                             "Cannot use built-in module {} as a handler module".format(modname))
        module = importlib.import_module(modname.replace("/", "."))
    except ImportError as e:
        raise FaultError("Runtime.ImportModuleError", "Unable to import module '{}': {}".format(modname, e))
    except SyntaxError as e:
        trace = ['  File "%s" Line %s\n    %s' % (e.filename, e.lineno, e.text)]
        raise FaultError("Runtime.UserCodeSyntaxError", "Syntax error in module '{}': {}".format(modname, e), trace)
    try:
        return getattr(module, fname)
    except AttributeError:
        raise FaultError("Runtime.HandlerNotFound", "Handler '{}' missing on module '{}'".format(fname, modname))


class _Obj:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    def __repr__(self):
        return "{}({})".format(type(self).__name__, self.__dict__)


class CognitoIdentity(_Obj):
    pass


class ClientContext(_Obj):
    pass


class LambdaContext:
    def __init__(self, request_id, deadline_ms, invoked_arn, client_context, identity):
        self.aws_request_id = request_id
        self.log_group_name = os.environ.get("AWS_LAMBDA_LOG_GROUP_NAME")
        self.log_stream_name = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME")
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME")
        self.memory_limit_in_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")
        self.function_version = os.environ.get("AWS_LAMBDA_FUNCTION_VERSION")
        self.invoked_function_arn = invoked_arn
        self.tenant_id = None
        self.client_context = None
        if client_context is not None:
            self.client_context = ClientContext(
                client=client_context.get("client"),
                custom=client_context.get("custom"),
                env=client_context.get("env"),
            )
        self.identity = CognitoIdentity(cognito_identity_id=None, cognito_identity_pool_id=None)
        if identity is not None:
            self.identity.cognito_identity_id = identity.get("cognitoIdentityId")
            self.identity.cognito_identity_pool_id = identity.get("cognitoIdentityPoolId")
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self):
        return max(self._deadline_ms - int(time.time() * 1000), 0)

    def log(self, msg):
        sys.stdout.write(str(msg))
        sys.stdout.flush()

    def __repr__(self):
        return "LambdaContext({})".format(
            {k: v for k, v in self.__dict__.items() if not k.startswith("_")})


class _RequestIdFilter(logging.Filter):
    def filter(self, record):
        record.aws_request_id = _request_id
        return True


def setup_logging():
    """The root logger writes Lambda's text format: [LEVEL]\\ttime\\tid\\tmessage."""
    logging.Formatter.converter = time.gmtime
    handler = logging.StreamHandler(sys.stdout)
    handler.terminator = "\n"
    handler.setFormatter(logging.Formatter(
        "[%(levelname)s]\t%(asctime)s.%(msecs)03dZ\t%(aws_request_id)s\t%(message)s",
        "%Y-%m-%dT%H:%M:%S"))
    handler.addFilter(_RequestIdFilter())
    logging.getLogger().addHandler(handler)
    level = os.environ.get("AWS_LAMBDA_LOG_LEVEL", "").upper()
    if level in logging._nameToLevel:
        logging.getLogger().setLevel(level)


def post_error(path, err):
    body = to_json(err)
    client.call("POST", path, body, {
        "Content-Type": "application/json",
        "Lambda-Runtime-Function-Error-Type": err["errorType"],
    })


def handle(handler, headers, body):
    request_id = headers.get("Lambda-Runtime-Aws-Request-Id", "")
    err = None
    try:
        cc = headers.get("Lambda-Runtime-Client-Context")
        ci = headers.get("Lambda-Runtime-Cognito-Identity")
        try:
            cc = json.loads(cc) if cc else None
            ci = json.loads(ci) if ci else None
        except ValueError as e:
            raise FaultError("Runtime.LambdaContextUnmarshalError", "Unable to parse context JSON: {}".format(e))
        context = LambdaContext(request_id, int(headers.get("Lambda-Runtime-Deadline-Ms", "0")),
                                headers.get("Lambda-Runtime-Invoked-Function-Arn"), cc, ci)
        try:
            event = json.loads(body) if body else {}
        except ValueError as e:
            raise FaultError("Runtime.UnmarshalError", "Unable to unmarshal input: {}".format(e))
        result = handler(event, context)
        try:
            payload = to_json(result)
        except (TypeError, ValueError) as e:
            raise FaultError("Runtime.MarshalError", "Unable to marshal response: {}".format(e))
    except FaultError as e:
        err = make_error(e.message, e.error_type, e.trace, request_id)
    except Exception:
        etype, value, tb = sys.exc_info()
        err = make_error(str(value), etype.__name__, user_frames(tb), request_id)
    sys.stdout.flush()
    sys.stderr.flush()
    if err is not None:
        log_error(err)
        post_error("/invocation/{}/error".format(request_id), err)
    else:
        client.call("POST", "/invocation/{}/response".format(request_id), payload,
                    {"Content-Type": "application/json"})


def main():
    global _request_id
    task_root = os.environ.get("LAMBDA_TASK_ROOT", os.getcwd())
    if task_root not in sys.path:
        sys.path.insert(0, task_root)
    setup_logging()
    try:
        handler = load_handler(os.environ.get("_HANDLER", ""))
    except FaultError as e:
        err = make_error(e.message, e.error_type, e.trace)
    except Exception:
        etype, value, tb = sys.exc_info()
        err = make_error(str(value), etype.__name__, user_frames(tb))
    else:
        err = None
    if err is not None:
        log_error(err)
        post_error("/init/error", err)
        sys.exit(1)
    while True:
        status, headers, body = client.call("GET", "/invocation/next")
        if status != 200:
            sys.stderr.write("runtime API answered {} to /next: {!r}\n".format(status, body[:200]))
            sys.exit(1)
        _request_id = headers.get("Lambda-Runtime-Aws-Request-Id", "")
        trace = headers.get("Lambda-Runtime-Trace-Id")
        if trace:
            os.environ["_X_AMZN_TRACE_ID"] = trace
        else:
            os.environ.pop("_X_AMZN_TRACE_ID", None)
        handle(handler, headers, body)


if __name__ == "__main__":
    main()
