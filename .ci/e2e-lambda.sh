#!/usr/bin/env bash
# End-to-end check of Lambda through the AWS CLI, and of API Gateway REST APIs
# running Lambda functions.
#
#   .ci/e2e-lambda.sh [PATH-TO-EMULATOR-BINARY]
#
# Starts the emulator (in memory) on a free loopback port. Zips a Python
# handler (with python3's zipfile, so nothing more is needed), creates it
# with the AWS CLI and reads it back (get-function, list-functions), invokes
# it (payload, output file, --log-type Tail with START/END/REPORT and the
# function's print, a function error), updates its code and configuration
# (an environment variable the handler reads), publishes a version, points
# an alias at it and invokes through the alias. Runs a Node handler and a
# provided.al2023 shell bootstrap that speaks the Runtime API with curl. Then
# wires a Python function to a REST API (AWS_PROXY on /hello/{name}, with a
# stored add-permission) and calls it over HTTP with curl, guards another
# method with a TOKEN Lambda authorizer (Node: Allow for "allow", Deny for
# "deny", Unauthorized for "bad"), deletes a function, and reads
# /_emulator/lambda/runtimes. Prints "ok  <step>" per step; on a failure
# prints what was expected and what came back, the emulator's log, and exits
# non-zero. Without an argument the emulator is built from this checkout
# first. The CLI is $AWS_CLI, else /usr/bin/aws, else aws on PATH (v1 or v2).
# Everything stays on 127.0.0.1 and every wait is bounded.
# shellcheck disable=SC2016 # "$LATEST" in the Python checks is Lambda's, not a variable
set -euo pipefail

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init e2e-lambda optional "$@"
T0=$SECONDS

STEP="tools"
for tool in curl python3 node; do
	command -v "$tool" >/dev/null || fail "$tool on PATH" "none"
done
ok

e2e_build_emulator
e2e_aws_env

e2e_cli_step
# CLI v2 reads a blob argument (--payload) as base64 unless told otherwise;
# v1 takes it raw and does not know the flag.
BLOB=()
[[ $AWS_VER == aws-cli/1.* ]] || BLOB=(--cli-binary-format raw-in-base64-out)

STEP="start the emulator"
e2e_start_emulator
ok "$ENDPOINT"

ACCOUNT=000000000000
REGION=us-east-1
ROLE=arn:aws:iam::$ACCOUNT:role/r

# lam OP ARGS...: aws lambda OP must succeed; its reply goes to OUT.
lam() { e2e_aws lambda "$@"; }
# lam_err CODE OP ARGS...: aws lambda OP must fail with error CODE.
lam_err() { e2e_aws_err "$1" lambda "${@:2}"; }
# gw OP ARGS...: aws apigateway OP must succeed; its reply goes to OUT.
gw() { e2e_aws apigateway "$@"; }

# mkzip ZIP DIR: zips the files of DIR (flat) into ZIP, executable ones with
# mode 0755, as python3's zipfile writes them.
mkzip() {
	python3 - "$1" "$2" <<'EOF'
import os, sys, zipfile
out, src = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(src)):
        info = zipfile.ZipInfo(name, (2024, 1, 2, 3, 4, 6))
        mode = 0o755 if os.access(os.path.join(src, name), os.X_OK) else 0o644
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(os.path.join(src, name), "rb") as f:
            z.writestr(info, f.read())
EOF
}
# sha256b64 FILE: the base64 SHA-256 of FILE, as Lambda's CodeSha256.
sha256b64() { python3 -c 'import base64,hashlib,sys; print(base64.b64encode(hashlib.sha256(open(sys.argv[1],"rb").read()).digest()).decode())' "$1"; }

