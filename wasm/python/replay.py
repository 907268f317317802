#!/usr/bin/env python3
"""hush-replay from a checkout: ``python3 wasm/python/replay.py [--mode
legacy|series] [--options JSON|@FILE] [--strict] [FILE|-]``.

Needs wasmtime-py (``pip install wasmtime==50.0.1``); without it, runs in
the virtual environment ``scripts/test`` makes (``target/venv-python``) if
that exists.
"""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV_PYTHON = HERE.parents[1] / "target" / "venv-python" / "bin" / "python"

try:
    import wasmtime  # noqa: F401: only checks that it is there
except ImportError:
    if VENV_PYTHON.is_file() and Path(sys.prefix).resolve() != VENV_PYTHON.parents[1].resolve():
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), __file__, *sys.argv[1:]])
    sys.exit(
        "hush-replay: wasmtime-py is not installed: pip install wasmtime==50.0.1 "
        "(or run scripts/test once, which makes target/venv-python)"
    )

sys.path.insert(0, str(HERE))

from hush_correlator.cli import main  # noqa: E402: after the path is set

if __name__ == "__main__":
    sys.exit(main())
