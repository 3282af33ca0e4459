#!/usr/bin/env bash
# End-to-end check of mail, queues and topics through the AWS CLI.
#
#   .ci/e2e-messaging.sh [PATH-TO-EMULATOR-BINARY]
#
# Starts the emulator (in memory) on a free loopback port, then: verifies a
# sender and sends mail with SES v1 and v2 (and is refused from an
# unverified sender), reads the mail back from the inbox
# (/_emulator/ses/inbox/messages and the /_aws/ses alias); creates a queue,
# sends to it, peeks at it (/_emulator/sqs/messages, GET /{account}/{queue}
# and the /_aws/sqs/messages alias) without consuming, receives and deletes;
# creates a topic, subscribes the queue, publishes and receives the SNS
# envelope; publishes a short message to a phone number and reads it from
# /_aws/sns/sms-messages; and checks an unknown queue's error. The AWS CLI
# v2 that Debian ships (2.9) speaks SQS's query protocol. Prints "ok <step>"
# per step; on a failure prints what was expected and what came back, the
# emulator's log, and exits non-zero. Everything stays on 127.0.0.1 and
# every wait is bounded.
set -euo pipefail

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init e2e-messaging optional "$@"

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

# get PATH: GET the emulator's PATH (5 s at most) into OUT; it must answer 200.
get() {
	local code
	code=$(curl -sS --max-time 5 -o "$WORK/body" -w '%{http_code}' "$ENDPOINT$1") || fail "GET $1 to answer" "$code"
	OUT=$(<"$WORK/body")
	[[ $code == 200 ]] || fail "GET $1 to answer 200" "$code $OUT"
}

# --- mail
STEP="ses verify-email-identity"
e2e_aws ses verify-email-identity --email-address sender@example.com
ok

STEP="ses send-email"
e2e_aws ses send-email --from sender@example.com --destination ToAddresses=to@example.com \
	--message 'Subject={Data=Hello from e2e},Body={Text={Data=plain body},Html={Data=<p>html body</p>}}'
MAIL_ID=$(q 'd["MessageId"]')
[[ -n $MAIL_ID ]] || fail "a MessageId" "$OUT"
ok "$MAIL_ID"

STEP="ses send-email from an unverified sender"
e2e_aws_err MessageRejected ses send-email --from stranger@example.com --destination ToAddresses=to@example.com \
	--message 'Subject={Data=x},Body={Text={Data=x}}'
ok

STEP="sesv2 send-email"
e2e_aws sesv2 send-email --from-email-address sender@example.com --destination ToAddresses=v2@example.com \
	--content 'Simple={Subject={Data=From v2},Body={Text={Data=v2 body}}}'
V2_ID=$(q 'd["MessageId"]')
ok "$V2_ID"

STEP="the inbox holds the mail"
get "/_emulator/ses/inbox/messages?id=$MAIL_ID"
check "one entry" 'len(d["messages"]) == 1'
check "its fields" 'd["messages"][0]["kind"] == "email" and d["messages"][0]["subject"] == "Hello from e2e" and d["messages"][0]["text"] == "plain body" and d["messages"][0]["html"] == "<p>html body</p>" and d["messages"][0]["destinations"]["to"] == ["to@example.com"]'
get "/_emulator/ses/inbox/messages?email=v2@example.com"
check "the v2 mail" 'len(d["messages"]) == 1 and d["messages"][0]["subject"] == "From v2"'
ok

STEP="the /_aws/ses alias"
get "/_aws/ses?id=$MAIL_ID"
check "the legacy shape" 'd["messages"][0]["Source"] == "sender@example.com" and d["messages"][0]["Body"]["text_part"] == "plain body" and "Region" not in d["messages"][0]'
ok

# --- queues
STEP="sqs create-queue"
e2e_aws sqs create-queue --queue-name e2e-queue
QUEUE_URL=$(q 'd["QueueUrl"]')
[[ $QUEUE_URL == */000000000000/e2e-queue ]] || fail "a queue URL ending /000000000000/e2e-queue" "$QUEUE_URL"
ok "$QUEUE_URL"

