#!/usr/bin/env bash
# End-to-end check of the AWS Backup service through the AWS CLI.
#
#   .ci/e2e-backup.sh PATH-TO-EMULATOR-BINARY
#
# Starts the emulator on a free loopback port, drives every one of the 18
# Backup operations of docs/backup.md with the AWS CLI, checks the replies, and
# stops the emulator (SIGTERM, which must exit 0). Prints "ok  <step>" per step;
# on a failure prints what was expected and what came back, the emulator's
# log, and exits non-zero.
#
# Which CLI: $AWS_CLI if set, else /usr/bin/aws, else `aws` on PATH; if there
# is none, Debian's awscli is installed (root with apt-get only).
#
# The access-point operations are newer than the CLI's bundled models. Their
# models come from awswire/models/botocore in the repository (via
# AWS_DATA_PATH; E2E_AWS_MODELS overrides the folder). They are run with the
# first of: the chosen CLI, another AWS CLI on the machine, python3's botocore
# that knows them (E2E_AP_CLIENT=cli|botocore forces one); if none does, only
# those six operations are skipped, with a SKIP line.
#
# Input members newer than the CLI's model (ListBackupVaults ByShared and
# ByVaultType, GetBackupPlan MaxScheduledRunsPreview: Debian's awscli 2.9.19
# lacks them without the models above) are then sent as plain HTTP instead,
# and reply members such a CLI drops (VaultType, VaultState) are checked on
# the HTTP body read off the CLI's --debug log.
#
# Test knobs: E2E_AWS_MODELS, E2E_AP_CLIENT, E2E_FIRST_PORT (try this port
# first, to exercise the retry when a port is taken).
set -euo pipefail

# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init e2e-backup required "$@"
MODELS=${E2E_AWS_MODELS:-$E2E_ROOT/awswire/models/botocore}
SKIPPED=0

# ---- JSON checks (python3; jq may be absent) ----

cat >"$WORK/jcheck.py" <<'EOF'
# jcheck.py MODE EXPR: reads one JSON document (or nothing) on stdin as d;
# E is os.environ. MODE "check" exits 1 unless EXPR is true; "get" prints
# EXPR (strings bare, anything else as JSON).
import json, os, sys
mode, expr = sys.argv[1], sys.argv[2]
raw = sys.stdin.read()
try:
    d = json.loads(raw) if raw.strip() else None
except ValueError as e:
    print("not JSON (%s): %r" % (e, raw[:2000]))
    sys.exit(1)
E = os.environ
try:
    v = eval(expr, {"d": d, "E": E, "json": json})
except Exception as e:
    print("%s: %s; reply: %s" % (type(e).__name__, e, json.dumps(d, sort_keys=True)))
    sys.exit(1)
if mode == "get":
    print(v if isinstance(v, str) else json.dumps(v))
elif not v:
    print(json.dumps(d, sort_keys=True))
    sys.exit(1)
EOF

# jcheck DESCRIPTION EXPR: EXPR must hold on the last reply ($OUT).
jcheck() {
	local got
	if ! got=$(python3 "$WORK/jcheck.py" check "$2" <<<"$OUT" 2>&1); then
		fail "$1   [python: $2]" "$got"
	fi
}

# jcheck_raw DESCRIPTION EXPR: EXPR must hold on the raw HTTP body ($RAW).
jcheck_raw() {
	local got
	if ! got=$(python3 "$WORK/jcheck.py" check "$2" <<<"$RAW" 2>&1); then
		fail "$1   [python, on the HTTP body: $2]" "$got"
	fi
}

# jget EXPR: prints EXPR evaluated on the last reply.
jget() {
	local got
	got=$(python3 "$WORK/jcheck.py" get "$1" <<<"$OUT" 2>&1) || fail "a value for $1" "$got"
	printf '%s\n' "$got"
}

# ---- the CLI ----

e2e_aws_env
# Up to two attempts per call, with the standard retry mode.
export AWS_RETRY_MODE=standard AWS_MAX_ATTEMPTS=2

