#!/usr/bin/env bash
# End-to-end check of a WebSocket API through the AWS CLI and a raw client.
#
#   .ci/e2e-websocket.sh PATH-TO-EMULATOR-BINARY
#
# Starts the emulator on a free loopback port, builds a WebSocket API with
# the CLI (a MOCK integration answering the connection id, a route with a
# route response, a stage and a deployment), connects a small WebSocket
# client (Python, raw socket: the handshake and masked text frames), checks
# route selection and AWS's error frame, then drives @connections with
# `aws apigatewaymanagementapi` (post-to-connection, get-connection,
# delete-connection, GoneException once closed). Prints "ok  <step>" per
# step; on a failure prints what was expected and what came back, the
# emulator's log, and exits non-zero. The CLI is $AWS_CLI, else
# /usr/bin/aws, else aws on PATH.
#
# The single-quoted $... below are API Gateway's expressions, not the shell's.
# shellcheck disable=SC2016
set -euo pipefail

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init e2e-websocket required "$@"
e2e_aws_env

e2e_cli_step

STEP="start the emulator"
e2e_start_emulator
ok "$ENDPOINT"

gw() { e2e_aws apigatewayv2 "$@"; }

STEP="create a WebSocket API"
gw create-api --name e2e-ws --protocol-type WEBSOCKET --route-selection-expression '$request.body.action'
API=$(q 'd["ApiId"]')
check "a WebSocket API with its ws:// endpoint" "d['ProtocolType']=='WEBSOCKET' and d['ApiEndpoint'].startswith('ws://')"
gw create-integration --api-id "$API" --integration-type MOCK --template-selection-expression '\$default' \
	--request-templates '{"$default": "{\"statusCode\": 200}"}'
INTEGRATION=$(q 'd["IntegrationId"]')
gw create-integration-response --api-id "$API" --integration-id "$INTEGRATION" --integration-response-key '$default' \
	--template-selection-expression '\$default' --response-templates '{"$default": "$context.connectionId"}'
gw create-route --api-id "$API" --route-key whoami --target "integrations/$INTEGRATION"
ROUTE=$(q 'd["RouteId"]')
gw create-route-response --api-id "$API" --route-id "$ROUTE" --route-response-key '$default'
gw create-stage --api-id "$API" --stage-name dev
gw create-deployment --api-id "$API" --stage-name dev
ok "$API"

# The client: WS_SCRIPT's steps, one output line per "recv" and for the
# close. It stays on 127.0.0.1 and gives up after 30 s.
cat >"$WORK/wsclient.py" <<'PY'
import base64, os, socket, struct, sys

host, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.create_connection((host, port), timeout=30)
key = base64.b64encode(os.urandom(16)).decode()
s.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
           "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: %s\r\n\r\n" % (path, host, port, key)).encode())
buf = b""
while b"\r\n\r\n" not in buf:
    chunk = s.recv(4096)
    if not chunk:
        sys.exit("closed during the handshake")
    buf += chunk
head, buf = buf.split(b"\r\n\r\n", 1)
if not head.startswith(b"HTTP/1.1 101"):
    sys.exit("handshake: " + head.split(b"\r\n")[0].decode())

def exact(n):
    global buf
    while len(buf) < n:
        chunk = s.recv(4096)
        if not chunk:
            raise EOFError("connection closed")
        buf += chunk
    out, buf = buf[:n], buf[n:]
    return out

def frame():
    b0, b1 = exact(2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", exact(2))[0]
    elif n == 127:
        n = struct.unpack(">Q", exact(8))[0]
    return b0 & 0x0F, exact(n)

def send(op, payload):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | op]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
    s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

for step in sys.argv[4:]:
    if step.startswith("send:"):
        send(0x1, step[5:].encode())
    elif step == "recv":
        op, data = frame()
        print(data.decode(), flush=True)
    elif step == "close":
        op, data = frame()
        code = struct.unpack(">H", data[:2])[0] if op == 0x8 and len(data) >= 2 else -1
        print("close %d" % code, flush=True)
        send(0x8, data[:2])
