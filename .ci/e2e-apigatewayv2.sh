#!/usr/bin/env bash
# End-to-end check of the API Gateway v2 control plane through the AWS CLI.
#
#   .ci/e2e-apigatewayv2.sh PATH-TO-EMULATOR-BINARY
#
# Starts the emulator on a free loopback port, quick-creates an HTTP API
# (integration, $default route and auto-deploying $default stage), adds a
# route and a stage, checks auto-deployment and tags, then tears it all
# down; a second quick-created API proxies to the emulator's own health
# endpoint and is called with curl. Prints "ok  <step>" per step; on a failure prints what was expected
# and what came back, the emulator's log, and exits non-zero. The CLI is
# $AWS_CLI, else /usr/bin/aws, else aws on PATH.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init e2e-apigatewayv2 required "$@"
e2e_aws_env

e2e_cli_step

STEP="start the emulator"
e2e_start_emulator
ok "$ENDPOINT"

# gw OP ARGS...: aws apigatewayv2 OP must succeed; its reply goes to OUT.
gw() { e2e_aws apigatewayv2 "$@"; }
# gw_err CODE OP ARGS...: aws apigatewayv2 OP must fail with CODE.
gw_err() { e2e_aws_err "$1" apigatewayv2 "${@:2}"; }

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

STEP="run an HTTP API: HTTP_PROXY to the emulator's health"
gw create-api --name e2e-run --protocol-type HTTP --target "$ENDPOINT/_emulator/health"
RUN=$(q 'd["ApiId"]')
OUT=$(curl -s -D "$WORK/headers" -H "Host: $RUN.execute-api.localhost.localstack.cloud" "$ENDPOINT/")
check "the backend's answer through the \$default route" '"services" in d'
grep -qi '^apigw-requestid: ' "$WORK/headers" || fail "an apigw-requestid header" "$(cat "$WORK/headers")"
OUT=$(curl -s -o /dev/null -w '%{http_code}' "$ENDPOINT/_aws/execute-api/nosuchapi1/x")
[[ $OUT == 404 ]] || fail "404 for an unknown API" "$OUT"
gw get-integrations --api-id "$RUN"
RUN_INTEGRATION=$(q 'd["Items"][0]["IntegrationId"]')
gw create-route --api-id "$RUN" --route-key 'GET /only/{id}' --target "integrations/$RUN_INTEGRATION"
OUT=$(curl -s -w ' %{http_code}' "$ENDPOINT/_aws/execute-api/$RUN/only/7")
[[ $OUT == *' 200' ]] || fail "the new route, deployed at once" "$OUT"
gw delete-api --api-id "$RUN"
ok "$RUN"

STEP="tear down"
gw delete-stage --api-id "$API" --stage-name prod
gw delete-api --api-id "$API"
gw_err NotFoundException get-api --api-id "$API"
gw get-apis
check "no API left" 'd.get("Items", [])==[]'
ok

STEP="stop on SIGTERM"
e2e_stop_emulator
ok
echo "e2e-apigatewayv2: $PASSED passed, 0 failed"