# install_awscli: as root with apt-get, installs Debian's awscli (10 min at
# most for each apt-get) and sets AWS to it.
install_awscli() {
	if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
		echo "e2e-backup: no AWS CLI: set AWS_CLI, or install one (as root: apt-get install -y awscli)" >&2
		return 1
	fi
	echo "e2e-backup: no AWS CLI found; installing Debian's awscli" >&2
	local t0=$SECONDS
	DEBIAN_FRONTEND=noninteractive timeout 600 apt-get update -qq >"$WORK/apt.log" 2>&1 || true
	if ! DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq awscli >>"$WORK/apt.log" 2>&1; then
		tail -n 30 "$WORK/apt.log" >&2
		echo "e2e-backup: apt-get install -y awscli failed" >&2
		return 1
	fi
	echo "e2e-backup: installed awscli in $((SECONDS - t0)) s" >&2
	[[ -x /usr/bin/aws ]] || return 1
	AWS=/usr/bin/aws
}

e2e_cli_step install_awscli

# ---- the emulator ----

STEP="start the emulator"
e2e_start_emulator EMULATOR_LOG_LEVEL=debug
ok "$ENDPOINT, pid $EMU_PID"

# ---- calling the CLI ----

declare -A EXERCISED=()
OUT="" ERR="" RC=0

cat >"$WORK/debuglog.py" <<'EOF'
# debuglog.py status|body: reads a CLI --debug log on stdin; prints the HTTP
# status of the last response, or the raw body of the last response.
import ast, re, sys
lines = sys.stdin.read().splitlines()
if sys.argv[1] == "status":
    st = re.findall(r'HTTP/1\.1" (\d{3})', "\n".join(lines))
    print(st[-1] if st else "")
else:
    body = ""
    for i, l in enumerate(lines[:-1]):
        if l.endswith("Response body:"):
            try:
                body = ast.literal_eval(lines[i + 1]).decode("utf-8")
            except Exception:
                body = lines[i + 1]
    print(body)
EOF

# call CMD ARGS...: runs one bounded CLI call; sets OUT, RC and ERR (stderr
# less the lines of a --debug log, which stays in $WORK/err).
call() {
	RC=0
	timeout 30 "$@" >"$WORK/out" 2>"$WORK/err" || RC=$?
	OUT=$(<"$WORK/out")
	ERR=$(grep -vE '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:,]+ - ' "$WORK/err" | grep -vE "^b'|^\{|^\[|^ *$" | tail -n 20 || true)
	if [[ $RC -eq 124 ]]; then
		fail "a reply within 30 s from: ${*:1:4}" "timed out"
	fi
}

# debug_reply: reads STATUS and RAW (the HTTP status and body) off the last
# call's --debug log.
debug_reply() {
	STATUS=$(python3 "$WORK/debuglog.py" status <"$WORK/err")
	RAW=$(python3 "$WORK/debuglog.py" body <"$WORK/err")
}

op_name() { sed -E 's/([a-z])([A-Z])/\1-\2/g' <<<"$1" | tr '[:upper:]' '[:lower:]'; }

# aws_ok OPERATION ARGS...: aws backup <operation> must succeed.
aws_ok() {
	local op=$1; shift
	call "$AWS" backup "$(op_name "$op")" "$@" --endpoint-url "$ENDPOINT" "${AWS_FLAGS[@]}"
	[[ $RC -eq 0 ]] || fail "aws backup $(op_name "$op") $* to exit 0" "exit $RC; stderr: $ERR; stdout: $OUT"
	EXERCISED[$op]=1
}

# cli_knows OPERATION MEMBER: the CLI's model has MEMBER in the input of
# OPERATION (older bundled models lack some; the CLI then refuses the option).
cli_knows() {
	timeout 30 "$AWS" backup "$(op_name "$1")" --generate-cli-skeleton 2>/dev/null |
		python3 -c 'import json, sys; sys.exit(0 if sys.argv[1] in json.load(sys.stdin) else 1)' "$2"
}

