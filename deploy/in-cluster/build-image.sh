#!/bin/sh
# Build the in-cluster image of the suite: a static build of the CLI (glibc, linked with
# `-C target-feature=+crt-static`) in an image FROM scratch.
#
#   deploy/in-cluster/build-image.sh [TAG]        (default TAG: webhook-conformance:dev)
#
# Needs what the ordinary build needs (a Rust toolchain, gcc with glibc's static libc.a: Debian/Ubuntu
# package libc6-dev, which gcc depends on) and Docker. No musl, no extra Rust target. Nothing is
# pulled: the image has no base. PROFILE=dev builds the debug profile instead of release.
#
# The binary resolves the webhook's Service name with glibc's own DNS and hosts-file lookup (built
# into libc since glibc 2.34, so a static binary needs no NSS module), reading the /etc/resolv.conf
# and /etc/hosts that the container runtime mounts.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tag=${1:-webhook-conformance:dev}
profile=${PROFILE:-release}
# An explicit --target keeps the flags below off the build scripts and proc-macros (which cannot be
# static), and its own target dir keeps them off the ordinary build: a different RUSTFLAGS in the same
# target dir would rebuild everything there.
target=x86_64-unknown-linux-gnu
target_dir=${IN_CLUSTER_TARGET_DIR:-$root/target/in-cluster}

libc_a=$(${CC:-cc} -print-file-name=libc.a)
if [ ! -f "$libc_a" ]; then
  echo "build-image.sh: no static libc.a for ${CC:-cc} (Debian/Ubuntu: apt-get install libc6-dev)" >&2
  exit 1
fi

# Before 2.34 a static glibc looks names up through NSS modules it loads at run time, which an
# image FROM scratch does not have.
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc //p')
case "$glibc" in
  2.[0-9] | 2.[0-9].* | 2.[12][0-9] | 2.[12][0-9].* | 2.3[0-3] | 2.3[0-3].* | "")
    echo "build-image.sh: glibc ${glibc:-(unknown)} here; the static build needs glibc 2.34 or later" >&2
    exit 1 ;;
esac

unset CARGO_ENCODED_RUSTFLAGS
RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C target-feature=+crt-static" \
  cargo build --locked --profile "$profile" --target "$target" -p webhook-conformance \
  --manifest-path "$root/Cargo.toml" --target-dir "$target_dir"
case "$profile" in
  dev) out=debug ;;
  *) out=$profile ;;
esac
bin=$target_dir/$target/$out/webhook-conformance
# A FROM scratch image has no dynamic loader: refuse a binary that would need one.
if LC_ALL=C readelf -l "$bin" 2>/dev/null | grep -q 'Requesting program interpreter'; then
  echo "build-image.sh: $bin is dynamically linked; it cannot run FROM scratch" >&2
  exit 1
fi

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$bin" "$here/Dockerfile" "$context/"
docker build --label webhook-conformance.in-cluster-image=1 -t "$tag" "$context"
