#!/usr/bin/env bash
# End-to-end check of the API Gateway REST (v1) control plane through the
# AWS CLI.
#
#   .ci/e2e-apigateway.sh PATH-TO-EMULATOR-BINARY
#
# Starts the emulator on a free loopback port, builds a small API with the
# AWS CLI (resource, method, integration, responses, deployment, stage, API
# key, usage plan, tags), checks the replies, then tears it all down and
# checks that nothing is left. Prints "ok  <step>" per step; on a failure
# prints what was expected and what came back, the emulator's log, and exits
# non-zero. The CLI is $AWS_CLI, else /usr/bin/aws, else aws on PATH (API
# Gateway v1 is in every CLI's bundled models).
set -euo pipefail

[[ $# -eq 1 && -x $1 ]] || { echo "usage: $0 PATH-TO-EMULATOR-BINARY" >&2; exit 2; }
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/e2e-apigw.XXXXXX")
EMU_LOG=$WORK/emulator.log
EMU_PID= STEP=setup PASSED=0

fail() {
	echo "FAIL  $STEP"
	echo "  expected: $1"
	echo "  got:      ${2:-<nothing>}"
	exit 1
}
ok() { PASSED=$((PASSED + 1)); echo "ok  $STEP${1:+ ($1)}"; }

cleanup() {
	local rc=$?
	trap - EXIT
	set +e
	if [[ -n $EMU_PID ]] && kill -0 "$EMU_PID" 2>/dev/null; then
		kill -TERM "$EMU_PID"
		for _ in $(seq 100); do kill -0 "$EMU_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$EMU_PID" 2>/dev/null
		wait "$EMU_PID" 2>/dev/null
	fi
	if [[ $rc -ne 0 ]]; then
		echo "e2e-apigateway: FAILED (exit $rc) at step: $STEP"
		echo "---- emulator log ----"; tail -n 100 "$EMU_LOG" 2>/dev/null
	fi
	rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# q EXPR: evaluates a python expression on the last reply (d) and prints it.
q() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read() or "null"); v=eval(sys.argv[1]); print(v if isinstance(v,str) else json.dumps(v))' "$1" <<<"$OUT"; }
# check DESCRIPTION EXPR: EXPR must be true on the last reply.
check() { [[ $(q "bool($2)") == true ]] || fail "$1 [$2]" "$OUT"; }

unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_CA_BUNDLE AWS_REGION
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=$WORK/aws-config AWS_SHARED_CREDENTIALS_FILE=$WORK/aws-credentials
export AWS_EC2_METADATA_DISABLED=true AWS_PAGER="" AWS_MAX_ATTEMPTS=1
: >"$AWS_CONFIG_FILE"

STEP="find the AWS CLI"
if [[ -n ${AWS_CLI:-} ]]; then AWS=$AWS_CLI
elif [[ -x /usr/bin/aws ]]; then AWS=/usr/bin/aws
elif command -v aws >/dev/null; then AWS=$(command -v aws)
else fail "an AWS CLI (run .ci/e2e-backup.sh first, which installs one)" "none"; fi
VER=$(timeout 30 "$AWS" --version 2>&1 | head -n 1)
FLAGS=(--output json)
[[ $VER == aws-cli/1.* ]] || FLAGS+=(--no-cli-pager)
ok "$AWS: $VER"

STEP="start the emulator"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
EMULATOR_HOST=127.0.0.1 EMULATOR_PORT=$PORT "$BIN" >"$EMU_LOG" 2>&1 &
EMU_PID=$!
for _ in $(seq 100); do
	grep -q "msg=listening" "$EMU_LOG" && break
	kill -0 "$EMU_PID" 2>/dev/null || fail "the emulator to start" "$(cat "$EMU_LOG")"
	sleep 0.1
done
ENDPOINT=http://127.0.0.1:$PORT
ok "$ENDPOINT"

# gw OP ARGS...: aws apigateway OP must succeed; its reply goes to OUT.
gw() {
	local rc=0
	OUT=$(timeout 30 "$AWS" apigateway "$@" --endpoint-url "$ENDPOINT" "${FLAGS[@]}" 2>"$WORK/err") || rc=$?
	[[ $rc -eq 0 ]] || fail "aws apigateway $* to succeed" "exit $rc: $(tail -n 5 "$WORK/err")"
}
# gw_err CODE OP ARGS...: aws apigateway OP must fail with CODE.
gw_err() {
	local code=$1 rc=0; shift
	timeout 30 "$AWS" apigateway "$@" --endpoint-url "$ENDPOINT" "${FLAGS[@]}" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[[ $rc -ne 0 ]] && grep -q "($code)" "$WORK/err" || fail "aws apigateway $* to fail with $code" "exit $rc: $(cat "$WORK/err" "$WORK/out")"
}

STEP="create-rest-api"
gw create-rest-api --name e2e-api --description "built by the e2e script" --tags team=ci
API=$(q 'd["id"]')
check "an EDGE API" 'd["endpointConfiguration"]["types"]==["EDGE"] and d["apiKeySource"]=="HEADER"'
# Older CLIs drop rootResourceId from the reply; the root is the resource "/".
gw get-resources --rest-api-id "$API"
ROOT=$(q '[r["id"] for r in d["items"] if r["path"]=="/"][0]')
ok "$API"

STEP="create-resource /pets/{petId}"
gw create-resource --rest-api-id "$API" --parent-id "$ROOT" --path-part pets
PETS=$(q 'd["id"]')
gw create-resource --rest-api-id "$API" --parent-id "$PETS" --path-part '{petId}'
PET=$(q 'd["id"]')
check "the path computed from the parents" 'd["path"]=="/pets/{petId}"'
gw_err ConflictException create-resource --rest-api-id "$API" --parent-id "$ROOT" --path-part pets
ok

STEP="put-method, put-integration (MOCK), responses"
gw put-method --rest-api-id "$API" --resource-id "$PET" --http-method GET --authorization-type NONE --api-key-required
check "the method" 'd["httpMethod"]=="GET" and d["apiKeyRequired"] is True'
gw put-integration --rest-api-id "$API" --resource-id "$PET" --http-method GET --type MOCK \
	--request-templates '{"application/json":"{\"statusCode\": 200}"}'
check "MOCK defaults" 'd["type"]=="MOCK" and d["timeoutInMillis"]==29000 and d["passthroughBehavior"]=="WHEN_NO_MATCH"'
gw put-method-response --rest-api-id "$API" --resource-id "$PET" --http-method GET --status-code 200
gw put-integration-response --rest-api-id "$API" --resource-id "$PET" --http-method GET --status-code 200 \
	--response-templates '{"application/json":"{\"id\": \"$input.params(\u0027petId\u0027)\"}"}'
gw get-method --rest-api-id "$API" --resource-id "$PET" --http-method GET
check "the method with its integration and responses" \
	'd["methodIntegration"]["integrationResponses"]["200"]["statusCode"]=="200" and "200" in d["methodResponses"]'
ok

STEP="create-deployment with a stage"
gw create-deployment --rest-api-id "$API" --stage-name dev --description first
DEP=$(q 'd["id"]')
gw get-stage --rest-api-id "$API" --stage-name dev
check "the stage points at the deployment" "d['deploymentId']=='$DEP' and d['methodSettings']=={}"
gw update-stage --rest-api-id "$API" --stage-name dev --patch-operations op=replace,path=/variables/color,value=blue
check "the stage variable" 'd["variables"]=={"color":"blue"}'
gw_err BadRequestException delete-deployment --rest-api-id "$API" --deployment-id "$DEP"
ok "$DEP"

STEP="api key, usage plan, usage plan key"
gw create-api-key --name e2e-key --enabled
KEY=$(q 'd["id"]')
check "a 40-character key value" 'len(d["value"])==40 and d["enabled"] is True'
gw create-usage-plan --name e2e-plan --api-stages apiId="$API",stage=dev \
	--throttle burstLimit=10,rateLimit=5.5 --quota limit=1000,period=DAY
PLAN=$(q 'd["id"]')
check "the plan" 'd["throttle"]["rateLimit"]==5.5 and d["apiStages"][0]["stage"]=="dev"'
gw create-usage-plan-key --usage-plan-id "$PLAN" --key-id "$KEY" --key-type API_KEY
gw get-usage-plan-keys --usage-plan-id "$PLAN"
check "the key is linked" "[k['id'] for k in d['items']]==['$KEY']"
ok "$KEY in $PLAN"

STEP="tags"
ARN="arn:aws:apigateway:us-east-1::/restapis/$API"
gw tag-resource --resource-arn "$ARN" --tags env=test
gw get-tags --resource-arn "$ARN"
check "the merged tags" 'd["tags"]=={"team":"ci","env":"test"}'
gw untag-resource --resource-arn "$ARN" --tag-keys team
gw get-tags --resource-arn "$ARN"
check "the tag removed" 'd["tags"]=={"env":"test"}'
ok

STEP="tear down"
gw delete-usage-plan-key --usage-plan-id "$PLAN" --key-id "$KEY"
# As on AWS, a plan still covering a stage cannot be deleted.
gw_err BadRequestException delete-usage-plan --usage-plan-id "$PLAN"
gw update-usage-plan --usage-plan-id "$PLAN" --patch-operations op=remove,path=/apiStages,value="$API:dev"
check "the stage detached" 'd["apiStages"]==[]'
gw delete-usage-plan --usage-plan-id "$PLAN"
gw delete-api-key --api-key "$KEY"
gw delete-stage --rest-api-id "$API" --stage-name dev
gw delete-deployment --rest-api-id "$API" --deployment-id "$DEP"
gw delete-rest-api --rest-api-id "$API"
gw_err NotFoundException get-rest-api --rest-api-id "$API"
gw_err NotFoundException get-api-key --api-key "$KEY"
gw get-rest-apis
check "no API left" 'd.get("items", [])==[]'
ok

STEP="stop on SIGTERM"
kill -TERM "$EMU_PID"
rc=0
wait "$EMU_PID" || rc=$?
EMU_PID=
[[ $rc -eq 0 ]] || fail "exit 0 after SIGTERM" "exit $rc"
ok
echo "e2e-apigateway: $PASSED passed, 0 failed"
