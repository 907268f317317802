# Installs what hush's scripts need, only when it is missing. Sourced by
# scripts/run, scripts/test and the build scripts; safe to run on a fresh
# machine and with no standard input (CI).
#
# The rules of an ensure_* function. scripts/lib/tests/test_setup.py finds
# every one and runs it as the scripts call it, on a fresh machine (a copy of
# the tracked files, an empty HOME, a PATH of basic utilities and fake
# installers), then a second time:
# * It installs only what is missing; once everything is there it installs
#   nothing and prints nothing.
# * Before installing it says what, on stderr (`echo "installing X" >&2`):
#   stdout is the scripts' output (e.g. hushd serve's address and the
#   kubectl commands to try, which scripts/run ends by starting).
# * It works under `set -euo pipefail` with no stdin and CI=true: a probe of
#   a tool that may be missing is guarded (`command -v`, `|| true`), never
#   left to fail a pipeline or a `$(...)`.
# * It installs through debian_install (apt-get), `rustup target|component
#   add`, `cargo install`, `npm ci`, or `python3 -m venv` and that venv's pip:
#   the test fakes exactly these. A Debian package whose command is not its
#   name goes in PROVIDES in test_setup.py, a crate whose binaries are not
#   its name without -cli in CARGO_BINS.
# * It relies on nothing a previous run left behind (node_modules, a venv,
#   target/): it checks and installs that too.
# * The scripts call it with literal arguments (or another ensure_* calls
#   it), so the test can run it as they do.

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
    echo "installing $* (for $command)" >&2
    debian_install "$@"
}

# Whether this script run has updated apt's package lists already.
apt_updated=""

# Installs Debian packages: apt-get update (at most once per script run),
# then apt-get install. dpkg sometimes fails mid-unpack for a passing reason
# (its temporary files vanish): repair and retry once; a second failure
# stops the script.
debian_install() {
    if [ -z "$apt_updated" ]; then
        as_root apt-get update -qq
        apt_updated=yes
    fi
    if ! apt_install "$@"; then
        echo "apt-get install $* failed; repairing and retrying once" >&2
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -f -y -qq
        apt_install "$@"
    fi
}

