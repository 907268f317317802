#!/usr/bin/env bash
# Replays every event dump in DIR through `hushd replay`, in both modes and
# on both engines, and reports per file and run: records read, records
# skipped (bad input), writes out, writes refused, and whether the engines
# printed the same decisions. *.json files are read as they are; *.yaml and
# *.yml files (a must-gather's events.yaml) are converted to JSON first, as a
# user would (python3 with PyYAML). Exits 1 if any record was skipped or the
# engines disagreed.
#
#   scripts/replay-dumps.sh DIR            # uses target/debug/hushd, built first
#   HUSHD=target/release/hushd scripts/replay-dumps.sh DIR
set -euo pipefail

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
    echo "usage: scripts/replay-dumps.sh DIR (a folder of *.json or *.yaml event dumps)" >&2
    exit 2
fi
dir="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -z "${HUSHD:-}" ]; then
    (cd "$root" && cargo build -q -p hushd)
    HUSHD="$root/target/debug/hushd"
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# The JSON to replay for a dump file (converted into the scratch folder).
as_json() {
    case "$1" in
    *.json) echo "$1" ;;
    *.yaml | *.yml)
        local out
        out="$scratch/$(basename "$1").json"
        python3 -c 'import sys, yaml, json; json.dump(yaml.safe_load(sys.stdin), sys.stdout, default=str)' \
            <"$1" >"$out"
        echo "$out"
        ;;
    esac
}

printf '%-48s %-7s %-10s %8s %8s %8s %8s  %s\n' FILE MODE ENGINE RECORDS SKIPPED WRITES REFUSED ENGINES
failed=0
shopt -s nullglob
for file in "$dir"/*.json "$dir"/*.yaml "$dir"/*.yml; do
    input="$(as_json "$file")"
    for mode in legacy series; do
        for engine in native component; do
            out="$scratch/$mode.$engine"
            "$HUSHD" replay --mode "$mode" --engine "$engine" --output decisions "$input" \
                >"$out" 2>"$out.err" || true
            # The summary: "N events in, W writes out (...); dropped: ... R refused ...; B bad input records".
            summary="$("$HUSHD" replay --mode "$mode" --engine "$engine" --output table "$input" 2>/dev/null |
                tail -n 1 || true)"
            number() { grep -oE "[0-9]+ $1" <<<"$summary" | grep -oE '^[0-9]+' || echo 0; }
            events=$(number "events in")
            skipped=$(number "bad input records")
            writes=$(number "writes out")
            refused=$(number "refused")
            records=$((events + skipped))
            agree=""
            if [ "$engine" = component ]; then
                if cmp -s "$scratch/$mode.native" "$out"; then agree=same; else agree=DIFFER; fi
            fi
            printf '%-48s %-7s %-10s %8d %8d %8d %8d  %s\n' "$(basename "$file")" "$mode" "$engine" \
                "$records" "$skipped" "$writes" "$refused" "$agree"
            if [ "$skipped" -ne 0 ] || [ "$agree" = DIFFER ]; then
                failed=1
                sed 's/^/    /' "$out.err" | head -5 >&2
            fi
        done
    done
done
exit "$failed"
