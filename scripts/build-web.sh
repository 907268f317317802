#!/usr/bin/env bash
# Builds the wasm-bindgen front end (wasm/web, crate hush-web) for Node and
# for browsers:
#   target/web/node/     wasm-bindgen --target nodejs (CommonJS, loads the .wasm itself)
#   target/web/browser/  wasm-bindgen --target web    (ES module, `await init()`)
# The wasm-bindgen CLI must be the exact version of the wasm-bindgen crate in
# Cargo.lock: install it with `cargo install wasm-bindgen-cli --version <v>`
# (without --locked on this machine; see shared/reference/toolchain.md §9).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

profile=release-web
module=target/wasm32-unknown-unknown/$profile/hush_web.wasm

cargo build -p hush-web --target wasm32-unknown-unknown --profile "$profile"

locked=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if [[ -z "$locked" ]]; then
    echo "build-web: no wasm-bindgen package in Cargo.lock" >&2
    exit 1
fi
if ! command -v wasm-bindgen >/dev/null 2>&1; then
    echo "build-web: wasm-bindgen CLI not found; run: cargo install wasm-bindgen-cli --version $locked" >&2
    exit 1
fi
cli=$(wasm-bindgen --version | awk '{ print $2 }')
if [[ "$cli" != "$locked" ]]; then
    echo "build-web: wasm-bindgen CLI is $cli but Cargo.lock has wasm-bindgen $locked;" >&2
    echo "           run: cargo install wasm-bindgen-cli --version $locked --force" >&2
    exit 1
fi

rm -rf target/web/node target/web/browser
wasm-bindgen --target nodejs --out-dir target/web/node "$module"
wasm-bindgen --target web --out-dir target/web/browser "$module"

echo "build-web: wasm-bindgen $cli"
for f in "$module" target/web/node/hush_web_bg.wasm target/web/browser/hush_web_bg.wasm; do
    printf '%10d bytes  %s\n' "$(stat -c %s "$f")" "$f"
done
