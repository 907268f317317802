# Installs what hush's scripts need, only when it is missing. Sourced by
# scripts/run and scripts/test; safe to run on a fresh machine and with no
# standard input (CI).

# Runs a command as root (sudo when not root and sudo exists).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi
}

# Rust targets for the component, the browser build and the no_std check.
ensure_rust_targets() {
    local installed
    installed="$(rustup target list --installed)"
    for target in "$@"; do
        grep -qx "$target" <<<"$installed" || rustup target add "$target"
    done
}

# wasm-bindgen-cli at exactly the version of the wasm-bindgen crate in
# Cargo.lock (without --locked: one of its pinned dependencies is missing
# from the registry mirror here).
ensure_wasm_bindgen() {
    local want have
    want="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)"
    have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')"
    if [ "$have" != "$want" ]; then
        echo "installing wasm-bindgen-cli $want (takes a few minutes, once)"
        cargo install wasm-bindgen-cli --version "$want"
    fi
}

# Node.js for the web binding's tests (Debian's package if absent).
ensure_node() {
    command -v node >/dev/null && return
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs
}
