#!/usr/bin/env bash
# Every installer and installed tool of the setup test's sandbox (see
# test_setup.py), dispatched on the name it is called by. Installers record
# what they would install in $FAKE_STATE/log (lines "INSTALL ...") and make
# it present, so a second run finds it; other calls are recorded as "RUN ...".
# No network, no root, nothing outside the sandbox is touched.
set -euo pipefail

name="$(basename "$0")"
state="${FAKE_STATE:?the setup test sets FAKE_STATE}"
bin="$state/bin"
log() { printf '%s %s\n' "$1" "$name${2:+ $2}" >>"$state/log"; }

# Makes COMMAND present in the sandbox, answering --version with VERSION.
provide() {
    ln -sf "$state/fake-tool.sh" "$bin/$1"
    printf '%s\n' "${2:-0.0.0-fake}" >"$state/version.$1"
}

case "$name" in
sudo)
    exec "$@"
    ;;
apt-get)
    log INSTALL "$*"
    # FAKE_APT_FAILS=once|always: the transient dpkg failure seen on Debian.
    if [[ " $* " == *" install "* && " $* " != *" -f "* ]] &&
        [[ "${FAKE_APT_FAILS:-}" == always || ("${FAKE_APT_FAILS:-}" == once && ! -e "$state/apt-failed") ]]; then
        touch "$state/apt-failed"
        echo "E: Sub-process /usr/bin/dpkg returned an error code (1)" >&2
        exit 100
    fi
    if [[ " $* " == *" install "* ]]; then
        for arg in "$@"; do
            case "$arg" in -* | install) continue ;; esac
            echo "$arg" >>"$state/debian-packages"
            # The commands the package puts on PATH: its name, and
            # test_setup.py's list.
            provide "$arg"
            for command in $(awk -v p="$arg" '$1 == p { $1 = ""; print }' "$state/provides"); do
                provide "$command"
            done
        done
    fi
    ;;
rustup)
    case "$*" in
    "target list --installed")
        cat "$state/rust-targets"
        ;;
    "component list --installed")
        cat "$state/rust-components"
        ;;
    "toolchain list")
        cat "$state/rust-toolchains"
        ;;
    "toolchain install")
        # What rust-toolchain.toml in the working directory names.
        log INSTALL "$*"
        awk -F'"' '/^channel *=/ { print $2 "-x86_64-unknown-linux-gnu" }' rust-toolchain.toml >>"$state/rust-toolchains"
        awk -F'"' '/^targets *=/ { for (i = 2; i <= NF; i += 2) print $i }' rust-toolchain.toml >>"$state/rust-targets"
        awk -F'"' '/^components *=/ { for (i = 2; i <= NF; i += 2) print $i "-x86_64-unknown-linux-gnu" }' rust-toolchain.toml >>"$state/rust-components"
        ;;
    "target add "*)
        log INSTALL "$*"
        shift 2
        printf '%s\n' "$@" >>"$state/rust-targets"
        ;;
    "component add "*)
        log INSTALL "$*"
        shift 2
        for component in "$@"; do echo "$component-x86_64-unknown-linux-gnu"; done >>"$state/rust-components"
        ;;
    *)
        log RUN "$*"
        ;;
    esac
    ;;
cargo)
    if [[ "${1:-}" == install ]]; then
        log INSTALL "$*"
        shift
        crate="" version=""
        while [ $# -gt 0 ]; do
            case "$1" in
            --version | --vers) version="$2"; shift ;;
            --root | --git | --branch | --tag | --rev | --path | --index | --registry | --target | \
                --profile | --features | -F | --jobs | -j | --bin | --example | --config | -Z) shift ;;
            -*) ;;
            *) crate="${crate:-$1}" ;;
            esac
            shift
        done
        # The crate's binaries as test_setup.py lists them, else the
        # crate's name without -cli.
        commands="$(awk -v c="$crate" '$1 == c { $1 = ""; print }' "$state/cargo-bins")"
        for command in ${commands:-${crate%-cli}}; do
            provide "$command" "$version"
        done
    else
        log RUN "$*"
        if [[ "${1:-}" == --version ]]; then echo "cargo 1.95.0 (fake)"; fi
    fi
    ;;
npm)
    case "${1:-}" in
    ci | install)
        log INSTALL "$* (in ${PWD#"$FAKE_ROOT"/})"
        mkdir -p node_modules
        touch node_modules/.package-lock.json
        ;;
    *) log RUN "$*" ;;
    esac
    ;;
python3 | python)
    if [[ "${1:-}" == -c && "${2:-}" == *ensurepip* ]]; then
        # Debian's python3 lacks ensurepip until python3-venv is installed.
        log RUN "$*"
        grep -qx python3-venv "$state/debian-packages"
    elif [[ "${1:-} ${2:-}" == "-m venv" ]]; then
        log INSTALL "$*"
        venv="${!#}"
        mkdir -p "$venv/bin"
        for command in python python3 pip pip3; do
            ln -sf "$state/fake-tool.sh" "$venv/bin/$command"
        done
    elif [[ "${1:-} ${2:-} ${3:-}" == "-m pip install" ]]; then
        log INSTALL "$*"
    else
        log RUN "$*"
    fi
    ;;
pip | pip3)
    if [[ "${1:-}" == install ]]; then log INSTALL "$*"; else log RUN "$*"; fi
    ;;
node)
    log RUN "$*"
    # Debian 12's nodejs unless the test says otherwise.
    if [[ "$*" == "-p process.versions.node" ]]; then echo "${FAKE_NODE_VERSION:-18.20.4}"; fi
    ;;
*)
    # A tool an installer made present.
    log RUN "$*"
    if [[ "${1:-}" == --version ]]; then
        echo "$name $(cat "$state/version.$name" 2>/dev/null || echo 0.0.0-fake)"
    fi
    ;;
esac
