#!/usr/bin/env bash
# Proves that a plain `cargo build -p hushd` gives a working hushd: its build
# script builds the correlator component and embeds it (on a fresh clone
# nothing else has built it yet), `hushd --version` names the component by
# the hash of the file it embedded, and the default engine (the component)
# replays the built-in sample whole.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build -q -p hushd
hushd=target/debug/hushd

version="$("$hushd" --version)"
echo "$version"
hash="$(sha256sum target/component/hush.component.wasm | cut -d' ' -f1)"
if [[ "$version" != *"(component sha256:$hash)"* ]]; then
    echo "hushd --version does not name the embedded component (sha256 $hash)" >&2
    exit 1
fi

summary="$("$hushd" replay --sample --output table --strict | tail -n 1)"
echo "$summary"
events="$(grep -c . hushd/samples/storm.jsonl)"
if [[ "$summary" != "$events events in, "* ]]; then
    echo "the default engine did not replay all $events sample events" >&2
    exit 1
fi