# http_ok METHOD PATH: a plain HTTP request to the emulator, for an input
# member the CLI cannot send; sets OUT (the body), RAW (the same) and STATUS.
http_ok() {
	RC=0
	timeout 30 python3 - "$1" "$ENDPOINT$2" >"$WORK/out" 2>"$WORK/err" <<'EOF' || RC=$?
import sys, urllib.request, urllib.error
req = urllib.request.Request(sys.argv[2], method=sys.argv[1])
try:
    with urllib.request.urlopen(req, timeout=20) as r:
        status, body = r.status, r.read()
except urllib.error.HTTPError as e:
    status, body = e.code, e.read()
print(status, file=sys.stderr)
sys.stdout.write(body.decode("utf-8"))
EOF
	OUT=$(<"$WORK/out") RAW=$OUT STATUS=$(tail -n 1 "$WORK/err")
	[[ $RC -eq 0 && $STATUS == 200 ]] || fail "$1 $2 to answer 200" "exit $RC, status $STATUS: $OUT"
}

# aws_ok_raw OPERATION ARGS...: aws_ok with --debug, then debug_reply: for
# members that the CLI's own model may not know yet (it drops them).
aws_ok_raw() {
	aws_ok "$@" --debug
	debug_reply
}

# aws_err CODE OPERATION ARGS...: aws backup <operation> must fail with CODE.
aws_err() {
	local code=$1 op=$2; shift 2
	call "$AWS" backup "$(op_name "$op")" "$@" --endpoint-url "$ENDPOINT" "${AWS_FLAGS[@]}"
	want_error "$code" "aws backup $(op_name "$op") $*"
	EXERCISED[$op]=1
}

want_error() {
	if [[ $RC -eq 0 ]]; then
		fail "$2 to fail with $1 (non-zero exit)" "exit 0; stdout: $OUT"
	fi
	if ! grep -q "An error occurred ($1)" <<<"$ERR"; then
		fail "$2 to fail with 'An error occurred ($1) ...'" "exit $RC; stderr: $ERR"
	fi
}

# ---- access-point client ----

# The six access-point operations are called with their input as JSON
# (--cli-input-json for a CLI), so the CLI and botocore paths take the same
# arguments.
AP_OPS=(CreateBackupAccessPoint DescribeBackupAccessPoint ListBackupAccessPoints
	ListBackupAccessPointsByRecoveryPoint ListBackupAccessPointsByResource DeleteBackupAccessPoint)
AP_CLIENT="" AP_CLI="" AP_FLAGS=()

if [[ -d $MODELS/backup ]]; then
	export AWS_DATA_PATH=$MODELS${AWS_DATA_PATH:+:$AWS_DATA_PATH}
	MODELS_NOTE="models from $MODELS"
else
	MODELS_NOTE="no models at $MODELS"
fi

cli_has_ap() {
	timeout 30 "$1" backup list-backup-access-points --generate-cli-skeleton >/dev/null 2>&1
}

botocore_has_ap() {
	timeout 30 python3 -c '
import botocore.session
botocore.session.get_session().get_service_model("backup").operation_model("CreateBackupAccessPoint")
' >/dev/null 2>&1
}

choose_ap_client() {
	local want=${E2E_AP_CLIENT:-any} c seen=" " real
	if [[ $want == any || $want == cli ]]; then
		for c in "$AWS" ${AWS_CLI:+"$AWS_CLI"} /usr/bin/aws "$(command -v aws || true)"; do
			[[ -n $c && -x $(command -v "$c" || true) ]] || continue
			real=$(readlink -f "$(command -v "$c")")
			[[ $seen == *" $real "* ]] && continue
			seen+="$real "
			if cli_has_ap "$c"; then
				AP_CLIENT=cli AP_CLI=$c
				read -r -a AP_FLAGS <<<"$(e2e_cli_flags "$(e2e_cli_version "$c")")"
				return 0
			fi
		done
	fi
	if [[ $want == any || $want == botocore ]] && botocore_has_ap; then
		AP_CLIENT=botocore
		return 0
	fi
	return 1
}

cat >"$WORK/ap.py" <<'EOF'
# ap.py OPERATION JSON ENDPOINT: one Backup call through botocore, printed
# like the CLI prints it (JSON on stdout; "An error occurred (Code) ..." on
# stderr with exit 254), plus "HTTP_STATUS n" on stderr.
import json, sys, datetime
import botocore.session
from botocore.exceptions import ClientError
from botocore import xform_name
op, params, endpoint = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
client = botocore.session.get_session().create_client("backup", endpoint_url=endpoint)
try:
    r = getattr(client, xform_name(op))(**params)
