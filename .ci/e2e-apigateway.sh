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

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init e2e-apigateway required "$@"
e2e_aws_env

e2e_cli_step

STEP="start the emulator"
e2e_start_emulator
ok "$ENDPOINT"

# gw OP ARGS...: aws apigateway OP must succeed; its reply goes to OUT.
gw() { e2e_aws apigateway "$@"; }
# gw_err CODE OP ARGS...: aws apigateway OP must fail with CODE.
gw_err() { e2e_aws_err "$1" apigateway "${@:2}"; }

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
e2e_stop_emulator
ok
echo "e2e-apigateway: $PASSED passed, 0 failed"
