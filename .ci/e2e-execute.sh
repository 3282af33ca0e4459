#!/usr/bin/env bash
# End-to-end check of the API Gateway REST (v1) data plane: an API built with
# the AWS CLI, then called with curl.
#
#   .ci/e2e-execute.sh [PATH-TO-EMULATOR-BINARY]
#
# Starts the emulator (in memory) and a small echo backend, each on a free
# loopback port. Builds an API with the AWS CLI: /pets (GET, MOCK, a response
# template reading $context.stage) and /proxy/{proxy+} (ANY, HTTP_PROXY to the
# backend), deployed to the stage dev. Then calls it with curl in the path
# form and the host form, checks the proxy passes method, path, query,
# headers, body and status through, checks the 403/404 answers for an unknown
# route, stage and API, checks a deployment is frozen until the next one, and
# runs TestInvokeMethod on the live configuration. Every answer is compared
# byte for byte. Prints "ok  <step>" per step; on a failure prints what was
# expected and what came back, the emulator's log, and exits non-zero.
# Without an argument the emulator is built from this checkout first. The CLI
# is $AWS_CLI, else /usr/bin/aws, else aws on PATH. Everything stays on
# 127.0.0.1 and every wait is bounded.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init e2e-execute optional "$@"
BACKEND_LOG=$WORK/backend.log
BACKEND_PID=''
T0=$SECONDS

# e2e_cleanup_more RC: on exit, the backend stops too; its log on a failure.
e2e_cleanup_more() {
	[[ -n $BACKEND_PID ]] && e2e_stop_pid "$BACKEND_PID"
	[[ $1 -eq 0 ]] || e2e_dump_log backend "$BACKEND_LOG" 20
}

STEP="tools"
for tool in curl python3; do
	command -v "$tool" >/dev/null || fail "$tool on PATH" "none"
done
ok

e2e_build_emulator
e2e_aws_env

e2e_cli_step

STEP="start the emulator"
e2e_start_emulator
ok "$ENDPOINT"

# The backend answers every method with a compact JSON echo of the request:
# method, path, query, the X-E2e-Tag header and the body. A path
# /status/NNN answers status NNN. It binds port 0 itself and writes the port
# it got to a file, so there is no race for the port.
STEP="start the echo backend"
cat >"$WORK/backend.py" <<'EOF'
import http.server, json, sys

class Echo(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self):
        path, _, query = self.path.partition("?")
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode("utf-8", "replace") if n else ""
        out = json.dumps({"method": self.command, "path": path, "query": query,
                          "tag": self.headers.get("X-E2e-Tag"), "body": body},
                         separators=(",", ":")).encode()
        status = int(path[len("/status/"):]) if path.startswith("/status/") else 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Backend", "echo")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = answer

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
srv.daemon_threads = True
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
EOF
python3 "$WORK/backend.py" "$WORK/backend.port" >"$BACKEND_LOG" 2>&1 &
BACKEND_PID=$!
for _ in $(seq 100); do
	[[ -s $WORK/backend.port ]] && break
	kill -0 "$BACKEND_PID" 2>/dev/null || fail "the backend to start" "$(cat "$BACKEND_LOG")"
	sleep 0.1
done
[[ -s $WORK/backend.port ]] || fail "the backend's port within 10 s" "$(cat "$BACKEND_LOG")"
BPORT=$(cat "$WORK/backend.port")
OUT=$(curl -sS --max-time 5 "http://127.0.0.1:$BPORT/ping?a=b") || fail "the backend to answer" "$OUT"
[[ $OUT == '{"method":"GET","path":"/ping","query":"a=b","tag":null,"body":""}' ]] || fail "the backend's echo" "$OUT"
ok "http://127.0.0.1:$BPORT"

# gw OP ARGS...: aws apigateway OP must succeed; its reply goes to OUT.
gw() { e2e_aws apigateway "$@"; }