except ClientError as e:
    err = e.response.get("Error", {})
    print("HTTP_STATUS %s" % e.response.get("ResponseMetadata", {}).get("HTTPStatusCode"), file=sys.stderr)
    print("\nAn error occurred (%s) when calling the %s operation: %s" % (err.get("Code"), op, err.get("Message")), file=sys.stderr)
    sys.exit(254)
meta = r.pop("ResponseMetadata", {})
print("HTTP_STATUS %s" % meta.get("HTTPStatusCode"), file=sys.stderr)
def enc(o):
    return o.isoformat() if isinstance(o, datetime.datetime) else str(o)
if r:
    print(json.dumps(r, indent=4, default=enc))
EOF

# ap_call OPERATION JSON: one access-point call, with the HTTP status in
# STATUS (from the CLI's --debug log, or from botocore).
ap_call() {
	local op=$1 input=$2
	if [[ $AP_CLIENT == cli ]]; then
		call "$AP_CLI" backup "$(op_name "$op")" --cli-input-json "$input" --debug \
			--endpoint-url "$ENDPOINT" "${AP_FLAGS[@]}"
		debug_reply
	else
		call python3 "$WORK/ap.py" "$op" "$input" "$ENDPOINT"
		STATUS=$(grep -oE '^HTTP_STATUS [0-9]+' <<<"$ERR" | grep -oE '[0-9]+$' || true)
	fi
	EXERCISED[$op]=1
}

ap_ok() {
	ap_call "$1" "$2"
	[[ $RC -eq 0 ]] || fail "$1 $2 to succeed" "exit $RC; status ${STATUS:-?}; stderr: $ERR; stdout: $OUT"
	if [[ -n ${3:-} && $STATUS != "$3" ]]; then
		fail "$1 to answer HTTP $3" "HTTP ${STATUS:-<none seen>}"
	fi
}

ap_err() {
	ap_call "$2" "$3"
	want_error "$1" "$2 $3"
}

# =====================================================================
# The steps
# =====================================================================

ACCOUNT=000000000000
REGION=us-east-1
VAULT=e2e-vault
export VAULT_ARN="arn:aws:backup:$REGION:$ACCOUNT:backup-vault:$VAULT"

STEP="bad input: create-backup-vault with an invalid name"
aws_err InvalidParameterValueException CreateBackupVault --backup-vault-name 'bad@name!'
ok "exit $RC"

STEP="create-backup-vault with tags"
aws_ok CreateBackupVault --backup-vault-name "$VAULT" --backup-vault-tags team=infra,env=ci
jcheck "BackupVaultName $VAULT and BackupVaultArn $VAULT_ARN" \
	'd["BackupVaultName"] == "'$VAULT'" and d["BackupVaultArn"] == E["VAULT_ARN"]'
jcheck "a CreationDate" '"CreationDate" in d'
ok

STEP="create-backup-vault again: AlreadyExistsException"
aws_err AlreadyExistsException CreateBackupVault --backup-vault-name "$VAULT"
ok

# VaultType and VaultState are newer than some CLIs' bundled models, which
# then drop them from the output: they are checked on the HTTP body as well.
STEP="describe-backup-vault"
aws_ok_raw DescribeBackupVault --backup-vault-name "$VAULT"
jcheck "Locked false (present)" 'd.get("Locked") is False'
jcheck "VaultType BACKUP_VAULT, VaultState AVAILABLE (where the CLI's model has them)" \
	'd.get("VaultType", "BACKUP_VAULT") == "BACKUP_VAULT" and d.get("VaultState", "AVAILABLE") == "AVAILABLE"'
jcheck_raw "VaultType BACKUP_VAULT, VaultState AVAILABLE, Locked false" \
	'd.get("VaultType") == "BACKUP_VAULT" and d.get("VaultState") == "AVAILABLE" and d.get("Locked") is False'
jcheck "the vault's name and ARN, no recovery point" \
	'd["BackupVaultName"] == "'$VAULT'" and d["BackupVaultArn"] == E["VAULT_ARN"] and d.get("NumberOfRecoveryPoints") == 0'