# invoke NAME PAYLOAD [ARGS...]: aws lambda invoke with PAYLOAD; the CLI's
# reply goes to OUT, the function's answer to RESULT.
invoke() {
	local name=$1 payload=$2
	shift 2
	rm -f "$WORK/result.json"
	lam invoke --function-name "$name" --payload "$payload" "${BLOB[@]}" "$@" "$WORK/result.json"
	[[ -f $WORK/result.json ]] || fail "the CLI to write the answer to its outfile" "no file; reply $OUT"
	RESULT=$(<"$WORK/result.json")
}
# r EXPR: EXPR evaluated on the last function answer (d, from RESULT).
r() { OUT=$RESULT q "$1"; }
# rcheck DESCRIPTION EXPR: EXPR must be true on the last function answer.
rcheck() { [[ $(r "bool($2)") == true ]] || fail "$1 [$2]" "$RESULT"; }
# tail_log: the decoded LogResult of the last invoke reply.
tail_log() { q 'd["LogResult"]' | python3 -c 'import base64,sys; sys.stdout.write(base64.b64decode(sys.stdin.read().strip()).decode())'; }

# --- Python -----------------------------------------------------------------

mkdir -p "$WORK/py1" "$WORK/py2"
cat >"$WORK/py1/index.py" <<'EOF'
import os

def handler(event, context):
    print("e2e-py got", event.get("name"))
    if event.get("fail"):
        raise ValueError("asked to fail")
    return {"greeting": "hello " + str(event.get("name")), "code": "v1",
            "env": os.environ.get("GREETING"), "function": context.function_name,
            "version": context.function_version}
EOF
sed 's/"code": "v1"/"code": "v2"/' "$WORK/py1/index.py" >"$WORK/py2/index.py"
mkzip "$WORK/py1.zip" "$WORK/py1"
mkzip "$WORK/py2.zip" "$WORK/py2"
PY1_SHA=$(sha256b64 "$WORK/py1.zip")
PY2_SHA=$(sha256b64 "$WORK/py2.zip")

STEP="create-function python3.12"
lam create-function --function-name e2e-py --runtime python3.12 --handler index.handler \
	--zip-file "fileb://$WORK/py1.zip" --role "$ROLE" --timeout 10
check "State Active" 'd["State"] == "Active" and d["LastUpdateStatus"] == "Successful"'
check "CodeSha256 of the zip" "d['CodeSha256'] == '$PY1_SHA' and d['CodeSize'] == $(stat -c %s "$WORK/py1.zip")"
check "the ARN, runtime, handler, role" "d['FunctionArn'] == 'arn:aws:lambda:$REGION:$ACCOUNT:function:e2e-py' and d['Runtime'] == 'python3.12' and d['Handler'] == 'index.handler' and d['Role'] == '$ROLE'"
check "Timeout 10, MemorySize 128 by default" 'd["Timeout"] == 10 and d["MemorySize"] == 128 and d["Version"] == "$LATEST"'
PY_ARN=$(q 'd["FunctionArn"]')
lam_err ResourceConflictException create-function --function-name e2e-py --runtime python3.12 --handler index.handler \
	--zip-file "fileb://$WORK/py1.zip" --role "$ROLE"
ok "$PY_ARN"

STEP="get-function, list-functions"
lam get-function --function-name e2e-py
check "the configuration" "d['Configuration']['CodeSha256'] == '$PY1_SHA' and d['Configuration']['State'] == 'Active'"
check "the code" 'd["Code"]["RepositoryType"] == "S3" and "X-Amz-Signature=" in d["Code"]["Location"]'
LOCATION=$(q 'd["Code"]["Location"]')
curl -fsS -o "$WORK/downloaded.zip" "$LOCATION" || fail "Code.Location downloads" "curl failed on $LOCATION"
cmp -s "$WORK/downloaded.zip" "$WORK/py1.zip" || fail "Code.Location gives the zip created" "another file"
lam list-functions
check "e2e-py listed" "[f['FunctionName'] for f in d['Functions']] == ['e2e-py'] and d['Functions'][0]['CodeSha256'] == '$PY1_SHA'"
ok

STEP="invoke with a payload"
invoke e2e-py '{"name": "world"}'
check "StatusCode 200 on \$LATEST, no error" 'd["StatusCode"] == 200 and d["ExecutedVersion"] == "$LATEST" and "FunctionError" not in d'
rcheck "the handler's answer" 'd == {"greeting": "hello world", "code": "v1", "env": None, "function": "e2e-py", "version": "$LATEST"}'
ok "$RESULT"

