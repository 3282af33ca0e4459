# shellcheck shell=bash disable=SC2034
# The start-up that the end-to-end scripts (.ci/e2e-*.sh) share. A script
# sources it and names itself:
#
#   set -euo pipefail
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#   e2e_init e2e-NAME required|optional "$@"
#
# then takes its steps: STEP="..."; work; `ok [NOTE]` prints "ok  <step>",
# `fail EXPECTED GOT` prints "FAIL  <step>" and what came back, and exits 1.
# On any non-zero exit the EXIT trap prints "<name>: FAILED (exit N) at step:
# <step>" and the emulator's log; on every exit it stops the emulator
# (SIGTERM, 10 s, then SIGKILL) and removes WORK. A script that defines
# e2e_cleanup_more gets it called there too, with the exit status.
#
# Sets: E2E_NAME, E2E_ROOT (the checkout), BIN, WORK, EMU_LOG, EMU_PID, STEP,
# PASSED; e2e_cli_step sets AWS, AWS_VER and AWS_FLAGS;
# e2e_start_emulator sets PORT and ENDPOINT; q/check read OUT. Everything
# stays on 127.0.0.1 and every wait is bounded. Knob: E2E_FIRST_PORT, the
# first port e2e_start_emulator tries (to exercise its retry when a port is
# taken).