ok "HTTP $STATUS"

STEP="list-backup-vaults"
aws_ok_raw ListBackupVaults
jcheck "BackupVaultList to contain $VAULT_ARN" \
	'[v["BackupVaultArn"] for v in d["BackupVaultList"]] == [E["VAULT_ARN"]]'
jcheck "the listed vault to be Locked false (type BACKUP_VAULT where the CLI's model has it)" \
	'd["BackupVaultList"][0].get("Locked") is False and d["BackupVaultList"][0].get("VaultType", "BACKUP_VAULT") == "BACKUP_VAULT"'
jcheck_raw "the listed vault to be Locked false, type BACKUP_VAULT" \
	'd["BackupVaultList"][0].get("Locked") is False and d["BackupVaultList"][0].get("VaultType") == "BACKUP_VAULT"'
ok

STEP="list-backup-vaults --by-shared"
if cli_knows ListBackupVaults ByShared; then
	aws_ok ListBackupVaults --by-shared
	jcheck "no vault" 'd.get("BackupVaultList", []) == []'
	ok
else
	http_ok GET "/backup-vaults/?shared=true"
	jcheck "no vault" 'd.get("BackupVaultList", []) == []'
	ok "this CLI's model lacks ByShared: sent as plain HTTP GET /backup-vaults/?shared=true"
fi

STEP="list-backup-vaults --by-vault-type"
if cli_knows ListBackupVaults ByVaultType; then
	aws_ok ListBackupVaults --by-vault-type BACKUP_VAULT
	jcheck "BACKUP_VAULT lists the vault" '[v["BackupVaultName"] for v in d["BackupVaultList"]] == ["'$VAULT'"]'
	aws_ok ListBackupVaults --by-vault-type LOGICALLY_AIR_GAPPED_BACKUP_VAULT
	jcheck "LOGICALLY_AIR_GAPPED_BACKUP_VAULT lists none" 'd.get("BackupVaultList", []) == []'
	ok
else
	http_ok GET "/backup-vaults/?vaultType=BACKUP_VAULT"
	jcheck "BACKUP_VAULT lists the vault" '[v["BackupVaultName"] for v in d["BackupVaultList"]] == ["'$VAULT'"]'
	http_ok GET "/backup-vaults/?vaultType=LOGICALLY_AIR_GAPPED_BACKUP_VAULT"
	jcheck "LOGICALLY_AIR_GAPPED_BACKUP_VAULT lists none" 'd.get("BackupVaultList", []) == []'
	ok "this CLI's model lacks ByVaultType: sent as plain HTTP GET /backup-vaults/?vaultType=..."
fi

STEP="list-tags of the vault"
aws_ok ListTags --resource-arn "$VAULT_ARN"
jcheck "the creation tags {team: infra, env: ci}" 'd["Tags"] == {"team": "infra", "env": "ci"}'
ok

STEP="tag-resource"
aws_ok TagResource --resource-arn "$VAULT_ARN" --tags owner=qa,env=prod
[[ -z $OUT ]] || fail "an empty reply" "$OUT"
aws_ok ListTags --resource-arn "$VAULT_ARN"
jcheck "tags merged, env overwritten" 'd["Tags"] == {"team": "infra", "env": "prod", "owner": "qa"}'
ok

STEP="untag-resource"
aws_ok UntagResource --resource-arn "$VAULT_ARN" --tag-key-list team owner
[[ -z $OUT ]] || fail "an empty reply" "$OUT"
aws_ok ListTags --resource-arn "$VAULT_ARN"
jcheck "only env=prod left" 'd["Tags"] == {"env": "prod"}'
ok