STEP="invoke --log-type Tail"
invoke e2e-py '{"name": "tail"}' --log-type Tail
LOG=$(tail_log)
for want in "START RequestId: " "END RequestId: " "REPORT RequestId: " "e2e-py got tail"; do
	[[ $LOG == *"$want"* ]] || fail "the log tail to hold '$want'" "$LOG"
done
[[ $LOG == *"START RequestId: "*"e2e-py got tail"*"END RequestId: "*"REPORT RequestId: "* ]] || fail "START, the print, END, REPORT in order" "$LOG"
ok

STEP="invoke: a function error"
invoke e2e-py '{"name": "x", "fail": true}'
check "StatusCode 200, FunctionError Unhandled" 'd["StatusCode"] == 200 and d["FunctionError"] == "Unhandled"'
rcheck "errorMessage and errorType" 'd["errorMessage"] == "asked to fail" and d["errorType"] == "ValueError" and isinstance(d.get("stackTrace"), list)'
ok

STEP="invoke: a payload that is not JSON"
lam_err InvalidRequestContentException invoke --function-name e2e-py --payload 'not json' "${BLOB[@]}" "$WORK/result.json"
ok

STEP="update-function-code"
lam update-function-code --function-name e2e-py --zip-file "fileb://$WORK/py2.zip"
check "the new CodeSha256" "d['CodeSha256'] == '$PY2_SHA' and d['LastUpdateStatus'] == 'Successful'"
invoke e2e-py '{"name": "again"}'
rcheck "the new code runs" 'd["code"] == "v2" and d["greeting"] == "hello again"'
ok

STEP="update-function-configuration --environment"
lam update-function-configuration --function-name e2e-py --environment 'Variables={GREETING=hola}'
check "the variable" 'd["Environment"]["Variables"] == {"GREETING": "hola"}'
invoke e2e-py '{"name": "env"}'
rcheck "the handler reads it" 'd["env"] == "hola" and d["code"] == "v2"'
ok

STEP="publish-version, create-alias, invoke the alias"
lam publish-version --function-name e2e-py --description first
check "version 1" "d['Version'] == '1' and d['FunctionArn'] == '$PY_ARN:1' and d['CodeSha256'] == '$PY2_SHA'"
lam create-alias --function-name e2e-py --name live --function-version 1
check "the alias" "d['Name'] == 'live' and d['FunctionVersion'] == '1' and d['AliasArn'] == '$PY_ARN:live'"
lam update-function-configuration --function-name e2e-py --environment 'Variables={GREETING=changed}'
invoke e2e-py '{"name": "alias"}' --qualifier live
check "ExecutedVersion 1" 'd["StatusCode"] == 200 and d["ExecutedVersion"] == "1"'
rcheck "version 1's configuration" 'd["env"] == "hola" and d["version"] == "1"'
invoke "$PY_ARN:1" '{"name": "arn"}'
check "a qualified ARN runs version 1" 'd["ExecutedVersion"] == "1"'
invoke e2e-py '{"name": "latest"}'
check "\$LATEST" 'd["ExecutedVersion"] == "$LATEST"'
rcheck "\$LATEST's configuration" 'd["env"] == "changed"'
lam list-versions-by-function --function-name e2e-py
check "\$LATEST and 1" '[v["Version"] for v in d["Versions"]] == ["$LATEST", "1"]'
ok

# --- Node --------------------------------------------------------------------

mkdir -p "$WORK/node"
cat >"$WORK/node/index.js" <<'EOF'
exports.handler = async (event, context) => {
  console.log("e2e-node adding", event.a, event.b);
  if (event.fail) {
    throw new Error("node was asked to fail");
  }
  return { sum: event.a + event.b, runtime: "node", node: typeof process.versions.node === "string", function: context.functionName };
};
EOF
mkzip "$WORK/node.zip" "$WORK/node"

STEP="create-function nodejs20.x, invoke"
lam create-function --function-name e2e-node --runtime nodejs20.x --handler index.handler \
	--zip-file "fileb://$WORK/node.zip" --role "$ROLE" --timeout 10
