#!/usr/bin/env bash
# Builds the emulator's container image from the Containerfile at the
# repository's root, with no base image and no network.
#
#   .ci/build-image.sh [TAG]        (default cloudemu/emulator:dev)
#
# It compiles the emulator and cloudlocal statically (CGO_ENABLED=0), lays
# out the build context in a temporary directory (see the Containerfile's
# header), and runs
#
#   buildah bud --pull-never --isolation chroot --storage-driver vfs --format docker
#
# (--format docker because the OCI format drops HEALTHCHECK). Needs buildah
# and a static busybox (Debian: apt-get install buildah busybox-static).
# Knobs: BUSYBOX (path of the static busybox, default /bin/busybox),
# STORAGE_DRIVER (default vfs), VERSION (stamped into the emulator).
set -euo pipefail

TAG=${1:-cloudemu/emulator:dev}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUSYBOX=${BUSYBOX:-/bin/busybox}
STORAGE_DRIVER=${STORAGE_DRIVER:-vfs}

die() { echo "build-image: $*" >&2; exit 1; }

if [[ -x /usr/local/go/bin/go ]]; then export PATH=/usr/local/go/bin:$PATH; fi
command -v go >/dev/null || die "no go on PATH"
command -v buildah >/dev/null || die "no buildah (apt-get install buildah)"
[[ -x $BUSYBOX ]] || die "no busybox at $BUSYBOX (apt-get install busybox-static)"
# A dynamically linked busybox would need a libc the image does not have.
if command -v file >/dev/null && ! file -L "$BUSYBOX" | grep -q 'statically linked'; then
	die "$BUSYBOX is not statically linked (apt-get install busybox-static)"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/build-image.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CTX=$WORK/ctx

mkdir -p "$CTX/usr/local/bin" "$CTX/bin" "$CTX/root" "$CTX/tmp" "$CTX/var/lib/emulator" "$CTX/etc"
chmod 1777 "$CTX/tmp"
chmod 0700 "$CTX/root"

VERSION=${VERSION:-$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo dev)}
(
	cd "$ROOT"
	CGO_ENABLED=0 go build \
		-ldflags "-X github.com/cloudemu/emulator/server.Version=$VERSION" \
		-o "$CTX/usr/local/bin/emulator" ./cmd/emulator
	CGO_ENABLED=0 go build -o "$CTX/usr/local/bin/cloudlocal" ./cmd/cloudlocal
)

# A POSIX shell and the usual tools for init hooks: every busybox applet,
# as a link in /bin.
cp "$BUSYBOX" "$CTX/bin/busybox"
for applet in $("$BUSYBOX" --list); do
	[[ $applet == busybox ]] || ln -s busybox "$CTX/bin/$applet"
done

# Tools that look up the current user (Python's expanduser, for one) need
# an entry for root.
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$CTX/etc/passwd"
printf 'root:x:0:\n' >"$CTX/etc/group"

for tree in compat emulator; do
	for stage in boot start ready shutdown; do
		mkdir -p "$CTX/etc/$tree/init/$stage.d"
	done
done

echo "build-image: context $(du -sh "$CTX" | cut -f1), building $TAG"
buildah --storage-driver "$STORAGE_DRIVER" bud --pull-never --isolation chroot \
	--format docker -t "$TAG" -f "$ROOT/Containerfile" "$WORK"