# call CURL-ARGS...: one request with curl (bounded); the status goes to CODE,
# the body to BODY and the response headers to $WORK/headers.
call() {
	local rc=0
	CODE=$(curl -sS --max-time 10 -o "$WORK/body" -D "$WORK/headers" -w '%{http_code}' "$@" 2>"$WORK/err") || rc=$?
	[[ $rc -eq 0 ]] || fail "curl $* to get an answer" "curl exit $rc: $(cat "$WORK/err")"
	BODY=$(cat "$WORK/body")
}
# want STATUS BODY CURL-ARGS...: the request must answer exactly STATUS and BODY.
want() {
	local status=$1 body=$2; shift 2
	call "$@"
	[[ $CODE == "$status" && $BODY == "$body" ]] || fail "$status $body  (curl $*)" "$CODE $BODY"
}
# header NAME: prints the value of response header NAME of the last call.
header() { tr -d '\r' <"$WORK/headers" | awk -v n="$(tr '[:upper:]' '[:lower:]' <<<"$1")" -F': ' 'tolower($1)==n {print $2}'; }

STEP="create-rest-api"
gw create-rest-api --name e2e-execute
API=$(q 'd["id"]')
gw get-resources --rest-api-id "$API"
ROOT=$(q '[r["id"] for r in d["items"] if r["path"]=="/"][0]')
ok "$API"

STEP="/pets: GET, MOCK, template reading \$context.stage"
gw create-resource --rest-api-id "$API" --parent-id "$ROOT" --path-part pets
PETS=$(q 'd["id"]')
gw put-method --rest-api-id "$API" --resource-id "$PETS" --http-method GET --authorization-type NONE
gw put-integration --rest-api-id "$API" --resource-id "$PETS" --http-method GET --type MOCK \
	--request-templates '{"application/json":"{\"statusCode\": 200}"}'
gw put-method-response --rest-api-id "$API" --resource-id "$PETS" --http-method GET --status-code 200
gw put-integration-response --rest-api-id "$API" --resource-id "$PETS" --http-method GET --status-code 200 \
	--response-templates '{"application/json":"{\"version\": \"v1\", \"stage\": \"$context.stage\"}"}'
gw get-method --rest-api-id "$API" --resource-id "$PETS" --http-method GET
check "the MOCK method with its responses" \
	'd["methodIntegration"]["type"]=="MOCK" and d["methodIntegration"]["integrationResponses"]["200"]["responseTemplates"]=={"application/json":"{\"version\": \"v1\", \"stage\": \"$context.stage\"}"} and "200" in d["methodResponses"]'
ok "$PETS"

STEP="/proxy/{proxy+}: ANY, HTTP_PROXY to the backend"
gw create-resource --rest-api-id "$API" --parent-id "$ROOT" --path-part proxy
PROXY_PARENT=$(q 'd["id"]')
gw create-resource --rest-api-id "$API" --parent-id "$PROXY_PARENT" --path-part '{proxy+}'
PROXY=$(q 'd["id"]')
check "the greedy path" 'd["path"]=="/proxy/{proxy+}"'
gw put-method --rest-api-id "$API" --resource-id "$PROXY" --http-method ANY --authorization-type NONE \
	--request-parameters '{"method.request.path.proxy":true}'
gw put-integration --rest-api-id "$API" --resource-id "$PROXY" --http-method ANY --type HTTP_PROXY \
	--integration-http-method ANY --uri "http://127.0.0.1:$BPORT/{proxy}" \
	--request-parameters '{"integration.request.path.proxy":"method.request.path.proxy"}'
check "the integration" "d['type']=='HTTP_PROXY' and d['uri']=='http://127.0.0.1:$BPORT/{proxy}' and d['requestParameters']=={'integration.request.path.proxy':'method.request.path.proxy'}"
ok "$PROXY"

STEP="create-deployment --stage-name dev"
gw create-deployment --rest-api-id "$API" --stage-name dev
DEP1=$(q 'd["id"]')
ok "$DEP1"

V1='{"version": "v1", "stage": "dev"}'
V2='{"version": "v2", "stage": "dev"}'
HOST=$API.execute-api.localhost.localstack.cloud