check "State Active" 'd["State"] == "Active" and d["Runtime"] == "nodejs20.x"'
invoke e2e-node '{"a": 2, "b": 40}' --log-type Tail
check "StatusCode 200" 'd["StatusCode"] == 200 and d["ExecutedVersion"] == "$LATEST" and "FunctionError" not in d'
rcheck "the handler's answer" 'd == {"sum": 42, "runtime": "node", "node": True, "function": "e2e-node"}'
LOG=$(tail_log)
[[ $LOG == *"START RequestId: "*"e2e-node adding 2 40"*"END RequestId: "*"REPORT RequestId: "* ]] || fail "START, the console.log, END, REPORT" "$LOG"
invoke e2e-node '{"fail": true}'
check "FunctionError Unhandled" 'd["FunctionError"] == "Unhandled"'
rcheck "errorMessage and errorType" 'd["errorMessage"] == "node was asked to fail" and d["errorType"] == "Error"'
ok

# --- provided.al2023: a shell bootstrap on the Runtime API --------------------

mkdir -p "$WORK/sh"
cat >"$WORK/sh/bootstrap" <<'EOF'
#!/bin/sh
# A custom runtime in sh and curl: take the next invocation, answer it.
set -eu
api="http://$AWS_LAMBDA_RUNTIME_API/2018-06-01/runtime"
while :; do
  hdr=$(mktemp)
  event=$(curl -sS --max-time 60 -D "$hdr" "$api/invocation/next")
  id=$(tr -d '\r' <"$hdr" | awk -F': ' 'tolower($1)=="lambda-runtime-aws-request-id" {print $2}')
  rm -f "$hdr"
  echo "bootstrap got $event"
  curl -sS --max-time 10 -o /dev/null -X POST "$api/invocation/$id/response" \
    -d "{\"echo\": $event, \"handler\": \"$_HANDLER\"}"
done
EOF
chmod +x "$WORK/sh/bootstrap"
mkzip "$WORK/sh.zip" "$WORK/sh"

STEP="create-function provided.al2023 (sh bootstrap), invoke"
lam create-function --function-name e2e-sh --runtime provided.al2023 --handler my.handler \
	--zip-file "fileb://$WORK/sh.zip" --role "$ROLE" --timeout 10
check "State Active" 'd["State"] == "Active"'
invoke e2e-sh '{"k": "v"}' --log-type Tail
check "StatusCode 200" 'd["StatusCode"] == 200 and "FunctionError" not in d'
rcheck "the bootstrap's answer" 'd == {"echo": {"k": "v"}, "handler": "my.handler"}'
LOG=$(tail_log)
[[ $LOG == *'bootstrap got {"k": "v"}'* || $LOG == *'bootstrap got {"k":"v"}'* ]] || fail "the bootstrap's output in the log" "$LOG"
ok

# --- API Gateway: AWS_PROXY and a TOKEN authorizer ----------------------------

mkdir -p "$WORK/api" "$WORK/auth"
cat >"$WORK/api/index.py" <<'EOF'
import json

def handler(event, context):
    ctx = event["requestContext"]
    body = {"name": (event.get("pathParameters") or {}).get("name"),
            "query": event.get("queryStringParameters"),
            "path": event["path"], "resource": event["resource"],
            "method": event["httpMethod"], "stage": ctx["stage"],
            "user": (ctx.get("authorizer") or {}).get("user"),
            "principal": (ctx.get("authorizer") or {}).get("principalId")}
    return {"statusCode": 201 if "created" in (body["query"] or {}) else 200,
            "headers": {"Content-Type": "application/json", "X-E2e-Name": str(body["name"])},
            "body": json.dumps(body, sort_keys=True)}
EOF
cat >"$WORK/auth/index.js" <<'EOF'
exports.handler = async (event) => {
  const token = event.authorizationToken;
  if (token === "bad") {
    throw new Error("Unauthorized");
  }
  return {
    principalId: "user-" + token,
    policyDocument: {
      Version: "2012-10-17",
      Statement: [{ Action: "execute-api:Invoke", Effect: token === "allow" ? "Allow" : "Deny", Resource: event.methodArn }],
    },
    context: { user: "alice", type: event.type },
  };
};
EOF
mkzip "$WORK/api.zip" "$WORK/api"
mkzip "$WORK/auth.zip" "$WORK/auth"
uri_of() { echo "arn:aws:apigateway:$REGION:lambda:path/2015-03-31/functions/$1/invocations"; }