PLAN_V1='{
  "BackupPlanName": "e2e-plan",
  "Rules": [{
    "RuleName": "daily",
    "TargetBackupVaultName": "'$VAULT'",
    "ScheduleExpression": "cron(0 12 * * ? *)",
    "StartWindowMinutes": 60,
    "CompletionWindowMinutes": 180,
    "Lifecycle": {"DeleteAfterDays": 35},
    "RecoveryPointTags": {"kind": "daily"}
  }],
  "AdvancedBackupSettings": [
    {"ResourceType": "EC2", "BackupOptions": {"WindowsVSS": "enabled"}}
  ]
}'
PLAN_V2='{
  "BackupPlanName": "e2e-plan",
  "Rules": [{
    "RuleName": "weekly",
    "TargetBackupVaultName": "'$VAULT'",
    "ScheduleExpression": "cron(0 3 ? * SUN *)",
    "Lifecycle": {"DeleteAfterDays": 90}
  }]
}'

STEP="create-backup-plan with AdvancedBackupSettings"
aws_ok CreateBackupPlan --backup-plan "$PLAN_V1" --backup-plan-tags owner=e2e
jcheck "BackupPlanId, BackupPlanArn, VersionId and CreationDate" \
	'all(d.get(k) for k in ("BackupPlanId", "BackupPlanArn", "VersionId", "CreationDate"))'
jcheck "no AdvancedBackupSettings in the reply (SPEC: dropped)" '"AdvancedBackupSettings" not in d'
export PLAN_ID PLAN_ARN V1
PLAN_ID=$(jget 'd["BackupPlanId"]')
PLAN_ARN=$(jget 'd["BackupPlanArn"]')
V1=$(jget 'd["VersionId"]')
jcheck "BackupPlanArn to name the plan id" \
	'd["BackupPlanArn"] == "arn:aws:backup:'$REGION:$ACCOUNT':backup-plan:" + E["PLAN_ID"]'
ok "id $PLAN_ID, version $V1"

STEP="get-backup-plan"
aws_ok GetBackupPlan --backup-plan-id "$PLAN_ID"
jcheck "the plan as created, at version V1" \
	'd["BackupPlanId"] == E["PLAN_ID"] and d["BackupPlanArn"] == E["PLAN_ARN"] and d["VersionId"] == E["V1"]'
jcheck "BackupPlan.BackupPlanName e2e-plan and its one rule" \
	'd["BackupPlan"]["BackupPlanName"] == "e2e-plan" and [r["RuleName"] for r in d["BackupPlan"]["Rules"]] == ["daily"]'
jcheck "the rule's settings kept" \
	'(lambda r: r["TargetBackupVaultName"] == "'$VAULT'" and r["ScheduleExpression"] == "cron(0 12 * * ? *)"
	  and r["StartWindowMinutes"] == 60 and r["CompletionWindowMinutes"] == 180
	  and r["Lifecycle"]["DeleteAfterDays"] == 35 and r["RecoveryPointTags"] == {"kind": "daily"}
	  and r.get("RuleId"))(d["BackupPlan"]["Rules"][0])'
jcheck "no AdvancedBackupSettings (dropped)" \
	'"AdvancedBackupSettings" not in d and "AdvancedBackupSettings" not in d["BackupPlan"]'
ok

STEP="list-tags of the plan"
aws_ok ListTags --resource-arn "$PLAN_ARN"
jcheck "the plan's tags {owner: e2e}" 'd["Tags"] == {"owner": "e2e"}'
ok

STEP="update-backup-plan"
aws_ok UpdateBackupPlan --backup-plan-id "$PLAN_ID" --backup-plan "$PLAN_V2"
export V2
V2=$(jget 'd["VersionId"]')
jcheck "the same plan with a new VersionId" \
	'd["BackupPlanId"] == E["PLAN_ID"] and d["BackupPlanArn"] == E["PLAN_ARN"] and d["VersionId"] and d["VersionId"] != E["V1"]'
ok "version $V1 -> $V2"

STEP="get-backup-plan after the update"
aws_ok GetBackupPlan --backup-plan-id "$PLAN_ID"
jcheck "VersionId V2 and the new rule" \
	'd["VersionId"] == E["V2"] and [r["RuleName"] for r in d["BackupPlan"]["Rules"]] == ["weekly"]'
aws_ok GetBackupPlan --backup-plan-id "$PLAN_ID" --version-id "$V2"
jcheck "--version-id V2 finds the current version" 'd["VersionId"] == E["V2"]'
if cli_knows GetBackupPlan MaxScheduledRunsPreview; then
	aws_ok GetBackupPlan --backup-plan-id "$PLAN_ID" --max-scheduled-runs-preview 3
	jcheck "no ScheduledRunsPreview (SPEC: yields none)" '"ScheduledRunsPreview" not in d'
	ok
