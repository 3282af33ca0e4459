#!/usr/bin/env bash
# End-to-end check of CloudWatch metrics through the AWS CLI.
#
#   .ci/e2e-cloudwatch.sh [PATH-TO-EMULATOR-BINARY]
#
# Starts the emulator (in memory) on a free loopback port, puts datapoints
# with put-metric-data (single values, values with counts, a statistic set,
# and the CLI's --metric-name/--value form), then reads them back with
# get-metric-statistics (the five statistics and p99), get-metric-data (two
# queries, paged by --max-datapoints, both as the CLI merges the pages and one
# page at a time with its NextToken) and list-metrics (namespace and dimension
# filters), reads a deployed MOCK API's request metrics from AWS/ApiGateway
# after a few calls, and checks the errors: a bad period, a bad token, a metric math
# expression, an operation that is not served. The AWS CLI v2 that Debian
# ships (2.9) speaks CloudWatch's query protocol; newer CLIs speak JSON 1.0.
# Prints "ok  <step>" per step; on a failure prints what was expected and
# what came back, the emulator's log, and exits non-zero. Without an
# argument the emulator is built from this checkout first. The CLI is
# $AWS_CLI, else /usr/bin/aws, else aws on PATH. Everything stays on
# 127.0.0.1 and every wait is bounded.
set -euo pipefail

