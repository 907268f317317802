#!/usr/bin/env bash
# Builds the JSON codec component (wasm/codec, world `codec` of
# wit/codec.wit) for the Node and Python hosts: the guest for
# wasm32-unknown-unknown, encoded as a component by hush-componentize (wasm/build-support)
# (wit-component), into target/component/hush-codec.component.wasm.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

ensure_rust_targets wasm32-unknown-unknown
cargo build -q -p hush-codec --lib --target wasm32-unknown-unknown --profile release-wasm
cargo run -q -p hush-build-support --bin hush-componentize -- \
    target/wasm32-unknown-unknown/release-wasm/hush_codec.wasm \
    target/component/hush-codec.component.wasm
