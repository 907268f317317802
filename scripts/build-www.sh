#!/usr/bin/env bash
# Builds the dashboard (www/) into www/dist: a static site that
# needs no daemon, and that hushd serve embeds when it is built after it.
#   www/dist/index.html, app.js, app.css   the page (TypeScript, bundled by esbuild)
#   www/dist/worker.js, hush_web_bg.wasm   parsing and correlation in a Web Worker
#   www/dist/samples/                      the built-in recordings
# Installs the npm packages (npm ci) when missing, builds hush-web for the
# browser (scripts/build-web.sh), type-checks, bundles.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/setup.sh

ensure_npm_packages www
scripts/build-web.sh >/dev/null
npm --prefix www run -s typecheck
node www/build.mjs
