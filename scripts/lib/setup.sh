# Installs what hush's scripts need, only when it is missing. Sourced by
# scripts/run, scripts/test and the build scripts; safe to run on a fresh
# machine and with no standard input (CI).

# Runs a command as root (sudo when not root and sudo exists).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi
}

# Debian packages, installed when the command named first is missing:
# ensure_debian COMMAND PACKAGE...
ensure_debian() {
    local command=$1
    shift
    command -v "$command" >/dev/null && return
    echo "installing $* (for $command)"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

# Rust itself comes from rustup (Debian's rustc is too old for the 2024
# edition); a C linker and, for the tests, rustfmt and clippy.
ensure_rust() {
    if ! command -v rustup >/dev/null || ! command -v cargo >/dev/null; then
        echo "hush needs Rust >= 1.95 installed with rustup (https://rustup.rs)" >&2
        exit 1
    fi
    ensure_debian cc build-essential
    local installed
    installed="$(rustup component list --installed)"
    for component in "$@"; do
        grep -q "^$component" <<<"$installed" || rustup component add "$component"
    done
}

# Rust targets for the component, the browser build and the no_std check.
ensure_rust_targets() {
    local installed
    installed="$(rustup target list --installed)"
    for target in "$@"; do
        grep -qx "$target" <<<"$installed" || rustup target add "$target"
    done
}

# The version of the wasm-bindgen crate in Cargo.lock.
locked_wasm_bindgen_version() {
    awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

# wasm-bindgen-cli at exactly the version of the wasm-bindgen crate in
# Cargo.lock (without --locked: one of its pinned dependencies is missing
# from the registry mirror here).
ensure_wasm_bindgen() {
    local want have
    want="$(locked_wasm_bindgen_version)"
    # `|| true`: a missing wasm-bindgen is the normal case on a fresh
    # machine, not an error (under `set -o pipefail` the pipeline fails).
    have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
    if [ "$have" != "$want" ]; then
        echo "installing wasm-bindgen-cli $want (takes a few minutes, once)"
        cargo install wasm-bindgen-cli --version "$want" --force
    fi
}

# Node.js for the web binding's tests, Python for the vector checks.
ensure_node() { ensure_debian node nodejs; }
ensure_python() { ensure_debian python3 python3; }

# npm itself (Debian's), for the packages below.
ensure_npm() {
    ensure_node
    ensure_debian npm npm
}

# The npm packages of DIR, exactly as its committed package-lock.json
# pins them (npm ci), when node_modules is missing or older than the lock.
ensure_npm_packages() {
    local dir=$1
    ensure_npm
    if [ ! -f "$dir/node_modules/.package-lock.json" ] ||
        [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
        echo "installing the npm packages of $dir (npm ci)"
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    fi
}
