#!/usr/bin/env bash
# Builds the wasm-bindgen front end (wasm/web, crate hush-web) for Node and
# for browsers:
#   target/web/node/     wasm-bindgen --target nodejs (CommonJS, loads the .wasm itself)
#   target/web/browser/  wasm-bindgen --target web    (ES module, `await init()`)
# wasm-bindgen-cli is installed at the version of the crate in Cargo.lock
# when it is missing or another version.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/setup.sh

profile=release-web
module=target/wasm32-unknown-unknown/$profile/hush_web.wasm

ensure_rust_targets wasm32-unknown-unknown
ensure_wasm_bindgen
cargo build -p hush-web --target wasm32-unknown-unknown --profile "$profile"

rm -rf target/web/node target/web/browser
wasm-bindgen --target nodejs --out-dir target/web/node "$module"
wasm-bindgen --target web --out-dir target/web/browser "$module"

echo "build-web: wasm-bindgen $(locked_wasm_bindgen_version)"
for f in "$module" target/web/node/hush_web_bg.wasm target/web/browser/hush_web_bg.wasm; do
    printf '%10d bytes  %s\n' "$(stat -c %s "$f")" "$f"
done
