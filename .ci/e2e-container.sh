#!/usr/bin/env bash
# End-to-end check of the container image, with no Docker daemon and no
# network: buildah builds the image from the Containerfile and runs it with
# chroot isolation on the host's network.
#
#   .ci/e2e-container.sh
#
# Steps, each printing "ok  <step>":
#   1. build the image (.ci/build-image.sh, tag cloudemu/emulator:e2e-PID);
#   2. run it in persistent mode with a data volume, EMULATOR_PORT on a free
#      port and init hooks mounted: boot.d records the uid it ran as, ready.d
#      creates a Backup vault through cloudlocal, shutdown.d leaves a mark;
#   3. wait (60 s at most) for the compose-style health check
#      curl -sf localhost:$PORT/_localstack/init/ready | grep -q '"completed": true,'
#   4. check the hook's script is SUCCESSFUL, the vault exists (the host's AWS
#      CLI), /_emulator/health answers, and the image's own HEALTHCHECK
#      command and the compose one (busybox wget) succeed inside it;
#   5. stop it with SIGTERM (20 s at most): exit 0, SHUTDOWN hook ran;
#   6. run a second container on the same volume: the vault is still there.
# Every failure prints the container's log and exits non-zero; the
# containers, the image and the temporary files are removed on every exit.
#
# The image has no AWS CLI (docs/container.md explains why), so the hook gets the
# host's: Debian's awscli is a Python program, and mounting the host's
# /usr/bin, /usr/lib and the loader's directories read-only at the same
# paths lets it run unchanged (the image's own tools are in /usr/local/bin
# and /bin, which those mounts do not cover).
#
# Needs: buildah and busybox-static (apt-get), the AWS CLI at /usr/bin/aws,
# curl, python3. Knobs: E2E_IMAGE (tag to build and run), E2E_KEEP_IMAGE=1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# A tag of its own, so that concurrent runs do not remove each other's image.
IMAGE=${E2E_IMAGE:-cloudemu/emulator:e2e-$$}
BUILDAH=(buildah --storage-driver vfs)
AWS=/usr/bin/aws
VAULT=container-e2e

WORK=$(mktemp -d "${TMPDIR:-/tmp}/e2e-container.XXXXXX")
LOG=$WORK/container.log
CTRS=() # working containers, removed on exit
RUN_PID=
STEP=setup
BUILT=

dump_log() {
	echo "---- container log ($LOG) ----"
	if [[ -s $LOG ]]; then tail -n 200 "$LOG"; else echo "(empty)"; fi
	echo "---- end of container log ----"
}

fail() {
	echo "FAIL  $STEP: $*"
	exit 1
}

ok() { echo "ok  $STEP${1:+ ($1)}"; }

