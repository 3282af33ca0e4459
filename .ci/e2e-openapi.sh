#!/usr/bin/env bash
# End-to-end check of OpenAPI import and export through the AWS CLI.
#
#   .ci/e2e-openapi.sh [PATH-TO-EMULATOR-BINARY]
#
# Starts the emulator (in memory) on a free loopback port, imports a REST
# API from an OpenAPI 3.0 document (import-rest-api --body fileb://), deploys
# it and calls its MOCK method with curl, exports the stage as Swagger and
# re-imports the export, then imports an HTTP API (import-api) whose
# HTTP_PROXY route points at the emulator's own health endpoint, calls it,
# and exports it. A malformed document must be refused with
# BadRequestException and create nothing. Prints "ok  <step>" per step; on a
# failure prints what was expected and what came back, the emulator's log,
# and exits non-zero. Everything stays on 127.0.0.1 and every wait is
# bounded.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init e2e-openapi optional "$@"

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

STEP="apigateway import-rest-api"
cat >"$WORK/pets.json" <<'DOC'
{"openapi": "3.0.1", "info": {"title": "e2e-pets", "version": "1.0"},
 "paths": {"/pets/{id}": {"get": {
   "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
   "responses": {"200": {"description": "a pet"}},
   "x-amazon-apigateway-integration": {"type": "mock",
     "requestTemplates": {"application/json": "{\"statusCode\": 200}"},
     "responses": {"default": {"statusCode": "200",
       "responseTemplates": {"application/json": "{\"pet\": \"$input.params('id')\"}"}}}}}}}}
DOC
e2e_aws apigateway import-rest-api --body "fileb://$WORK/pets.json"
API=$(q 'd["id"]')
check "the imported API" 'd["name"] == "e2e-pets" and d["version"] == "1.0"'
e2e_aws apigateway get-resources --rest-api-id "$API"
check "its resources" 'sorted(r["path"] for r in d["items"]) == ["/", "/pets", "/pets/{id}"]'
ok "$API"

STEP="deploy and call the imported API"
e2e_aws apigateway create-deployment --rest-api-id "$API" --stage-name prod
OUT=$(curl -sS --max-time 5 "$ENDPOINT/restapis/$API/prod/_user_request_/pets/7")
[[ $OUT == '{"pet": "7"}' ]] || fail '{"pet": "7"}' "$OUT"
ok

STEP="apigateway get-export and re-import"
timeout 30 "$AWS" apigateway get-export --rest-api-id "$API" --stage-name prod --export-type swagger \
	--accepts application/json --endpoint-url "$ENDPOINT" "${AWS_FLAGS[@]}" "$WORK/export.json" >/dev/null 2>"$WORK/err" ||
	fail "get-export to succeed" "$(tail -n 5 "$WORK/err")"
OUT=$(<"$WORK/export.json")
check "a Swagger document of the stage" 'd["swagger"] == "2.0" and d["basePath"] == "/prod" and "/pets/{id}" in d["paths"]'
e2e_aws apigateway import-rest-api --body "fileb://$WORK/export.json"
API2=$(q 'd["id"]')
e2e_aws apigateway get-resources --rest-api-id "$API2"
check "the same resources" 'sorted(r["path"] for r in d["items"]) == ["/", "/pets", "/pets/{id}"]'
ok

STEP="a malformed document"
printf '{"openapi": "3.0.1", "info": ' >"$WORK/bad.json"
e2e_aws apigateway get-rest-apis
BEFORE=$(q 'len(d["items"])')
e2e_aws_err BadRequestException apigateway import-rest-api --body "fileb://$WORK/bad.json"
e2e_aws apigateway get-rest-apis
[[ $(q 'len(d["items"])') == "$BEFORE" ]] || fail "nothing created" "$OUT"
ok

STEP="apigatewayv2 import-api"
cat >"$WORK/http.json" <<DOC
{"openapi": "3.0.1", "info": {"title": "e2e-http", "version": "1.0"},
 "paths": {"/health": {"get": {"responses": {"default": {"description": "the emulator's health"}},
   "x-amazon-apigateway-integration": {"type": "http_proxy", "httpMethod": "GET",
     "uri": "$ENDPOINT/_emulator/health", "payloadFormatVersion": "1.0"}}}}}
DOC
e2e_aws apigatewayv2 import-api --body "file://$WORK/http.json"
HTTP_API=$(q 'd["ApiId"]')
check "the imported HTTP API" 'd["Name"] == "e2e-http" and d["ProtocolType"] == "HTTP"'
e2e_aws apigatewayv2 get-routes --api-id "$HTTP_API"
check "its route" '[r["RouteKey"] for r in d["Items"]] == ["GET /health"]'
e2e_aws apigatewayv2 create-stage --api-id "$HTTP_API" --stage-name "\$default" --auto-deploy
OUT=$(curl -sS --max-time 5 "$ENDPOINT/_aws/execute-api/$HTTP_API/health")
check "the proxied health" 'd["status"] == "running"'
ok "$HTTP_API"

STEP="apigatewayv2 export-api"
timeout 30 "$AWS" apigatewayv2 export-api --api-id "$HTTP_API" --specification OAS30 --output-type JSON \
	--endpoint-url "$ENDPOINT" "${AWS_FLAGS[@]}" "$WORK/http-export.json" >/dev/null 2>"$WORK/err" ||
	fail "export-api to succeed" "$(tail -n 5 "$WORK/err")"
OUT=$(<"$WORK/http-export.json")
check "an OpenAPI 3.0 document with the route" 'd["openapi"].startswith("3.0") and "get" in d["paths"]["/health"]'
ok

echo "e2e-openapi: $PASSED steps passed"
