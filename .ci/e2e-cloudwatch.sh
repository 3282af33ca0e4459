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

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init e2e-cloudwatch optional "$@"

STEP="tools"
command -v python3 >/dev/null || fail "python3 on PATH" "none"
ok

e2e_build_emulator
e2e_aws_env

e2e_cli_step

STEP="start the emulator"
e2e_start_emulator
ok "$ENDPOINT"

# cw OP ARGS...: aws cloudwatch OP must succeed; its reply goes to OUT.
cw() { e2e_aws cloudwatch "$@"; }
# cw_err CODE OP ARGS...: aws cloudwatch OP must fail with error CODE; the
# CLI's message goes to ERR.
cw_err() { e2e_aws_err "$1" cloudwatch "${@:2}"; }

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
cw list-metrics --namespace E2E/App --region eu-west-1
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
