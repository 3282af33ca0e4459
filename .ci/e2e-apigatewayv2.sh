#!/usr/bin/env bash
# End-to-end check of the API Gateway v2 control plane through the AWS CLI.
#
#   .ci/e2e-apigatewayv2.sh PATH-TO-EMULATOR-BINARY
#
# Starts the emulator on a free loopback port, quick-creates an HTTP API
# (integration, $default route and auto-deploying $default stage), adds a
# route and a stage, checks auto-deployment and tags, then tears it all
# down. Prints "ok  <step>" per step; on a failure prints what was expected
# and what came back, the emulator's log, and exits non-zero. The CLI is
# $AWS_CLI, else /usr/bin/aws, else aws on PATH.
set -euo pipefail

[[ $# -eq 1 && -x $1 ]] || { echo "usage: $0 PATH-TO-EMULATOR-BINARY" >&2; exit 2; }
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/e2e-apigwv2.XXXXXX")
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
		echo "e2e-apigatewayv2: FAILED (exit $rc) at step: $STEP"
		echo "---- emulator log ----"; tail -n 100 "$EMU_LOG" 2>/dev/null
	fi
	rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

q() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read() or "null"); v=eval(sys.argv[1]); print(v if isinstance(v,str) else json.dumps(v))' "$1" <<<"$OUT"; }
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

# gw OP ARGS...: aws apigatewayv2 OP must succeed; its reply goes to OUT.
gw() {
	local rc=0
	OUT=$(timeout 30 "$AWS" apigatewayv2 "$@" --endpoint-url "$ENDPOINT" "${FLAGS[@]}" 2>"$WORK/err") || rc=$?
	[[ $rc -eq 0 ]] || fail "aws apigatewayv2 $* to succeed" "exit $rc: $(tail -n 5 "$WORK/err")"
}
# gw_err CODE OP ARGS...: aws apigatewayv2 OP must fail with CODE.
gw_err() {
	local code=$1 rc=0; shift
	timeout 30 "$AWS" apigatewayv2 "$@" --endpoint-url "$ENDPOINT" "${FLAGS[@]}" >"$WORK/out" 2>"$WORK/err" || rc=$?
	[[ $rc -ne 0 ]] && grep -q "($code)" "$WORK/err" || fail "aws apigatewayv2 $* to fail with $code" "exit $rc: $(cat "$WORK/err" "$WORK/out")"
}

STEP="quick-create an HTTP API"
gw create-api --name e2e-http --protocol-type HTTP --target https://example.com --tags team=ci
API=$(q 'd["ApiId"]')
check "an HTTP API with its endpoint" "d['ProtocolType']=='HTTP' and d['ApiEndpoint'].startswith('http://$API.execute-api.')"
gw get-integrations --api-id "$API"
check "one managed HTTP_PROXY integration" 'len(d["Items"])==1 and d["Items"][0]["IntegrationType"]=="HTTP_PROXY"'
INTEGRATION=$(q 'd["Items"][0]["IntegrationId"]')
gw get-routes --api-id "$API"
check "the \$default route targets it" "[r['RouteKey'] for r in d['Items']]==['\$default'] and d['Items'][0]['Target']=='integrations/$INTEGRATION'"
gw get-stage --api-id "$API" --stage-name '$default'
check "the auto-deploying \$default stage" 'd["AutoDeploy"] is True and d.get("DeploymentId")'
FIRST_DEPLOYMENT=$(q 'd["DeploymentId"]')
ok "$API"

STEP="add a route: the stage auto-deploys"
gw create-route --api-id "$API" --route-key 'GET /items/{id}' --target "integrations/$INTEGRATION"
check "the route" 'd["RouteKey"]=="GET /items/{id}" and d["AuthorizationType"]=="NONE"'
gw_err ConflictException create-route --api-id "$API" --route-key 'GET /items/{id}'
gw get-stage --api-id "$API" --stage-name '$default'
check "a new deployment on the stage" "d['DeploymentId']!='$FIRST_DEPLOYMENT'"
ok

STEP="a stage of its own"
gw create-deployment --api-id "$API" --description manual
DEP=$(q 'd["DeploymentId"]')
gw create-stage --api-id "$API" --stage-name prod --deployment-id "$DEP" --stage-variables color=blue
check "the stage" "d['StageName']=='prod' and d['StageVariables']=={'color':'blue'}"
gw update-stage --api-id "$API" --stage-name prod --description "production"
check "the update" 'd["Description"]=="production"'
ok

STEP="tags"
ARN="arn:aws:apigateway:us-east-1::/apis/$API"
gw tag-resource --resource-arn "$ARN" --tags env=test
gw get-tags --resource-arn "$ARN"
check "the merged tags" 'd["Tags"]=={"team":"ci","env":"test"}'
gw untag-resource --resource-arn "$ARN" --tag-keys team
gw get-tags --resource-arn "$ARN"
check "the tag removed" 'd["Tags"]=={"env":"test"}'
ok

STEP="tear down"
gw delete-stage --api-id "$API" --stage-name prod
gw delete-api --api-id "$API"
gw_err NotFoundException get-api --api-id "$API"
gw get-apis
check "no API left" 'd.get("Items", [])==[]'
ok

STEP="stop on SIGTERM"
kill -TERM "$EMU_PID"
rc=0
wait "$EMU_PID" || rc=$?
EMU_PID=
[[ $rc -eq 0 ]] || fail "exit 0 after SIGTERM" "exit $rc"
ok
echo "e2e-apigatewayv2: $PASSED passed, 0 failed"