# emulator_pid prints the pid of the emulator under `buildah run` (chroot
# isolation shares the host's pid namespace). buildah itself answers SIGTERM
# by killing its child outright, so the graceful stop must signal the
# emulator.
emulator_pid() {
	local queue=("$1") p
	while ((${#queue[@]})); do
		p=${queue[0]}
		queue=("${queue[@]:1}")
		if [[ $(cat "/proc/$p/comm" 2>/dev/null) == emulator ]]; then
			echo "$p"
			return 0
		fi
		# shellcheck disable=SC2207
		queue+=($(ps -o pid= --ppid "$p" 2>/dev/null || true))
	done
	return 1
}

# stop_container sends SIGTERM to the emulator and waits up to $1 seconds for
# `buildah run` to end; it sets RUN_RC.
RUN_RC=
stop_container() {
	local limit=$1 epid
	epid=$(emulator_pid "$RUN_PID") || fail "no emulator process under buildah run (pid $RUN_PID)"
	kill -TERM "$epid"
	for _ in $(seq $((limit * 10))); do
		kill -0 "$RUN_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$RUN_PID" 2>/dev/null; then
		fail "the container did not stop within $limit s of SIGTERM"
	fi
	RUN_RC=0
	wait "$RUN_PID" || RUN_RC=$?
	RUN_PID=
}

cleanup() {
	local rc=$?
	trap - EXIT
	set +e
	if ((rc != 0)); then dump_log; fi
	if [[ -n $RUN_PID ]] && kill -0 "$RUN_PID" 2>/dev/null; then
		epid=$(emulator_pid "$RUN_PID") && kill -TERM "$epid"
		for _ in $(seq 50); do kill -0 "$RUN_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$RUN_PID" 2>/dev/null
		wait "$RUN_PID" 2>/dev/null
	fi
	for c in "${CTRS[@]}"; do "${BUILDAH[@]}" rm "$c" >/dev/null 2>&1; done
	if [[ -n $BUILT && ${E2E_KEEP_IMAGE:-} != 1 ]]; then
		"${BUILDAH[@]}" rmi "$IMAGE" >/dev/null 2>&1
	fi
	rm -rf "$WORK"
	exit "$rc"
}
trap cleanup EXIT

for tool in buildah curl python3; do
	command -v "$tool" >/dev/null || fail "no $tool on PATH"
done
[[ -x $AWS ]] || fail "no AWS CLI at $AWS (apt-get install awscli)"
# The host's CLI, against a plain-http endpoint: no CA bundle involved.
unset AWS_CA_BUNDLE AWS_PROFILE
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1 AWS_PAGER=

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# ---- 1. build ----
STEP="build image $IMAGE"
T0=$SECONDS
BUILT=1
bash "$ROOT/.ci/build-image.sh" "$IMAGE" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; fail "build-image.sh failed"; }
ok "$((SECONDS - T0)) s"

# ---- 2. hooks and start ----
STEP="start container"
mkdir -p "$WORK/init/boot.d" "$WORK/init/ready.d" "$WORK/init/shutdown.d" "$WORK/out" "$WORK/data"
cat >"$WORK/init/boot.d/10-whoami.sh" <<'EOF'
#!/bin/sh
id -u >/out/boot-uid
EOF
cat >"$WORK/init/ready.d/10-create-vault.sh" <<EOF
#!/bin/sh
set -e
echo "creating vault $VAULT through \$AWS_ENDPOINT_URL"
cloudlocal backup create-backup-vault --backup-vault-name $VAULT --backup-vault-tags origin=ready-hook
EOF
cat >"$WORK/init/shutdown.d/10-mark.sh" <<'EOF'
#!/bin/sh
echo shutdown >/out/shutdown-ran
EOF
chmod +x "$WORK"/init/*/*.sh

PORT=$(free_port)
# buildah 1.28's `run` also mounts an anonymous volume for the image's
# VOLUME, in no fixed order with the -v bind on the same path: about one run
# in three the state went there instead of the bind. Dropping the VOLUME from
# the working container (the image keeps it) leaves only the bind.
new_container() {
	CTR=$("${BUILDAH[@]}" from --pull-never --name "$1" "$IMAGE")
	CTRS+=("$CTR")
	"${BUILDAH[@]}" config --volume /var/lib/emulator- "$CTR"
}
new_container "e2e-container-$$"
AWS_MOUNTS=(-v /usr/bin:/usr/bin:ro -v /usr/lib:/usr/lib:ro -v /usr/lib:/lib:ro -v /usr/lib64:/lib64:ro)
# Each stage directory is mounted on its own: the image's init tree stays.
"${BUILDAH[@]}" run --isolation chroot --network host \
	-e EMULATOR_PORT="$PORT" -e EMULATOR_STATE=persistent \
	-v "$WORK/data:/var/lib/emulator" -v "$WORK/out:/out" \
	-v "$WORK/init/boot.d:/etc/emulator/init/boot.d:ro" \
	-v "$WORK/init/ready.d:/etc/emulator/init/ready.d:ro" \
	-v "$WORK/init/shutdown.d:/etc/emulator/init/shutdown.d:ro" \
	"${AWS_MOUNTS[@]}" \
	"$CTR" /usr/local/bin/emulator >"$LOG" 2>&1 &
RUN_PID=$!
ok "port $PORT"

# ---- 3. the compose health check ----
STEP="wait for /_localstack/init/ready \"completed\": true,"
T0=$SECONDS
until curl -sf "localhost:$PORT/_localstack/init/ready" | grep -q '"completed": true,'; do
	kill -0 "$RUN_PID" 2>/dev/null || fail "the container exited before READY completed"
	((SECONDS - T0 < 60)) || fail "READY not completed after 60 s: $(curl -s "localhost:$PORT/_localstack/init/ready")"
	sleep 0.5
done
ok "$((SECONDS - T0)) s"

# ---- 4. checks ----
STEP="ready hook SUCCESSFUL"
STATUS=$(curl -sf "localhost:$PORT/_emulator/init/ready") || fail "GET /_emulator/init/ready failed"
python3 - "$STATUS" <<'EOF' || fail "status: $STATUS"
import json, sys
doc = json.loads(sys.argv[1])
scripts = [s for s in doc["scripts"] if s["name"].endswith("10-create-vault.sh")]
assert len(scripts) == 1 and scripts[0]["state"] == "SUCCESSFUL", scripts
EOF
ok

STEP="boot hook ran as root"
[[ $(cat "$WORK/out/boot-uid" 2>/dev/null) == 0 ]] || fail "boot-uid: $(cat "$WORK/out/boot-uid" 2>/dev/null || echo missing)"
ok

STEP="vault created by the hook"
OUT=$("$AWS" --endpoint-url "http://127.0.0.1:$PORT" backup describe-backup-vault --backup-vault-name "$VAULT" --output json 2>&1) ||
	fail "describe-backup-vault: $OUT"
grep -q "\"BackupVaultName\": \"$VAULT\"" <<<"$OUT" || fail "describe-backup-vault: $OUT"
ok

STEP="/_emulator/health"
curl -sf -o /dev/null "localhost:$PORT/_emulator/health" || fail "GET /_emulator/health: $(curl -s -w ' (%{http_code})' "localhost:$PORT/_emulator/health")"
ok

# The image's HEALTHCHECK and the compose check of docs/container.md, with the image's
# busybox, in the running container.
STEP="health checks inside the container"
# shellcheck disable=SC2016
CHECKS='set -e
/bin/wget -q -O /dev/null "http://127.0.0.1:${EMULATOR_PORT:-4566}/_emulator/health"
/bin/wget -q -O - "http://127.0.0.1:${EMULATOR_PORT:-4566}/_localstack/init/ready" | /bin/grep -q "\"completed\": true,"'
timeout 30 "${BUILDAH[@]}" run --isolation chroot --network host -e EMULATOR_PORT="$PORT" "$CTR" /bin/sh -c "$CHECKS" >"$WORK/check.log" 2>&1 ||
	fail "$(cat "$WORK/check.log")"
ok

# ---- 5. stop ----
STEP="SIGTERM stops the container"
stop_container 20
((RUN_RC == 0)) || fail "buildah run exited $RUN_RC"
[[ -s $WORK/out/shutdown-ran ]] || fail "the SHUTDOWN hook left no mark"
ok "shutdown hook ran"

# ---- 6. state on the volume ----
STEP="persistent state on the volume"
[[ -s $WORK/data/emulator.db ]] || fail "no emulator.db in the data volume"
# A new container from the image: only the volume carries the state.
PORT=$(free_port)
new_container "e2e-container-$$-2"
: >"$LOG"
"${BUILDAH[@]}" run --isolation chroot --network host \
	-e EMULATOR_PORT="$PORT" -e EMULATOR_STATE=persistent -v "$WORK/data:/var/lib/emulator" \
	"$CTR" /usr/local/bin/emulator >"$LOG" 2>&1 &
RUN_PID=$!
T0=$SECONDS
until curl -sf -o /dev/null "localhost:$PORT/_emulator/health"; do
	kill -0 "$RUN_PID" 2>/dev/null || fail "the second container exited"
	((SECONDS - T0 < 30)) || fail "the second container did not answer within 30 s"
	sleep 0.2
done
OUT=$("$AWS" --endpoint-url "http://127.0.0.1:$PORT" backup describe-backup-vault --backup-vault-name "$VAULT" --output json 2>&1) ||
	fail "describe-backup-vault after restart: $OUT"
stop_container 20
((RUN_RC == 0)) || fail "second buildah run exited $RUN_RC"
ok "vault kept across containers"

echo "e2e-container: all steps passed"
