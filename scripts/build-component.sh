#!/usr/bin/env bash
# Builds the correlator component into target/component/hush.component.wasm.
# hush-engine's build script (engine/build.rs) builds the guest (wasm32-unknown-unknown, no WASI),
# encodes it as a component and embeds it in hushd, so this builds hushd; it is kept
# for the steps and tools that want the component as a file (jco, Python).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

ensure_rust_targets wasm32-unknown-unknown
cargo build -q -p hushd
echo "target/component/hush.component.wasm: $(target/debug/hushd --version)"