STEP="GET /pets, path form"
want 200 "$V1" "$ENDPOINT/restapis/$API/dev/_user_request_/pets"
[[ $(header Content-Type) == application/json ]] || fail "Content-Type: application/json" "$(cat "$WORK/headers")"
[[ $(header x-amzn-RequestId) =~ ^[0-9a-f-]{36}$ ]] || fail "an x-amzn-RequestId" "$(cat "$WORK/headers")"
ok

STEP="GET /pets, host form"
want 200 "$V1" -H "Host: $HOST:$PORT" "$ENDPOINT/dev/pets"
# The same name resolved by curl itself (to loopback, no DNS), and AWS's own.
want 200 "$V1" --resolve "$HOST:$PORT:127.0.0.1" "http://$HOST:$PORT/dev/pets"
want 200 "$V1" -H "Host: $API.execute-api.us-east-1.amazonaws.com" "$ENDPOINT/dev/pets"
ok "$HOST"

STEP="GET /pets, compatibility forms"
want 200 "$V1" "$ENDPOINT/_aws/execute-api/$API/dev/pets"
want 200 "$V1" "$ENDPOINT/_cloud/execute-api/$API/dev/pets"
ok

STEP="HTTP_PROXY: GET /proxy/items/a/b?x=1"
want 200 '{"method":"GET","path":"/items/a/b","query":"x=1","tag":"hello","body":""}' \
	-H "X-E2e-Tag: hello" "$ENDPOINT/restapis/$API/dev/_user_request_/proxy/items/a/b?x=1"
[[ $(header X-Backend) == echo ]] || fail "the backend's X-Backend header through" "$(cat "$WORK/headers")"
want 200 '{"method":"GET","path":"/items/a/b","query":"x=1","tag":"hello","body":""}' \
	-H "X-E2e-Tag: hello" -H "Host: $HOST:$PORT" "$ENDPOINT/dev/proxy/items/a/b?x=1"
ok

STEP="HTTP_PROXY: POST, PUT, DELETE with a body"
want 200 '{"method":"POST","path":"/items/a/b","query":"x=1&y=two","tag":"post","body":"{\"n\": 1}"}' \
	-X POST -H "X-E2e-Tag: post" -H "Content-Type: application/json" --data-raw '{"n": 1}' \
	"$ENDPOINT/restapis/$API/dev/_user_request_/proxy/items/a/b?x=1&y=two"
want 200 '{"method":"PUT","path":"/items/c","query":"","tag":null,"body":"plain"}' \
	-X PUT -H "Content-Type: text/plain" --data-raw 'plain' "$ENDPOINT/restapis/$API/dev/_user_request_/proxy/items/c"
want 200 '{"method":"DELETE","path":"/items/c","query":"","tag":null,"body":""}' \
	-X DELETE "$ENDPOINT/restapis/$API/dev/_user_request_/proxy/items/c"
ok

STEP="HTTP_PROXY: the backend's status through"
want 418 '{"method":"GET","path":"/status/418","query":"","tag":null,"body":""}' \
	"$ENDPOINT/restapis/$API/dev/_user_request_/proxy/status/418"
want 503 '{"method":"POST","path":"/status/503","query":"","tag":null,"body":""}' \
	-X POST "$ENDPOINT/restapis/$API/dev/_user_request_/proxy/status/503"
ok

STEP="no route: 403 Missing Authentication Token"
MISSING='{"message":"Missing Authentication Token"}'
want 403 "$MISSING" "$ENDPOINT/restapis/$API/dev/_user_request_/cats"
[[ $(header x-amzn-ErrorType) == MissingAuthenticationTokenException ]] || fail "x-amzn-ErrorType: MissingAuthenticationTokenException" "$(cat "$WORK/headers")"
want 403 "$MISSING" -H "Host: $HOST:$PORT" "$ENDPOINT/dev/cats"
# A method /pets does not have, and /proxy itself (only its child has methods).
want 403 "$MISSING" -X POST "$ENDPOINT/restapis/$API/dev/_user_request_/pets"
want 403 "$MISSING" "$ENDPOINT/restapis/$API/dev/_user_request_/proxy"
ok