PY

PORT_ONLY=${ENDPOINT##*:}
WS_OUT=$WORK/ws.out
# wait_lines N: waits (20 s at most) until the client printed N lines.
wait_lines() {
	for _ in $(seq 200); do
		[[ $(wc -l <"$WS_OUT") -ge $1 ]] && return 0
		sleep 0.1
	done
	fail "$1 lines from the client" "$(cat "$WS_OUT" "$WORK/ws.err")"
}

STEP="connect and route a message"
timeout 60 python3 "$WORK/wsclient.py" 127.0.0.1 "$PORT_ONLY" "/_aws/execute-api/$API/dev" \
	'send:{"action":"whoami"}' recv 'send:{"action":"nope"}' recv recv close >"$WS_OUT" 2>"$WORK/ws.err" &
CLIENT=$!
wait_lines 1
CONN=$(sed -n 1p "$WS_OUT")
[[ ${#CONN} -eq 16 ]] || fail "a 16-character connection id" "$CONN"
ok "$CONN"

STEP="a message no route takes gets AWS's error frame"
wait_lines 2
OUT=$(sed -n 2p "$WS_OUT")
check "Forbidden with the connection and request ids" "d['message']=='Forbidden' and d['connectionId']=='$CONN' and len(d['requestId'])==16"
ok

MGMT=(--endpoint-url "http://127.0.0.1:$PORT_ONLY/_aws/execute-api/$API/dev" "${AWS_FLAGS[@]}")
BLOB=()
[[ $AWS_VER == aws-cli/1.* ]] || BLOB=(--cli-binary-format raw-in-base64-out)

STEP="aws apigatewaymanagementapi post-to-connection"
timeout 30 "$AWS" apigatewaymanagementapi post-to-connection --connection-id "$CONN" --data 'hello from the CLI' \
	"${BLOB[@]}" "${MGMT[@]}" >/dev/null 2>"$WORK/err" || fail "post-to-connection to succeed" "$(tail -n 5 "$WORK/err")"
wait_lines 3
[[ $(sed -n 3p "$WS_OUT") == 'hello from the CLI' ]] || fail "the client to read the post" "$(cat "$WS_OUT")"
ok

STEP="get-connection"
OUT=$(timeout 30 "$AWS" apigatewaymanagementapi get-connection --connection-id "$CONN" "${MGMT[@]}" 2>"$WORK/err") ||
	fail "get-connection to succeed" "$(tail -n 5 "$WORK/err")"
check "the connection's identity and times" "d['Identity']['SourceIp']=='127.0.0.1' and d['ConnectedAt'] and d['LastActiveAt']"
ok

STEP="delete-connection closes the socket"
timeout 30 "$AWS" apigatewaymanagementapi delete-connection --connection-id "$CONN" "${MGMT[@]}" >/dev/null 2>"$WORK/err" ||
	fail "delete-connection to succeed" "$(tail -n 5 "$WORK/err")"
wait_lines 4
[[ $(sed -n 4p "$WS_OUT") == 'close 1000' ]] || fail "close 1000" "$(cat "$WS_OUT")"
wait "$CLIENT" || fail "the client to end cleanly" "$(cat "$WORK/ws.err")"
ok

STEP="a closed connection is gone"
rc=0
for _ in $(seq 50); do
	rc=0
	timeout 30 "$AWS" apigatewaymanagementapi get-connection --connection-id "$CONN" "${MGMT[@]}" >/dev/null 2>"$WORK/err" || rc=$?
	[[ $rc -ne 0 ]] && break
	sleep 0.1
done
{ [[ $rc -ne 0 ]] && grep -q GoneException "$WORK/err"; } || fail "GoneException" "exit $rc: $(cat "$WORK/err")"
ok

echo "e2e-websocket: $PASSED steps ok"