else
	http_ok GET "/backup/plans/$PLAN_ID/?MaxScheduledRunsPreview=3"
	jcheck "no ScheduledRunsPreview (SPEC: yields none)" '"ScheduledRunsPreview" not in d and d["VersionId"] == E["V2"]'
	ok "this CLI's model lacks MaxScheduledRunsPreview: sent as plain HTTP"
fi

STEP="get-backup-plan --version-id OLD"
aws_err ResourceNotFoundException GetBackupPlan --backup-plan-id "$PLAN_ID" --version-id "$V1"
ok "exit $RC"

STEP="list-backup-plans"
aws_ok ListBackupPlans
jcheck "BackupPlansList to hold the plan at V2" \
	'[(p["BackupPlanId"], p["BackupPlanArn"], p["VersionId"], p["BackupPlanName"]) for p in d["BackupPlansList"]] == [(E["PLAN_ID"], E["PLAN_ARN"], E["V2"], "e2e-plan")]'
aws_ok ListBackupPlans --include-deleted
jcheck "--include-deleted to list the same plan" '[p["BackupPlanId"] for p in d["BackupPlansList"]] == [E["PLAN_ID"]]'
ok

STEP="delete-backup-plan"
aws_ok DeleteBackupPlan --backup-plan-id "$PLAN_ID"
jcheck "BackupPlanId, BackupPlanArn, VersionId V2 and a DeletionDate" \
	'd["BackupPlanId"] == E["PLAN_ID"] and d["BackupPlanArn"] == E["PLAN_ARN"] and d["VersionId"] == E["V2"] and d.get("DeletionDate")'
aws_ok ListBackupPlans
jcheck "no plan listed after the delete" 'd.get("BackupPlansList", []) == []'
ok

# ---- access points ----

STEP="access-point client"
if choose_ap_client; then
	case $AP_CLIENT in
	cli) ok "$AP_CLI ($(e2e_cli_version "$AP_CLI")), $MODELS_NOTE" ;;
	botocore) ok "python3 botocore $(python3 -c 'import botocore; print(botocore.__version__)'), $MODELS_NOTE" ;;
	esac