[[ $# -le 1 ]] || { echo "usage: $0 [PATH-TO-EMULATOR-BINARY]" >&2; exit 2; }
[[ $# -eq 0 || -x $1 ]] || { echo "usage: $0 [PATH-TO-EMULATOR-BINARY]" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/e2e-cloudwatch.XXXXXX")
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
		echo "e2e-cloudwatch: FAILED (exit $rc) at step: $STEP"
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

STEP="tools"
command -v python3 >/dev/null || fail "python3 on PATH" "none"
ok

if [[ $# -eq 1 ]]; then
	BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
else
	STEP="go build ./cmd/emulator"
	[[ -x /usr/local/go/bin/go ]] && export PATH=/usr/local/go/bin:$PATH
	command -v go >/dev/null || fail "go on PATH (or pass PATH-TO-EMULATOR-BINARY)" "none"
	BIN=$WORK/emulator
	(cd "$(dirname "${BASH_SOURCE[0]}")/.." && timeout 300 go build -o "$BIN" ./cmd/emulator) >"$WORK/build.log" 2>&1 ||
		fail "the emulator to build" "$(tail -n 20 "$WORK/build.log")"
	ok
fi

unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_CLOUDWATCH AWS_CA_BUNDLE AWS_REGION
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
EMULATOR_HOST=127.0.0.1 EMULATOR_PORT=$PORT EMULATOR_STATE=memory "$BIN" >"$EMU_LOG" 2>&1 &
EMU_PID=$!
for _ in $(seq 100); do
	grep -q "msg=listening" "$EMU_LOG" && break
	kill -0 "$EMU_PID" 2>/dev/null || fail "the emulator to start" "$(cat "$EMU_LOG")"
	sleep 0.1
done
grep -q "msg=listening" "$EMU_LOG" || fail "msg=listening within 10 s" "$(cat "$EMU_LOG")"
ENDPOINT=http://127.0.0.1:$PORT
ok "$ENDPOINT"

# cw OP ARGS...: aws cloudwatch OP must succeed; its reply goes to OUT.
cw() {
	local rc=0
	OUT=$(timeout 30 "$AWS" cloudwatch "$@" --endpoint-url "$ENDPOINT" "${FLAGS[@]}" 2>"$WORK/err") || rc=$?
	[[ $rc -eq 0 ]] || fail "aws cloudwatch $* to succeed" "exit $rc: $(tail -n 5 "$WORK/err")"
}
# cw_err CODE OP ARGS...: aws cloudwatch OP must fail with error CODE; the
# CLI's message goes to ERR.
cw_err() {
	local code=$1 rc=0; shift
	OUT=$(timeout 30 "$AWS" cloudwatch "$@" --endpoint-url "$ENDPOINT" "${FLAGS[@]}" 2>"$WORK/err") || rc=$?
	ERR=$(cat "$WORK/err")
	[[ $rc -ne 0 && $ERR == *"($code)"* ]] || fail "aws cloudwatch $* to fail with ($code)" "exit $rc: $ERR $OUT"
}

# The datapoints sit in whole minutes of the last hour, so that each query
# below covers a known set whatever the wall clock.
T0=$(python3 -c 'import time; t=int(time.time())//60*60-30*60; print(t)')
iso() { python3 -c 'import sys,datetime; print(datetime.datetime.fromtimestamp(int(sys.argv[1]), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))' "$1"; }
FROM=$(iso $((T0 - 300)))
TO=$(iso $((T0 + 600)))

STEP="put-metric-data --metric-data"
cw put-metric-data --namespace E2E/App --metric-data "[
  {\"MetricName\":\"Latency\",\"Dimensions\":[{\"Name\":\"Service\",\"Value\":\"api\"}],\"Timestamp\":\"$(iso "$T0")\",\"Value\":10,\"Unit\":\"Milliseconds\"},
  {\"MetricName\":\"Latency\",\"Dimensions\":[{\"Name\":\"Service\",\"Value\":\"api\"}],\"Timestamp\":\"$(iso $((T0 + 10)))\",\"Values\":[20,30],\"Counts\":[1,2],\"Unit\":\"Milliseconds\"},
  {\"MetricName\":\"Latency\",\"Dimensions\":[{\"Name\":\"Service\",\"Value\":\"api\"}],\"Timestamp\":\"$(iso $((T0 + 20)))\",\"StatisticValues\":{\"SampleCount\":2,\"Sum\":40,\"Minimum\":20,\"Maximum\":20},\"Unit\":\"Milliseconds\"}]"
[[ -z $OUT ]] || fail "no output" "$OUT"
ok

STEP="put-metric-data --metric-name"
for i in 1 2 3 4 5; do
	cw put-metric-data --namespace E2E/App --metric-name Requests --dimensions Service=api \
		--timestamp "$(iso $((T0 + (i - 1) * 60)))" --value "$i" --unit Count
done
cw put-metric-data --namespace E2E/App --metric-name Requests --dimensions Service=web --timestamp "$(iso "$T0")" --value 100 --unit Count
ok "6 calls"

STEP="get-metric-statistics"
cw get-metric-statistics --namespace E2E/App --metric-name Latency --dimensions Name=Service,Value=api \
	--start-time "$FROM" --end-time "$TO" --period 60 \
	--statistics Sum Average SampleCount Minimum Maximum --extended-statistics p99
check "the label" 'd["Label"] == "Latency"'
check "one minute of data" 'len(d["Datapoints"]) == 1'
check "Sum 130 over 6 samples, 10..30 ms" 'd["Datapoints"][0]["Sum"] == 130 and d["Datapoints"][0]["SampleCount"] == 6 and d["Datapoints"][0]["Minimum"] == 10 and d["Datapoints"][0]["Maximum"] == 30'
check "Average" 'abs(d["Datapoints"][0]["Average"] - 130/6) < 1e-9'
check "p99 about 30" 'abs(d["Datapoints"][0]["ExtendedStatistics"]["p99"] - 30) <= 30/64'
check "the unit" 'd["Datapoints"][0]["Unit"] == "Milliseconds"'
# CLI v2 prints ISO 8601, v1 what the protocol carried (epoch seconds in JSON).
check "the minute $(iso "$T0")" "(lambda v: v if isinstance(v, (int, float)) else __import__('datetime').datetime.fromisoformat(v.replace('Z', '+00:00')).timestamp())(d['Datapoints'][0]['Timestamp']) == $T0"
ok

STEP="get-metric-statistics --period 300"
cw get-metric-statistics --namespace E2E/App --metric-name Requests --dimensions Name=Service,Value=api \
	--start-time "$(iso "$T0")" --end-time "$(iso $((T0 + 300)))" --period 300 --statistics Sum Maximum
check "one five-minute sum of 1..5" 'len(d["Datapoints"]) == 1 and d["Datapoints"][0]["Sum"] == 15 and d["Datapoints"][0]["Maximum"] == 5'
ok

QUERIES="[
  {\"Id\":\"reqs\",\"Label\":\"requests\",\"MetricStat\":{\"Metric\":{\"Namespace\":\"E2E/App\",\"MetricName\":\"Requests\",\"Dimensions\":[{\"Name\":\"Service\",\"Value\":\"api\"}]},\"Period\":60,\"Stat\":\"Sum\"}},
  {\"Id\":\"lat\",\"MetricStat\":{\"Metric\":{\"Namespace\":\"E2E/App\",\"MetricName\":\"Latency\",\"Dimensions\":[{\"Name\":\"Service\",\"Value\":\"api\"}]},\"Period\":60,\"Stat\":\"Maximum\"}},
  {\"Id\":\"quiet\",\"ReturnData\":false,\"MetricStat\":{\"Metric\":{\"Namespace\":\"E2E/App\",\"MetricName\":\"Requests\"},\"Period\":60,\"Stat\":\"Sum\"}}]"

STEP="get-metric-data"
cw get-metric-data --metric-data-queries "$QUERIES" --start-time "$FROM" --end-time "$TO"
check "two results" '[r["Id"] for r in d["MetricDataResults"]] == ["reqs", "lat"]'
check "newest first" 'd["MetricDataResults"][0]["Values"] == [5, 4, 3, 2, 1] and d["MetricDataResults"][0]["Label"] == "requests"'
check "the latency's maximum" 'd["MetricDataResults"][1]["Values"] == [30] and d["MetricDataResults"][1]["Label"] == "Latency"'
check "complete" 'all(r["StatusCode"] == "Complete" for r in d["MetricDataResults"]) and "NextToken" not in d'
ok

# The CLI pages GetMetricData itself: --page-size is MaxDatapoints, and it
# merges the pages' results (one entry per query and page).
STEP="get-metric-data --scan-by TimestampAscending --page-size 2"
cw get-metric-data --metric-data-queries "$QUERIES" --start-time "$FROM" --end-time "$TO" --scan-by TimestampAscending --page-size 2
check "every datapoint once, oldest first" 'sum([r["Values"] for r in d["MetricDataResults"] if r["Id"] == "reqs"], []) == [1, 2, 3, 4, 5]'
check "the latency's" 'sum([r["Values"] for r in d["MetricDataResults"] if r["Id"] == "lat"], []) == [30]'
ok "$(q 'len(d["MetricDataResults"])') results merged"

# --max-datapoints and --next-token, which the CLI's help leaves out, turn its
# paging off: one page at a time.
STEP="get-metric-data --max-datapoints 4, then --next-token"
cw get-metric-data --metric-data-queries "$QUERIES" --start-time "$FROM" --end-time "$TO" --max-datapoints 4 --no-paginate
check "a first page" 'len(d["MetricDataResults"]) == 1 and d["MetricDataResults"][0]["Values"] == [5, 4, 3, 2] and d["MetricDataResults"][0]["StatusCode"] == "PartialData"'
TOKEN=$(q 'd["NextToken"]')
cw get-metric-data --metric-data-queries "$QUERIES" --start-time "$FROM" --end-time "$TO" --max-datapoints 4 --no-paginate --next-token "$TOKEN"
check "the rest" '[(r["Id"], r["Values"], r["StatusCode"]) for r in d["MetricDataResults"]] == [("reqs", [1], "Complete"), ("lat", [30], "Complete")] and "NextToken" not in d'
ok

STEP="list-metrics"
cw list-metrics --namespace E2E/App
check "three series" 'sorted((m["MetricName"], m["Dimensions"][0]["Value"]) for m in d["Metrics"]) == [("Latency", "api"), ("Requests", "api"), ("Requests", "web")]'
cw list-metrics --dimensions Name=Service,Value=web
check "the dimension filter" '[(m["Namespace"], m["MetricName"]) for m in d["Metrics"]] == [("E2E/App", "Requests")]'
cw list-metrics --namespace E2E/App --metric-name Requests --dimensions Name=Service
check "name and dimension name" 'len(d["Metrics"]) == 2'
cw list-metrics --namespace E2E/Nothing
check "nothing" 'd["Metrics"] == []'
ok

STEP="another region is another store"
OUT=$(timeout 30 "$AWS" cloudwatch list-metrics --namespace E2E/App --region eu-west-1 --endpoint-url "$ENDPOINT" "${FLAGS[@]}" 2>"$WORK/err") ||
	fail "list-metrics in eu-west-1 to succeed" "$(cat "$WORK/err")"
check "no series" 'd["Metrics"] == []'
ok

STEP="a deployed API's requests in AWS/ApiGateway"
# apigw ARGS...: aws apigateway must succeed; prints its text output.
apigw() { timeout 30 "$AWS" apigateway "$@" --endpoint-url "$ENDPOINT" --output text 2>"$WORK/err" || fail "aws apigateway $* to succeed" "$(tail -n 5 "$WORK/err")"; }
API=$(apigw create-rest-api --name e2e-metrics --query id)
ROOT=$(apigw get-resources --rest-api-id "$API" --query 'items[0].id')
PETS=$(apigw create-resource --rest-api-id "$API" --parent-id "$ROOT" --path-part pets --query id)
apigw put-method --rest-api-id "$API" --resource-id "$PETS" --http-method GET --authorization-type NONE >/dev/null
apigw put-integration --rest-api-id "$API" --resource-id "$PETS" --http-method GET --type MOCK \
	--request-templates '{"application/json": "{\"statusCode\": 200}"}' >/dev/null
apigw put-method-response --rest-api-id "$API" --resource-id "$PETS" --http-method GET --status-code 200 >/dev/null
apigw put-integration-response --rest-api-id "$API" --resource-id "$PETS" --http-method GET --status-code 200 \
	--response-templates '{"application/json": "{\"pets\": []}"}' >/dev/null
apigw create-deployment --rest-api-id "$API" --stage-name dev >/dev/null
NOW=$(python3 -c 'import time; print(int(time.time()))')
for i in 1 2 3; do
	CODE=$(python3 -c 'import sys,urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).status)' "$ENDPOINT/restapis/$API/dev/_user_request_/pets")
	[[ $CODE == 200 ]] || fail "GET /pets to answer 200" "$CODE"
done
CODE=$(python3 -c 'import sys,urllib.request,urllib.error
try: print(urllib.request.urlopen(sys.argv[1], timeout=10).status)
except urllib.error.HTTPError as e: print(e.code)' "$ENDPOINT/restapis/$API/dev/_user_request_/cats")
[[ $CODE == 403 ]] || fail "GET /cats to answer 403" "$CODE"
cw get-metric-statistics --namespace AWS/ApiGateway --metric-name Count \
	--dimensions Name=ApiName,Value=e2e-metrics Name=Stage,Value=dev \
	--start-time "$(iso $((NOW - 600)))" --end-time "$(iso $((NOW + 600)))" --period 1200 --statistics Sum
check "four requests counted" 'len(d["Datapoints"]) == 1 and d["Datapoints"][0]["Sum"] == 4'
cw get-metric-statistics --namespace AWS/ApiGateway --metric-name 4XXError \
	--dimensions Name=ApiName,Value=e2e-metrics Name=Stage,Value=dev \
	--start-time "$(iso $((NOW - 600)))" --end-time "$(iso $((NOW + 600)))" --period 1200 --statistics Average
check "a 4xx rate of one in four" 'd["Datapoints"][0]["Average"] == 0.25'
cw get-metric-statistics --namespace AWS/ApiGateway --metric-name Latency \
	--dimensions Name=ApiName,Value=e2e-metrics Name=Method,Value=GET Name=Resource,Value=/pets Name=Stage,Value=dev \
	--start-time "$(iso $((NOW - 600)))" --end-time "$(iso $((NOW + 600)))" --period 1200 --statistics SampleCount --extended-statistics p99
check "three latencies of GET /pets, with a p99" 'd["Datapoints"][0]["SampleCount"] == 3 and "p99" in d["Datapoints"][0]["ExtendedStatistics"] and d["Datapoints"][0]["Unit"] == "Milliseconds"'
ok

STEP="errors"
cw_err InvalidParameterValue get-metric-statistics --namespace E2E/App --metric-name Latency \
	--start-time "$FROM" --end-time "$TO" --period 7 --statistics Sum
cw_err MissingParameter get-metric-statistics --namespace E2E/App --metric-name Latency \
	--start-time "$FROM" --end-time "$TO" --period 60
cw_err InvalidParameterValue put-metric-data --namespace AWS/Mine --metric-name M --value 1
cw_err InvalidNextToken get-metric-data --metric-data-queries "$QUERIES" --start-time "$FROM" --end-time "$TO" --next-token bogus --no-paginate
cw_err ValidationError get-metric-data --start-time "$FROM" --end-time "$TO" \
	--metric-data-queries '[{"Id":"e1","Expression":"SUM(METRICS())"}]'
[[ $ERR == *"Metric math is not supported"* ]] || fail "the message to say metric math is not supported" "$ERR"
cw_err NotImplemented describe-alarms
ok

echo "e2e-cloudwatch: $PASSED steps passed"