E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# e2e_init NAME required|optional ARGS...: checks the script's arguments (one
# PATH-TO-EMULATOR-BINARY; with optional it may be left out, and
# e2e_build_emulator builds one), sets BIN to its absolute path (empty if
# left out), makes WORK and sets the traps. NAME prefixes the messages.
e2e_init() {
	E2E_NAME=$1
	local want=$2 usage="usage: $0 PATH-TO-EMULATOR-BINARY"
	shift 2
	[[ $want == optional ]] && usage="usage: $0 [PATH-TO-EMULATOR-BINARY]"
	if [[ $# -gt 1 || ($# -eq 0 && $want != optional) ]]; then
		echo "$usage" >&2
		exit 2
	fi
	BIN=
	if [[ $# -eq 1 ]]; then
		[[ -f $1 && -x $1 ]] || { echo "$E2E_NAME: $1 is not an executable file" >&2; exit 2; }
		BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	fi
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/$E2E_NAME.XXXXXX")
	EMU_LOG=$WORK/emulator.log
	EMU_PID=''
	STEP=setup
	PASSED=0
	OUT=''
	trap e2e_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# fail EXPECTED GOT: reports the current step as failed and exits 1 (the
# EXIT trap stops the emulator and prints its log).
fail() {
	echo "FAIL  $STEP"
	echo "  expected: $1"
	echo "  got:      ${2:-<nothing>}"
	exit 1
}

# ok [NOTE]: reports the current step as passed.
ok() {
	PASSED=$((PASSED + 1))
	echo "ok  $STEP${1:+ ($1)}"
}

# e2e_stop_pid PID: SIGTERM, up to 10 s to exit, then SIGKILL; reaps it.
e2e_stop_pid() {
	local pid=$1
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
}

# e2e_dump_log LABEL FILE [LINES]: prints the last LINES (200) of a log.
e2e_dump_log() {
	echo "---- $1 log ----"
	if [[ -s $2 ]]; then tail -n "${3:-200}" "$2"; else echo "(empty)"; fi
	echo "---- end of $1 log ----"
}

# e2e_cleanup: the EXIT trap (see the top).
e2e_cleanup() {
	local rc=$?
	trap - EXIT
	set +e
	[[ -n $EMU_PID ]] && e2e_stop_pid "$EMU_PID"
	if [[ $rc -ne 0 ]]; then
		echo "$E2E_NAME: FAILED (exit $rc) at step: $STEP"
		e2e_dump_log emulator "$EMU_LOG"
	fi
	declare -F e2e_cleanup_more >/dev/null && e2e_cleanup_more "$rc"
	rm -rf "$WORK"
	exit "$rc"
}

# e2e_build_emulator: if no binary was given, the step "go build
# ./cmd/emulator" builds one from this checkout into WORK (5 min at most).
e2e_build_emulator() {
	[[ -z $BIN ]] || return 0
	STEP="go build ./cmd/emulator"
	[[ -x /usr/local/go/bin/go ]] && export PATH=/usr/local/go/bin:$PATH
	command -v go >/dev/null || fail "go on PATH (or pass PATH-TO-EMULATOR-BINARY)" "none"
	BIN=$WORK/emulator
	(cd "$E2E_ROOT" && timeout 300 go build -o "$BIN" ./cmd/emulator) >"$WORK/build.log" 2>&1 ||
		fail "the emulator to build" "$(tail -n 20 "$WORK/build.log")"
	ok
}

# e2e_aws_env: only the script's own settings reach the AWS CLI: no profile,
# session, role, CA bundle or endpoint (AWS_ENDPOINT_URL*) of the person
# running it; fake credentials in us-east-1, empty config and credentials
# files in WORK, no pager, no instance metadata, one attempt per call.
e2e_aws_env() {
	local v
	unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN AWS_CA_BUNDLE \
		AWS_ROLE_ARN AWS_WEB_IDENTITY_TOKEN_FILE AWS_REGION
	for v in $(compgen -e AWS_ENDPOINT_URL || true); do unset "$v"; done
	export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
	export AWS_CONFIG_FILE=$WORK/aws-config AWS_SHARED_CREDENTIALS_FILE=$WORK/aws-credentials
	export AWS_EC2_METADATA_DISABLED=true AWS_PAGER="" AWS_MAX_ATTEMPTS=1
	: >"$AWS_CONFIG_FILE"
}

# e2e_cli_version CMD: prints the "aws-cli/X.Y.Z ..." line of CMD --version.
e2e_cli_version() { timeout 30 "$1" --version 2>&1 | head -n 1; }

# e2e_cli_flags VERSION-LINE: prints the flags every call gets: --output json,
# and --no-cli-pager from CLI v2 on (v1 has neither pager nor flag).
e2e_cli_flags() {
	if [[ $1 == aws-cli/1.* ]]; then echo --output json; else echo --output json --no-cli-pager; fi
}

# e2e_cli_step [INSTALLER]: the step "find the AWS CLI". AWS is $AWS_CLI
# (which must be a command), else /usr/bin/aws, else aws on PATH, else what
# the function INSTALLER installs (it sets AWS, or returns 1). Sets AWS_VER
# (its version line, which must be aws-cli/...) and AWS_FLAGS.
# shellcheck disable=SC2120 # the installer is optional
e2e_cli_step() {
	STEP="find the AWS CLI"
	if [[ -n ${AWS_CLI:-} ]]; then
		AWS=$(command -v "$AWS_CLI") || fail "AWS_CLI=$AWS_CLI to be a command" "not found"
	elif [[ -x /usr/bin/aws ]]; then
		AWS=/usr/bin/aws
	elif command -v aws >/dev/null 2>&1; then
		AWS=$(command -v aws)
	elif [[ -z ${1:-} ]]; then
		fail "an AWS CLI (run .ci/e2e-backup.sh first, which installs one)" "none"
	else
		"$1" || fail "an AWS CLI (\$AWS_CLI, /usr/bin/aws or aws on PATH)" "none, and it could not be installed"
	fi
	AWS_VER=$(e2e_cli_version "$AWS") || true
	[[ $AWS_VER == aws-cli/* ]] || fail "'$AWS --version' to print aws-cli/..." "$AWS_VER"
	read -r -a AWS_FLAGS <<<"$(e2e_cli_flags "$AWS_VER")"
	ok "$AWS: $AWS_VER"
}

# e2e_aws SERVICE OP ARGS...: aws SERVICE OP against the emulator must
# succeed (30 s at most); its reply goes to OUT.
e2e_aws() {
	local rc=0
	OUT=$(timeout 30 "$AWS" "$@" --endpoint-url "$ENDPOINT" "${AWS_FLAGS[@]}" 2>"$WORK/err") || rc=$?
	[[ $rc -eq 0 ]] || fail "aws $* to succeed" "exit $rc: $(tail -n 5 "$WORK/err")"
}

# e2e_aws_err CODE SERVICE OP ARGS...: aws SERVICE OP must fail with error
# CODE; the reply goes to OUT, the CLI's message to ERR.
e2e_aws_err() {
	local code=$1 rc=0
	shift
	OUT=$(timeout 30 "$AWS" "$@" --endpoint-url "$ENDPOINT" "${AWS_FLAGS[@]}" 2>"$WORK/err") || rc=$?
	ERR=$(<"$WORK/err")
	[[ $rc -ne 0 && $ERR == *"($code)"* ]] || fail "aws $* to fail with ($code)" "exit $rc: $ERR $OUT"
}

# q EXPR: evaluates a python expression on the last reply (d, from OUT) and
# prints it (strings bare, anything else as JSON).
q() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read() or "null"); v=eval(sys.argv[1]); print(v if isinstance(v,str) else json.dumps(v))' "$1" <<<"$OUT"; }

# check DESCRIPTION EXPR: EXPR must be true on the last reply.
check() { [[ $(q "bool($2)") == true ]] || fail "$1 [$2]" "$OUT"; }

# e2e_free_port: prints a loopback port that was free a moment ago.
e2e_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# e2e_http_status URL: prints the HTTP status of a GET of URL (5 s at most),
# or "no answer (...)".
e2e_http_status() {
	python3 - "$1" <<'EOF' || true
import sys, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
        print(r.status)
except Exception as e:
    print(getattr(e, "code", None) or "no answer (%s)" % getattr(e, "reason", e))
EOF
}

# e2e_start_emulator [VAR=VALUE...]: starts BIN in memory on a free loopback
# port, with the given extra environment, logging to EMU_LOG; waits (10 s at
# most) for its "msg=listening addr=127.0.0.1:PORT" line, then for
# /_emulator/health to answer 200. Sets EMU_PID, PORT and ENDPOINT. Another
# process may take the port between the pick and the bind, so a failed bind
# picks again (5 tries).
# shellcheck disable=SC2120 # the extra environment is optional
e2e_start_emulator() {
	local try port st code listening
	for try in 1 2 3 4 5; do
		port=$(e2e_free_port)
		if [[ $try -eq 1 && -n ${E2E_FIRST_PORT:-} ]]; then port=$E2E_FIRST_PORT; fi
		listening="msg=listening addr=127.0.0.1:$port "
		: >"$EMU_LOG"
		env EMULATOR_HOST=127.0.0.1 EMULATOR_PORT="$port" EMULATOR_STATE=memory "$@" "$BIN" >>"$EMU_LOG" 2>&1 &
		EMU_PID=$!
		for _ in $(seq 100); do
			grep -q "$listening" "$EMU_LOG" && break
			kill -0 "$EMU_PID" 2>/dev/null || break
			sleep 0.1
		done
		if grep -q "$listening" "$EMU_LOG"; then
			PORT=$port
			ENDPOINT=http://127.0.0.1:$PORT
			code=$(e2e_http_status "$ENDPOINT/_emulator/health")
			[[ $code == 200 ]] || fail "GET $ENDPOINT/_emulator/health to answer 200" "$code"
			return 0
		fi
		if kill -0 "$EMU_PID" 2>/dev/null; then
			fail "a '${listening% }' line in the log within 10 s" "$(tail -n 20 "$EMU_LOG")"
		fi
		st=0
		wait "$EMU_PID" || st=$?
		EMU_PID=''
		if grep -q "address already in use" "$EMU_LOG"; then
			echo "port $port was taken; trying another (try $try)"
			continue
		fi
		fail "the emulator to start on 127.0.0.1:$port" "exit status $st: $(tail -n 20 "$EMU_LOG")"
	done
	fail "a free port within 5 tries" "every port picked was taken"
}

# e2e_stop_emulator: sends the emulator SIGTERM; it must exit 0 within 10 s.
e2e_stop_emulator() {
	local st=0
	kill -TERM "$EMU_PID" 2>/dev/null || fail "the emulator to be running before SIGTERM" "it had exited"
	for _ in $(seq 100); do kill -0 "$EMU_PID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$EMU_PID" 2>/dev/null; then
		fail "the emulator to exit within 10 s of SIGTERM" "still running"
	fi
	wait "$EMU_PID" || st=$?
	EMU_PID=''
	[[ $st -eq 0 ]] || fail "exit status 0 after SIGTERM" "exit status $st"
}
