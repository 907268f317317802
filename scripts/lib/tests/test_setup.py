#!/usr/bin/env python3
"""Tests of scripts/lib/setup.sh: every ensure_* function, called as the
scripts call it, on a machine that has none of what it installs.

Each call runs in a sandbox: a copy of the repository's tracked files
(nothing a previous run left behind), an empty HOME, a PATH with only basic
utilities and the fake installers of fake-tool.sh (apt-get, sudo, rustup,
cargo, and what they install), no standard input, CI=true, and
`set -euo pipefail` as in the scripts. The fakes record what would be
installed and make it present, so the test also runs every call a second
time and checks that it installs nothing then. Run with
`python3 scripts/lib/tests/test_setup.py` (scripts/test does).
"""

import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[3]
SETUP = "scripts/lib/setup.sh"
FAKE = Path(__file__).with_name("fake-tool.sh")
BASH = shutil.which("bash")

# What a fresh Debian machine that cloned the repository has; everything
# else (cc, python3, node, npm, wasm-bindgen, chromium, ...) is missing.
BASIC = """awk basename bash cat chmod cp cut date dirname env find git grep gzip
head id ln ls mkdir mktemp mv readlink realpath rm sed sh sha256sum sleep
sort stat tail tar tee touch tr true false uname uniq wc xargs""".split()

# Debian packages whose command is not the package's name (the fake
# apt-get makes these and the name present).
PROVIDES = {
    "build-essential": ["cc", "gcc", "make"],
    "kubernetes-client": ["kubectl"],
    "nodejs": ["node"],
}

# Crates whose binaries are not the crate's name without -cli (the fake
# `cargo install` makes these present).
CARGO_BINS = {"wasm-bindgen-cli": ["wasm-bindgen", "wasm-bindgen-test-runner", "wasm2es6js"]}

HOST = "x86_64-unknown-linux-gnu"
RUST_DEFAULTS = [f"{c}-{HOST}" for c in ("cargo", "rustc", "rust-std")]

CALL = re.compile(r"^\s*(ensure_\w+)((?:[ \t]+[^\s;&|#$`\"']+)*)[ \t]*(?:#.*)?$")


