#!/bin/sh
# Build the in-cluster image of the suite: a static (musl) build of the CLI in an image FROM scratch.
#
#   deploy/in-cluster/build-image.sh [TAG]        (default TAG: webhook-conformance:dev)
#
# Needs a Rust toolchain with the musl target (`rustup target add x86_64-unknown-linux-musl`), a musl
# C compiler for the TLS library (`musl-gcc`, Debian/Ubuntu package musl-tools) and Docker. Nothing
# is pulled: the image has no base. PROFILE=dev builds the debug profile instead of release.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tag=${1:-webhook-conformance:dev}
profile=${PROFILE:-release}
target=x86_64-unknown-linux-musl
target_dir=${IN_CLUSTER_TARGET_DIR:-$root/target/in-cluster}
export CC_x86_64_unknown_linux_musl="${CC_x86_64_unknown_linux_musl:-musl-gcc}"

cargo build --locked --profile "$profile" --target "$target" -p webhook-conformance \
  --manifest-path "$root/Cargo.toml" --target-dir "$target_dir"
case "$profile" in
  dev) out=debug ;;
  *) out=$profile ;;
esac

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$target_dir/$target/$out/webhook-conformance" "$here/Dockerfile" "$context/"
docker build --label webhook-conformance.in-cluster-image=1 -t "$tag" "$context"