STEP="functions for the API"
lam create-function --function-name e2e-api --runtime python3.12 --handler index.handler \
	--zip-file "fileb://$WORK/api.zip" --role "$ROLE" --timeout 10
API_FN=$(q 'd["FunctionArn"]')
lam create-function --function-name e2e-auth --runtime nodejs20.x --handler index.handler \
	--zip-file "fileb://$WORK/auth.zip" --role "$ROLE" --timeout 10
AUTH_FN=$(q 'd["FunctionArn"]')
ok

STEP="create-rest-api, /hello/{name} GET AWS_PROXY"
gw create-rest-api --name e2e-lambda
API=$(q 'd["id"]')
# (CLI 2.9's model predates rootResourceId in CreateRestApi's answer.)
gw get-resources --rest-api-id "$API"
ROOT=$(q '[r["id"] for r in d["items"] if r["path"] == "/"][0]')
gw create-resource --rest-api-id "$API" --parent-id "$ROOT" --path-part hello
HELLO=$(q 'd["id"]')
gw create-resource --rest-api-id "$API" --parent-id "$HELLO" --path-part '{name}'
NAME=$(q 'd["id"]')
gw put-method --rest-api-id "$API" --resource-id "$NAME" --http-method GET --authorization-type NONE
gw put-integration --rest-api-id "$API" --resource-id "$NAME" --http-method GET --type AWS_PROXY \
	--integration-http-method POST --uri "$(uri_of "$API_FN")"
check "the integration" "d['type'] == 'AWS_PROXY' and d['uri'] == '$(uri_of "$API_FN")' and d['httpMethod'] == 'POST'"
ok "$API"

STEP="add-permission (stored)"
lam add-permission --function-name e2e-api --statement-id apigw --action lambda:InvokeFunction \
	--principal apigateway.amazonaws.com --source-arn "arn:aws:execute-api:$REGION:$ACCOUNT:$API/*/GET/hello/*"
check "the statement" "json.loads(d['Statement'])['Principal'] == {'Service': 'apigateway.amazonaws.com'}"
lam get-policy --function-name e2e-api
check "the policy" "[(s['Sid'], s['Action'], s['Condition']['ArnLike']['AWS:SourceArn']) for s in json.loads(d['Policy'])['Statement']] == [('apigw', 'lambda:InvokeFunction', 'arn:aws:execute-api:$REGION:$ACCOUNT:$API/*/GET/hello/*')]"
ok

STEP="/secure GET with a TOKEN authorizer"
gw create-authorizer --rest-api-id "$API" --name e2e-token --type TOKEN \
	--identity-source method.request.header.Authorization --authorizer-uri "$(uri_of "$AUTH_FN")" \
	--authorizer-result-ttl-in-seconds 0
AUTH=$(q 'd["id"]')
check "the authorizer" "d['type'] == 'TOKEN' and d['authorizerUri'] == '$(uri_of "$AUTH_FN")'"
gw create-resource --rest-api-id "$API" --parent-id "$ROOT" --path-part secure
SECURE=$(q 'd["id"]')
gw put-method --rest-api-id "$API" --resource-id "$SECURE" --http-method GET --authorization-type CUSTOM --authorizer-id "$AUTH"
gw put-integration --rest-api-id "$API" --resource-id "$SECURE" --http-method GET --type AWS_PROXY \
	--integration-http-method POST --uri "$(uri_of e2e-api)"
ok "$AUTH"

STEP="create-deployment --stage-name dev"
gw create-deployment --rest-api-id "$API" --stage-name dev
ok

