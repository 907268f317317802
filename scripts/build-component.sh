#!/usr/bin/env bash
# Builds the correlator component: the guest for wasm32-unknown-unknown (no
# WASI), encoded as a component by the xtask (wit-component), into
# target/component/hush.component.wasm, which hushd embeds when it is built.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

ensure_rust_targets wasm32-unknown-unknown
cargo build -p hush-component --target wasm32-unknown-unknown --profile release-wasm
cargo run -q -p hush-xtask -- componentize \
    target/wasm32-unknown-unknown/release-wasm/hush_component.wasm \
    target/component/hush.component.wasm