else
	AP_CLIENT=""
	echo "SKIP  the 6 access-point operations: no AWS CLI or python3 botocore here knows them"
	echo "      ($MODELS_NOTE; E2E_AWS_MODELS may name a botocore data folder holding backup/2018-11-15/service-2.json)"
	for op in "${AP_OPS[@]}"; do echo "SKIP  $op"; done
	SKIPPED=${#AP_OPS[@]}
fi

if [[ -n $AP_CLIENT ]]; then
	AP_NAME=e2e-ap
	export AP_ARN="arn:aws:backup:$REGION:$ACCOUNT:accesspoint/$AP_NAME"
	export RP_ARN="arn:aws:backup:$REGION:$ACCOUNT:recovery-point:e2e-rp-1"
	export AP_META='{"Owner": "team-a", "note": "spaces, commas = signs and \u00fcnicode", "Empty-ish": " "}'

	STEP="create-backup-access-point"
	ap_ok CreateBackupAccessPoint '{"Name": "'$AP_NAME'", "RecoveryPointArn": "'$RP_ARN'",
		"AccessPointMetadata": '"$AP_META"', "Tags": {"purpose": "e2e"},
		"AccessPointPolicy": "{\"Version\": \"2012-10-17\", \"Statement\": []}"}' 201
	jcheck "AccessPointArn $AP_ARN and Status AVAILABLE" \
		'd["AccessPointArn"] == E["AP_ARN"] and d["Status"] == "AVAILABLE"'
	ok "HTTP $STATUS"

	STEP="describe-backup-access-point"
	ap_ok DescribeBackupAccessPoint '{"AccessPointArn": "'$AP_ARN'"}' 200
	jcheck "AccessPointMetadata exactly as sent" 'd["AccessPointMetadata"] == json.loads(E["AP_META"])'
	jcheck "Name, RecoveryPointArn, Status AVAILABLE, CreationTime" \
		'd["AccessPointArn"] == E["AP_ARN"] and d["Name"] == "'$AP_NAME'" and d["RecoveryPointArn"] == E["RP_ARN"] and d["Status"] == "AVAILABLE" and d.get("CreationTime")'
	ok

	STEP="list-backup-access-points"
	ap_ok ListBackupAccessPoints '{}' 200
	jcheck "the access point listed, metadata verbatim" \
		'[(a["AccessPointArn"], a.get("AccessPointMetadata")) for a in d["BackupAccessPoints"]] == [(E["AP_ARN"], json.loads(E["AP_META"]))]'
	ok

	STEP="list-backup-access-points-by-recovery-point"
	ap_ok ListBackupAccessPointsByRecoveryPoint '{"RecoveryPointArn": "'$RP_ARN'"}' 200
	jcheck "the access point created against $RP_ARN" \
		'[a["AccessPointArn"] for a in d["BackupAccessPoints"]] == [E["AP_ARN"]]'
	ap_ok ListBackupAccessPointsByRecoveryPoint \
		'{"RecoveryPointArn": "arn:aws:backup:'$REGION:$ACCOUNT':recovery-point:other"}' 200
	jcheck "none for another recovery point" 'd.get("BackupAccessPoints", []) == []'
	ok

	STEP="list-backup-access-points-by-resource"
	ap_ok ListBackupAccessPointsByResource \
		'{"ResourceArn": "arn:aws:ec2:'$REGION:$ACCOUNT':volume/vol-0123456789abcdef0"}' 200
	jcheck "an empty list" 'd.get("BackupAccessPoints", []) == []'
	ok

	STEP="delete-backup-access-point"
	ap_ok DeleteBackupAccessPoint '{"AccessPointArn": "'$AP_ARN'"}' 204
	[[ -z $OUT ]] || fail "an empty reply" "$OUT"
	ap_err ResourceNotFoundException DescribeBackupAccessPoint '{"AccessPointArn": "'$AP_ARN'"}'
	ap_ok ListBackupAccessPoints '{}' 200
	jcheck "no access point left" 'd.get("BackupAccessPoints", []) == []'
	ok "HTTP 204, then describe: ResourceNotFoundException"
fi

# ---- the vault goes ----

STEP="delete-backup-vault"
aws_ok DeleteBackupVault --backup-vault-name "$VAULT"
[[ -z $OUT ]] || fail "an empty reply" "$OUT"
ok

STEP="describe-backup-vault after the delete"
aws_err ResourceNotFoundException DescribeBackupVault --backup-vault-name "$VAULT"
grep -q "DescribeBackupVault operation" <<<"$ERR" || fail "the error to name the DescribeBackupVault operation" "$ERR"
ok "exit $RC: $(grep -m1 'An error occurred' <<<"$ERR")"

STEP="every Backup operation exercised"
ALL_OPS=(CreateBackupVault DeleteBackupVault DescribeBackupVault ListBackupVaults
	CreateBackupPlan DeleteBackupPlan GetBackupPlan ListBackupPlans UpdateBackupPlan
	"${AP_OPS[@]}" TagResource ListTags UntagResource)
missing=() skipped=0
for op in "${ALL_OPS[@]}"; do
	if [[ -z ${EXERCISED[$op]:-} ]]; then
		if [[ -z $AP_CLIENT && " ${AP_OPS[*]} " == *" $op "* ]]; then
			skipped=$((skipped + 1))
		else
			missing+=("$op")
		fi
	fi
done
[[ ${#missing[@]} -eq 0 ]] || fail "all ${#ALL_OPS[@]} operations called" "not called: ${missing[*]}"
ok "$((${#ALL_OPS[@]} - skipped)) of ${#ALL_OPS[@]} run, $skipped skipped"

STEP="emulator stops on SIGTERM with exit 0"
e2e_stop_emulator
grep -q 'msg=stopped' "$EMU_LOG" || fail "a 'msg=stopped' log line" "$(tail -n 5 "$EMU_LOG")"
ok

echo "e2e-backup: $PASSED passed, 0 failed, $SKIPPED skipped"