def setup_functions():
    """The ensure_* functions setup.sh defines, with their bodies."""
    out = subprocess.run(
        [BASH, "-c", f"source {SETUP}; declare -f"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    bodies, name = {}, None
    for line in out.splitlines():
        header = re.match(r"^(\w+) \(\) $", line)
        if header:
            name = header.group(1)
            bodies[name] = ""
        elif name:
            bodies[name] += line + "\n"
    return {n: b for n, b in bodies.items() if n.startswith("ensure_")}


def script_calls():
    """Every literal `ensure_* ARGS` line of the tracked scripts, in order."""
    files = subprocess.run(
        ["git", "ls-files", "scripts", "*.sh", ".ci"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout.split()
    calls = []
    for name in files:
        if name == SETUP or name.startswith("scripts/lib/tests/"):
            continue
        path = ROOT / name
        if not path.is_file():
            continue
        for line in path.read_text(errors="replace").splitlines():
            m = CALL.match(line)
            if m:
                call = f"{m.group(1)}{m.group(2)}".strip()
                if call not in calls:
                    calls.append(call)
    return calls


class Sandbox:
    """A fresh machine and a fresh clone, in a temporary directory."""

    def __init__(self, tmp, installers=("sudo", "apt-get", "rustup", "cargo")):
        self.root = Path(tmp)
        self.repo = self.root / "repo"
        self.state = self.root / "state"
        bin_dir, base = self.state / "bin", self.root / "base"
        for d in (bin_dir, base, self.root / "home"):
            d.mkdir(parents=True)
        tracked = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
        ).stdout.decode().split("\0")
        for name in filter(None, tracked):
            source = ROOT / name
            if source.is_file():
                (self.repo / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, self.repo / name)
        for tool in BASIC:
            found = shutil.which(tool)
            if found:
                (base / tool).symlink_to(found)
        shutil.copy2(FAKE, self.state / "fake-tool.sh")
        for tool in installers:
            (bin_dir / tool).symlink_to(self.state / "fake-tool.sh")
        (self.state / "log").write_text("")
        (self.state / "debian-packages").write_text("")
        (self.state / "rust-targets").write_text(HOST + "\n")
        (self.state / "rust-components").write_text("\n".join(RUST_DEFAULTS) + "\n")
        (self.state / "rust-toolchains").write_text("stable-x86_64-unknown-linux-gnu (default)\n")
        for name, table in (("provides", PROVIDES), ("cargo-bins", CARGO_BINS)):
            (self.state / name).write_text("".join(f"{k} {' '.join(v)}\n" for k, v in table.items()))
        self.path = f"{bin_dir}:{base}"

    def run(self, call, **env):
        """Runs `call` as a script would."""
        before = self.installs()
        script = f"set -euo pipefail\nsource {SETUP}\n{call}\n"
        result = subprocess.run(
            [BASH, "-c", script],
            cwd=self.repo,
            env={
                "PATH": self.path,
                "HOME": str(self.root / "home"),
                "CI": "true",
                "LANG": "C.UTF-8",
                "FAKE_STATE": str(self.state),
                "FAKE_ROOT": str(self.root),
                **env,
            },
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        return Run(call, result.returncode, result.stdout, result.stderr, self.installs()[len(before):])

    def installs(self):
        lines = (self.state / "log").read_text().splitlines()
        return [line.removeprefix("INSTALL ") for line in lines if line.startswith("INSTALL ")]


class Run(NamedTuple):
    """What a call did: its exit status, output, and the installs it made."""

    call: str
    status: int
    out: str
    err: str
    installs: list

    def __str__(self):
        return (
            f"\n$ {self.call}\nexit status {self.status}\n--- stdout\n{self.out}"
            f"--- stderr\n{self.err}--- installed\n" + "".join(f"{i}\n" for i in self.installs)
        )


def fresh_run(call, installers=("sudo", "apt-get", "rustup", "cargo"), **env):
    """`call` once on a fresh machine."""
    with tempfile.TemporaryDirectory() as tmp:
        return Sandbox(tmp, installers).run(call, **env)


class FreshMachine(unittest.TestCase):
    def test_every_ensure_function_is_exercised(self):
        functions = setup_functions()
        calls = script_calls()
        called = {c.split()[0] for c in calls}
        used_inside = {
            name for name in functions
            for other, body in functions.items()
            if other != name and re.search(rf"\b{name}\b", body)
        }
        self.assertTrue(calls, "no script calls an ensure_* function")
        for name in functions:
            with self.subTest(name):
                self.assertIn(
                    name, called | used_inside,
                    f"{name} is defined in {SETUP} but no script calls it with literal "
                    "arguments, nor does another ensure_* function: the test cannot run it",
                )

    def test_each_call_installs_what_is_missing_then_nothing(self):
        for call in script_calls():
            with self.subTest(call), tempfile.TemporaryDirectory() as tmp:
                box = Sandbox(tmp)
                run = box.run(call)
                self.assertEqual(run.status, 0, f"fails on a fresh machine{run}")
                self.assertTrue(run.installs, f"installs nothing on a fresh machine{run}")
                self.assertEqual(run.out, "", f"writes to stdout (reports go to stderr){run}")
                self.assertIn("install", run.err, f"installs without saying so on stderr{run}")

                run = box.run(call)
                self.assertEqual(run.status, 0, f"fails once everything is installed{run}")
                self.assertEqual(run.installs, [], f"installs again what is present{run}")
                self.assertEqual(run.out + run.err, "", f"prints when nothing is missing{run}")

    def test_rust_without_rustup_is_a_clear_error(self):
        # The build scripts that run alone call only the last two.
        for call in ("ensure_rust", "ensure_rust_targets wasm32-unknown-unknown", "ensure_wasm_bindgen"):
            with self.subTest(call):
                run = fresh_run(call, installers=("sudo", "apt-get"))
                self.assertNotEqual(run.status, 0, run)
                self.assertIn("installed with rustup", run.err, run)
                self.assertEqual(run.installs, [], run)

    def test_a_failed_apt_install_is_repaired_and_retried_once(self):
        run = fresh_run("ensure_debian hush-x hush-x", FAKE_APT_FAILS="once")
        self.assertEqual(run.status, 0, run)
        attempts = [i for i in run.installs if i.endswith("install -y -qq hush-x")]
        self.assertEqual(len(attempts), 2, run)
        self.assertTrue(any("install -f" in i for i in run.installs), run)
        self.assertIn("retrying", run.err, run)

    def test_apt_lists_are_updated_once_per_script_run(self):
        run = fresh_run("ensure_debian hush-x hush-x\nensure_debian hush-y hush-y\nensure_python_client")
        self.assertEqual(run.status, 0, run)
        updates = [i for i in run.installs if i.endswith("apt-get update -qq")]
        self.assertEqual(len(updates), 1, run)
        self.assertIn("apt-get install -y -qq python3-venv", "\n".join(run.installs), run)

    def test_python3_venv_install_is_repaired_and_retried_once(self):
        with tempfile.TemporaryDirectory() as tmp:
            box = Sandbox(tmp)
            self.assertEqual(box.run("ensure_python").status, 0)
            run = box.run("ensure_python_client", FAKE_APT_FAILS="once")
        self.assertEqual(run.status, 0, run)
        attempts = [i for i in run.installs if i.endswith("install -y -qq python3-venv")]
        self.assertEqual(len(attempts), 2, run)
        self.assertIn("retrying", run.err, run)

    def test_a_node_older_than_the_npm_packages_need_is_a_clear_error(self):
        run = fresh_run("ensure_npm_packages www", FAKE_NODE_VERSION="16.20.2")
        self.assertNotEqual(run.status, 0, run)
        self.assertIn("Node.js >= 18", run.err, run)
        self.assertIn("16.20.2", run.err, run)
        self.assertFalse(any("npm" in i for i in run.installs), run)

    def test_cargo_fuzz_comes_with_the_nightly_the_fuzz_crate_pins(self):
        pinned = re.search(r'^channel = "([^"]+)"', (ROOT / "fuzz/rust-toolchain.toml").read_text(), re.M)
        self.assertIsNotNone(pinned, "fuzz/rust-toolchain.toml names no channel")
        with tempfile.TemporaryDirectory() as tmp:
            box = Sandbox(tmp)
            run = box.run("ensure_cargo_fuzz")
            toolchains = (box.state / "rust-toolchains").read_text()
            targets = (box.state / "rust-targets").read_text().split()
        self.assertEqual(run.status, 0, run)
        self.assertIn(f"{pinned.group(1)}-x86_64-unknown-linux-gnu", toolchains, run)
        self.assertIn("wasm32-unknown-unknown", targets, run)
        self.assertTrue(any(i.startswith("cargo install cargo-fuzz") for i in run.installs), run)

    def test_an_apt_install_that_keeps_failing_stops_the_script_with_its_error(self):
        run = fresh_run("ensure_debian hush-x hush-x", FAKE_APT_FAILS="always")
        self.assertNotEqual(run.status, 0, run)
        self.assertIn("dpkg returned an error", run.err, run)


if __name__ == "__main__":
    unittest.main(verbosity=2)
