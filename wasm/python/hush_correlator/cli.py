"""hush-replay: recorded Kubernetes Events through the hush correlator
component into an in-memory API server, printing one decision line per
input (and per timer firing) exactly as ``hushd replay --output decisions``.
"""

import argparse
import sys

from .input import Bad, records
from .replay import OptionsError, Replay

NAME = "hush-replay"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{NAME}: {message}\n")
        sys.exit(2)


def _arguments(argv):
    parser = _Parser(
        prog=NAME,
        description="Replays Events (JSON Lines, or one `kubectl get events -o json` list) from FILE "
        "or standard input through the hush correlator component and prints one JSON decision per "
        "input, as `hushd replay --output decisions` does.",
    )
    parser.add_argument(
        "--mode",
        choices=["legacy", "series"],
        default="legacy",
        help="core/v1 tools/record, or events.k8s.io/v1 series (default legacy)",
    )
    parser.add_argument(
        "--options",
        default="{}",
        metavar="JSON|@FILE",
        help="hush-core options, kebab-case (e.g. '{\"burst\": 5}')",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 if any input record was bad")
    parser.add_argument("file", nargs="?", metavar="FILE|-", help="the input (default: standard input)")
    return parser.parse_args(argv)


def _fail(message, code=2):
    sys.stderr.write(f"{NAME}: {message}\n")
    sys.exit(code)


def main(argv=None):
    args = _arguments(sys.argv[1:] if argv is None else argv)
    options = args.options
    if options.startswith("@"):
        try:
            with open(options[1:], encoding="utf-8") as f:
                options = f.read()
        except OSError as e:
            _fail(f"cannot read {options[1:]}: {e.strerror}")
    if args.file is None and sys.stdin.isatty():
        _fail("no input: give FILE, or pipe Events to standard input")
    try:
        replay = Replay(mode=args.mode, options=options)
    except OptionsError as e:
        _fail(f"--options: {e}")
    if args.file in (None, "-"):
        stream = sys.stdin.buffer
    else:
        try:
            stream = open(args.file, "rb")  # noqa: SIM115: read to the end of main
        except OSError as e:
            _fail(f"cannot open {args.file}: {e.strerror}", 1)
    out = sys.stdout
    bad = 0
    try:
        for item in records(stream, replay.json):
            if isinstance(item, Bad):
                bad += 1
                sys.stderr.write(f"{NAME}: skipped {item.position}: {item.message}\n")
                continue
            for line in replay.observe(item.event, item.at):
                out.write(line)
                out.write("\n")
        for line in replay.finish():
            out.write(line)
            out.write("\n")
        out.flush()
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    if bad:
        sys.stderr.write(f"{NAME}: {bad} bad input records skipped\n")
    return 1 if args.strict and bad else 0