BASE=$ENDPOINT/restapis/$API/dev/_user_request_
# call CURL-ARGS...: one request with curl (bounded); the status goes to CODE,
# the body to BODY and the response headers to $WORK/headers.
call() {
	local rc=0
	CODE=$(curl -sS --max-time 20 -o "$WORK/body" -D "$WORK/headers" -w '%{http_code}' "$@" 2>"$WORK/err") || rc=$?
	[[ $rc -eq 0 ]] || fail "curl $* to get an answer" "curl exit $rc: $(cat "$WORK/err")"
	BODY=$(cat "$WORK/body")
}
# header NAME: prints the value of response header NAME of the last call.
header() { tr -d '\r' <"$WORK/headers" | awk -v n="$(tr '[:upper:]' '[:lower:]' <<<"$1")" -F': ' 'tolower($1)==n {print $2}'; }
# bcheck DESCRIPTION EXPR: EXPR must be true on the last body (d).
bcheck() { OUT=$BODY check "$1" "$2"; }

STEP="GET /hello/world?x=1 runs the function"
call "$BASE/hello/world?x=1"
[[ $CODE == 200 ]] || fail "status 200" "$CODE $BODY"
[[ $(header X-E2e-Name) == world ]] || fail "X-E2e-Name: world" "$(cat "$WORK/headers")"
[[ $(header Content-Type) == application/json ]] || fail "Content-Type: application/json" "$(cat "$WORK/headers")"
bcheck "the event's path parameter, query, path, resource, method, stage" \
	'd == {"name": "world", "query": {"x": "1"}, "path": "/hello/world", "resource": "/hello/{name}", "method": "GET", "stage": "dev", "user": None, "principal": None}'
HELLO_BODY=$BODY
call "$BASE/hello/new?created=1"
[[ $CODE == 201 && $(header X-E2e-Name) == new ]] || fail "status 201 and X-E2e-Name: new, as the handler built them" "$CODE $(cat "$WORK/headers")"
ok "$HELLO_BODY"

STEP="GET /secure with token allow: 200, the authorizer's context in the event"
call -H 'Authorization: allow' "$BASE/secure"
[[ $CODE == 200 ]] || fail "status 200" "$CODE $BODY"
bcheck "the authorizer's principal and context" 'd["user"] == "alice" and d["principal"] == "user-allow" and d["resource"] == "/secure"'
ok

STEP="GET /secure with token deny: 403"
call -H 'Authorization: deny' "$BASE/secure"
[[ $CODE == 403 && $BODY == '{"Message":"User is not authorized to access this resource with an explicit deny"}' ]] ||
	fail "403 explicit deny" "$CODE $BODY"
ok

STEP="GET /secure without Authorization: 401"
call "$BASE/secure"
[[ $CODE == 401 && $BODY == '{"message":"Unauthorized"}' ]] || fail '401 {"message":"Unauthorized"}' "$CODE $BODY"
call -H 'Authorization: bad' "$BASE/secure"
[[ $CODE == 401 && $BODY == '{"message":"Unauthorized"}' ]] || fail '401 when the authorizer raises Unauthorized' "$CODE $BODY"
ok

# --- the end ------------------------------------------------------------------

STEP="delete-function, then invoke: ResourceNotFoundException"
lam delete-function --function-name e2e-py
lam_err ResourceNotFoundException invoke --function-name e2e-py --payload '{}' "${BLOB[@]}" "$WORK/result.json"
[[ $ERR == *"Function not found: arn:aws:lambda:$REGION:$ACCOUNT:function:e2e-py"* ]] || fail "the message to name the function" "$ERR"
lam_err ResourceNotFoundException get-function --function-name e2e-py
lam list-functions
check "the others remain" "sorted(f['FunctionName'] for f in d['Functions']) == ['e2e-api', 'e2e-auth', 'e2e-node', 'e2e-sh']"
ok

STEP="GET /_emulator/lambda/runtimes"
call "$ENDPOINT/_emulator/lambda/runtimes"
[[ $CODE == 200 ]] || fail "200" "$CODE $BODY"
bcheck "python3.12 and nodejs20.x available" '"python3.12" in d["Runtimes"] and "nodejs20.x" in d["Runtimes"] and [r["available"] for r in d["details"] if r["name"] == "python3.12"] == [True]'
ok

STEP="stop on SIGTERM"
e2e_stop_emulator
ok
echo "e2e-lambda: $PASSED passed, 0 failed in $((SECONDS - T0)) s"