STEP="sqs send-message"
e2e_aws sqs send-message --queue-url "$QUEUE_URL" --message-body 'hello queue' \
	--message-attributes '{"color":{"DataType":"String","StringValue":"blue"}}'
check "digests" 'd["MD5OfMessageBody"] == "'"$(printf 'hello queue' | md5sum | cut -d' ' -f1)"'" and len(d["MD5OfMessageAttributes"]) == 32'
ok

STEP="peek without consuming"
get "/_emulator/sqs/messages?QueueUrl=$QUEUE_URL"
check "one visible message" 'len(d["messages"]) == 1 and d["messages"][0]["body"] == "hello queue" and d["messages"][0]["state"] == "visible" and d["messages"][0]["receiveCount"] == 0'
get "/000000000000/e2e-queue"
check "the same through the queue path" 'len(d["messages"]) == 1'
code=$(curl -sS --max-time 5 -o "$WORK/body" -w '%{http_code}' "$ENDPOINT/_aws/sqs/messages?QueueUrl=$QUEUE_URL")
grep -q '<Body>hello queue</Body>' "$WORK/body" || fail "the /_aws/sqs/messages alias to answer ReceiveMessage's XML" "$code $(<"$WORK/body")"
ok

STEP="sqs receive-message and delete-message"
e2e_aws sqs receive-message --queue-url "$QUEUE_URL" --attribute-names All --message-attribute-names All
check "the message" 'd["Messages"][0]["Body"] == "hello queue" and d["Messages"][0]["MessageAttributes"]["color"]["StringValue"] == "blue" and d["Messages"][0]["Attributes"]["ApproximateReceiveCount"] == "1"'
RECEIPT=$(q 'd["Messages"][0]["ReceiptHandle"]')
e2e_aws sqs delete-message --queue-url "$QUEUE_URL" --receipt-handle "$RECEIPT"
e2e_aws sqs get-queue-attributes --queue-url "$QUEUE_URL" --attribute-names ApproximateNumberOfMessages ApproximateNumberOfMessagesNotVisible
check "an empty queue" 'd["Attributes"]["ApproximateNumberOfMessages"] == "0" and d["Attributes"]["ApproximateNumberOfMessagesNotVisible"] == "0"'
ok

STEP="sqs get-queue-url of an unknown queue"
e2e_aws_err AWS.SimpleQueueService.NonExistentQueue sqs get-queue-url --queue-name no-such-queue
ok

# --- topics
STEP="sns create-topic and subscribe the queue"
e2e_aws sns create-topic --name e2e-topic
TOPIC_ARN=$(q 'd["TopicArn"]')
e2e_aws sqs get-queue-attributes --queue-url "$QUEUE_URL" --attribute-names QueueArn
QUEUE_ARN=$(q 'd["Attributes"]["QueueArn"]')
e2e_aws sns subscribe --topic-arn "$TOPIC_ARN" --protocol sqs --notification-endpoint "$QUEUE_ARN"
check "a subscription ARN" 'd["SubscriptionArn"].startswith("'"$TOPIC_ARN"':")'
ok

STEP="sns publish reaches the queue"
e2e_aws sns publish --topic-arn "$TOPIC_ARN" --subject greeting --message 'hello topic'
e2e_aws sqs receive-message --queue-url "$QUEUE_URL" --wait-time-seconds 5
check "the SNS envelope" 'json.loads(d["Messages"][0]["Body"])["Message"] == "hello topic" and json.loads(d["Messages"][0]["Body"])["TopicArn"] == "'"$TOPIC_ARN"'" and json.loads(d["Messages"][0]["Body"])["Type"] == "Notification"'
ok

STEP="sns publish to a phone number"
e2e_aws sns publish --phone-number +15555550100 --message 'your code is 1234'
get "/_aws/sns/sms-messages?phoneNumber=%2B15555550100"
check "the short message" 'd["sms_messages"]["+15555550100"][0]["Message"] == "your code is 1234"'
get "/_emulator/ses/inbox/messages?kind=sms"
check "an inbox entry of kind sms" 'len(d["messages"]) == 1 and d["messages"][0]["phoneNumber"] == "+15555550100"'
ok

echo "e2e-messaging: $PASSED steps passed"