apt_install() {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

# The toolchain rust-toolchain.toml pins (its `channel`).
pinned_toolchain() {
    awk -F'"' '/^channel *=/ { print $2; exit }' rust-toolchain.toml
}

# Rust itself comes from rustup (Debian's rustc is too old for the 2024
# edition): the toolchain rust-toolchain.toml pins, with the components and
# targets it lists; a C linker and, for the tests, rustfmt and clippy.
ensure_rust() {
    if ! command -v rustup >/dev/null || ! command -v cargo >/dev/null; then
        echo "hush needs Rust installed with rustup (https://rustup.rs); it installs the pinned toolchain itself" >&2
        exit 1
    fi
    ensure_debian cc build-essential
    local toolchain
    toolchain="$(pinned_toolchain)"
    if ! rustup toolchain list | grep -q "^$toolchain-"; then
        echo "installing the Rust toolchain $toolchain (rust-toolchain.toml)" >&2
        # Without a name, rustup installs what rust-toolchain.toml says:
        # the channel, its components and its targets.
        rustup toolchain install
    fi
    local installed
    installed="$(rustup component list --installed)"
    for component in "$@"; do
        if ! grep -q "^$component" <<<"$installed"; then
            echo "installing the Rust component $component" >&2
            rustup component add "$component"
        fi
    done
}

# Rust targets for the component, the browser build and the no_std check
# (with Rust itself: the build scripts that run alone call only this).
ensure_rust_targets() {
    ensure_rust
    local installed
    installed="$(rustup target list --installed)"
    for target in "$@"; do
        if ! grep -qx "$target" <<<"$installed"; then
            echo "installing the Rust target $target" >&2
            rustup target add "$target"
        fi
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
    ensure_rust
    local want have
    want="$(locked_wasm_bindgen_version)"
    # `|| true`: a missing wasm-bindgen is the normal case on a fresh
    # machine, not an error (under `set -o pipefail` the pipeline fails).
    have="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)"
    if [ "$have" != "$want" ]; then
        echo "installing wasm-bindgen-cli $want (takes a few minutes, once)" >&2
        cargo install wasm-bindgen-cli --version "$want" --force
    fi
}

# The oldest Node.js major version the npm packages of www/ and wasm/node/
# accept (their package-lock.json engines; playwright-core is pinned to the
# newest release that runs on it): Debian 12's nodejs is 18.20.
node_major_needed=18

# Node.js for the web binding's tests (Debian's when it is missing), and a
# clear stop when the one on PATH is too old for the npm packages.
ensure_node() {
    ensure_debian node nodejs
    local version
    version="$(node -p process.versions.node 2>/dev/null || true)"
    if ! [[ "${version%%.*}" =~ ^[0-9]+$ ]] || [ "${version%%.*}" -lt "$node_major_needed" ]; then
        echo "hush needs Node.js >= $node_major_needed; $(command -v node) is ${version:-a node whose version cannot be read}:" \
            "install a newer one (Debian 12's nodejs is 18) and put it first on PATH" >&2
        exit 1
    fi
}

# Python for the vector checks.
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
        echo "installing the npm packages of $dir (npm ci)" >&2
        (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >&2
    fi
}

# Chromium for the dashboard's browser tests and benchmark (Debian's:
# playwright's own browser download cannot run here).
ensure_chromium() { ensure_debian chromium chromium; }

# A Python virtual environment in DIR with the packages REQUIREMENTS pins,
# made (or remade) when it is missing or the pins changed:
# ensure_python_venv DIR REQUIREMENTS
ensure_python_venv() {
    local dir=$1 requirements=$2
    ensure_python
    # Debian splits venv's pip bootstrap (ensurepip) into python3-venv,
    # which has no command of its own to probe.
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        echo "installing python3-venv" >&2
        debian_install python3-venv
    fi
    if [ -x "$dir/bin/python" ] && [ -f "$dir/requirements.txt" ] &&
        [ "$(<"$requirements")" = "$(<"$dir/requirements.txt")" ]; then
        return
    fi
    echo "making the Python environment $dir ($(tr '\n' ' ' <"$requirements"))" >&2
    rm -rf "$dir"
    python3 -m venv "$dir" >&2
    "$dir/bin/pip" install -q --disable-pip-version-check -r "$requirements" >&2
    cp "$requirements" "$dir/requirements.txt"
}

# kubectl for the serve tests: the one installed (e.g. the Google Cloud
# SDK's), else Debian's kubernetes-client (v1.20, too old for `kubectl
# events`: those checks then say they were skipped and why).
ensure_kubectl() { ensure_debian kubectl kubernetes-client; }

# openssl, which the follow tests make their certificates with and run
# s_server from.
ensure_openssl() { ensure_debian openssl openssl; }
# curl for the TLS and authentication tests (with and without client
# certificates, HTTP/2 and HTTP/1.1).
ensure_curl() { ensure_debian curl curl; }

# The official Kubernetes Python client, pinned in
# tests/python/requirements.txt, for the serve tests.
ensure_python_client() {
    ensure_python_venv target/python-client tests/python/requirements.txt
}

# cargo fuzz and the nightly toolchain it builds the fuzz targets with
# (fuzz/rust-toolchain.toml names it, with its wasm target): for
# scripts/fuzz.
ensure_cargo_fuzz() {
    ensure_rust
    local toolchain
    toolchain="$(awk -F'"' '/^channel *=/ { print $2; exit }' fuzz/rust-toolchain.toml)"
    if ! rustup toolchain list | grep -q "^$toolchain-"; then
        echo "installing the Rust toolchain $toolchain (fuzz/rust-toolchain.toml, for cargo fuzz)" >&2
        # Without a name, rustup installs what the directory's
        # rust-toolchain.toml says: the channel and its targets.
        (cd fuzz && rustup toolchain install)
    fi
    if ! command -v cargo-fuzz >/dev/null; then
        echo "installing cargo-fuzz (a minute or two, once)" >&2
        cargo install cargo-fuzz --version 0.13.2
    fi
}