STEP="unknown stage: 403 Forbidden"
want 403 '{"message":"Forbidden"}' "$ENDPOINT/restapis/$API/prod/_user_request_/pets"
[[ $(header x-amzn-ErrorType) == ForbiddenException ]] || fail "x-amzn-ErrorType: ForbiddenException" "$(cat "$WORK/headers")"
want 403 '{"message":"Forbidden"}' -H "Host: $HOST:$PORT" "$ENDPOINT/prod/pets"
ok

STEP="unknown API: 404"
want 404 '{"message": "The API id '"'"'nope123'"'"' does not correspond to a deployed API Gateway API"}' \
	"$ENDPOINT/restapis/nope123/dev/_user_request_/pets"
want 404 '{"message": "The API id '"'"'nope123'"'"' does not correspond to a deployed API Gateway API"}' \
	-H "Host: nope123.execute-api.localhost.localstack.cloud:$PORT" "$ENDPOINT/dev/pets"
ok

STEP="update-integration-response to v2: the stage keeps v1"
gw update-integration-response --rest-api-id "$API" --resource-id "$PETS" --http-method GET --status-code 200 \
	--patch-operations '[{"op":"replace","path":"/responseTemplates/application~1json","value":"{\"version\": \"v2\", \"stage\": \"$context.stage\"}"}]'
check "the live template" 'd["responseTemplates"]=={"application/json":"{\"version\": \"v2\", \"stage\": \"$context.stage\"}"}'
want 200 "$V1" "$ENDPOINT/restapis/$API/dev/_user_request_/pets"
want 200 "$V1" -H "Host: $HOST:$PORT" "$ENDPOINT/dev/pets"
ok

STEP="create-deployment again: the stage answers v2"
gw create-deployment --rest-api-id "$API" --stage-name dev
DEP2=$(q 'd["id"]')
[[ $DEP2 != "$DEP1" ]] || fail "a new deployment id" "$DEP2"
gw get-stage --rest-api-id "$API" --stage-name dev
check "the stage points at the new deployment" "d['deploymentId']=='$DEP2'"
want 200 "$V2" "$ENDPOINT/restapis/$API/dev/_user_request_/pets"
want 200 "$V2" -H "Host: $HOST:$PORT" "$ENDPOINT/dev/pets"
ok "$DEP2"

STEP="a second stage on the first deployment keeps v1"
gw create-stage --rest-api-id "$API" --stage-name old --deployment-id "$DEP1"
want 200 '{"version": "v1", "stage": "old"}' "$ENDPOINT/restapis/$API/old/_user_request_/pets"
want 200 "$V2" "$ENDPOINT/restapis/$API/dev/_user_request_/pets"
ok

STEP="test-invoke-method GET /pets: the live configuration"
gw test-invoke-method --rest-api-id "$API" --resource-id "$PETS" --http-method GET
check "status 200 and the v2 body" 'd["status"]==200 and d["body"]=="{\"version\": \"v2\", \"stage\": \"test-invoke-stage\"}"'
check "a non-empty execution log" 'isinstance(d.get("log"), str) and d["log"].strip()!=""'
check "the log's first and last lines" 'd["log"].startswith("Execution log for request ") and d["log"].rstrip("\n").endswith("Method completed with status: 200")'
check "the log names the resource" '"HTTP Method: GET, Resource Path: /pets" in d["log"]'
ok

STEP="test-invoke-method POST /proxy/items/t?x=1 on the ANY proxy"
gw test-invoke-method --rest-api-id "$API" --resource-id "$PROXY" --http-method POST \
	--path-with-query-string '/proxy/items/t?x=1' --body 'hi'
check "the backend's echo" 'd["status"]==200 and d["body"]=="{\"method\":\"POST\",\"path\":\"/items/t\",\"query\":\"x=1\",\"tag\":null,\"body\":\"hi\"}"'
check "the log's path parameters" '"Method request path: {proxy=items/t}" in d["log"]'
ok

STEP="stop on SIGTERM"
e2e_stop_emulator
ok
echo "e2e-execute: $PASSED passed, 0 failed in $((SECONDS - T0)) s"
