"""Mutation testing on demand (not in CI): mutmut 2 over one package, survivors vs the
checked-in list of equivalent mutants.

    .venv/bin/pip install "mutmut==2.5.1"
    .venv/bin/python bench/mutation.py                       # table_service/rules
    .venv/bin/python bench/mutation.py --package firmware_bridge/protocol
    .venv/bin/python bench/mutation.py --package table_service/mirror
    .venv/bin/python bench/mutation.py --workdir /tmp/mut --keep   # keep mutmut's cache

mutmut 2, not 3: mutmut 3 leaves module-level code and decorated functions alone, and
the 台 table (`items.py`'s rows and exclusions) and the cached shape functions are
exactly that. mutmut 2 edits files in place, so the run works on a copy of the tree in
a fresh temporary folder (never this checkout: other people's tests keep running here)
and its `.mutmut-cache` lives there too.

Speed: every mutant runs the package's fast test selection (worked cases; no
subprocess tests; the Hypothesis properties only with --with-properties, under the
`mutation` profile). Starting pytest costs more than the tests, so this script is a
fork server: it imports pytest and its plugins once, and mutmut's runner is a tiny
client (`--client`) asking it to fork a child that imports the mutated package fresh
and runs pytest with `-x`. One mutant at a time, one worker process. Before mutmut
starts, one traced run maps each line of the package to the tests that execute it
(caches off, so every test runs the lines it needs); a mutant first runs only the
tests of its line, and a survivor is run again on the whole selection (mutmut's
`--rerun-all`), so the map only saves time and never decides a result. Lines run at
import (the 台 table's rows) get the whole selection at once.

The run prints the survivors that are not in bench/mutation-equivalent.txt (the tests'
job is to kill those), and the listed entries that no longer survive (stale). Exit
status 0 when every survivor is listed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENT = ROOT / "bench" / "mutation-equivalent.txt"
# What the copy needs: the packages, the tests' data and plugins, the root conftest.
COPY = ("table_service", "firmware_bridge", "table_sim", "hil_tests", "mjtable", "profiles",
        "tests", "docs", "conftest.py", "pyproject.toml")  # fmt: skip
# Third-party modules every child would import anew through the root conftest
# (hil_tests.plugin): imported once in the server (~1.5 s a child saved).
PRELOAD = ("pydantic", "pydantic_settings", "aiomqtt", "serial", "serial_asyncio_fast",
           "cobs.cobs", "prometheus_client", "amqtt.broker", "asyncio", "tomllib",
           "sqlalchemy", "sqlalchemy.orm", "sqlalchemy.dialects.sqlite", "alembic",
           "alembic.command", "mako.template", "pygments", "pdb", "fastapi", "uvicorn",
           "psycopg", "httpx", "tenacity")  # fmt: skip
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "node_modules", "*.sqlite3")


@dataclass(frozen=True)
class Selection:
    """A package's fast tests: paths first to last (with -x, cheap killers go first)."""

    tests: tuple[str, ...]
    deselect: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()  # Hypothesis files, run only with --with-properties


PACKAGES = {
    "table_service/rules": Selection(
        tests=(
            "tests/rules/test_regressions.py",
            "tests/rules/test_tai_table.py",
            "tests/rules/test_scoring_edges.py",
            "tests/rules/test_settlement_kinds.py",
            "tests/rules/test_hand_shapes.py",
            "tests/rules/test_input_reading.py",
            "tests/rules/test_profile_construction.py",
            "tests/rules/test_table_order.py",
            "tests/rules/test_items.py",
            "tests/rules/test_switches.py",
            "tests/rules/test_examples.py",
            "tests/rules/test_settlement.py",
            "tests/rules/test_table.py",
            "tests/rules/test_validation.py",
            "tests/rules/test_profile.py",
        ),
        deselect=(
            "tests/rules/test_profile.py::TestCli",  # a subprocess per test
            "tests/rules/test_profile.py::TestAnyProfile",  # Hypothesis, fixed large counts
            "tests/rules/test_profile.py::TestResolvedForm::test_any_profile_round_trips",
        ),
        properties=("tests/rules/test_properties.py",),
    ),
    "table_service/mirror": Selection(
        tests=(
            "tests/mirror/test_worked_examples.py",
            "tests/mirror/test_replay_input.py",
            "tests/mirror/test_lifecycle.py",
            "tests/mirror/test_bookkeeping.py",
            "tests/mirror/test_records.py",
            "tests/mirror/test_tiles.py",
            "tests/mirror/test_drawing.py",
            "tests/mirror/test_violations.py",
            "tests/mirror/test_decisions.py",
            "tests/mirror/test_claims.py",
            "tests/mirror/test_rotation.py",
            "tests/mirror/test_faults.py",
            "tests/mirror/test_money.py",
            "tests/mirror/test_session_profile.py",
            "tests/mirror/test_session_start.py",  # a session asked for during a hand
            "tests/mirror/test_session_bookkeeping.py",  # what a session start leaves open
            "tests/mirror/test_public_claims.py",
            "tests/mirror/test_rulebook_codes.py",  # the rulebook suite: every code, rule
            "tests/mirror/test_rulebook_claims.py",  # and decision from the text, with twins
            "tests/mirror/test_rulebook_decisions.py",
            "tests/mirror/test_rulebook_faults.py",
            "tests/mirror/test_win_edges.py",  # worked cases written for survivors
            "tests/mirror/test_claim_edges.py",
            "tests/mirror/test_seat_picture.py",
            "tests/mirror/test_claim_windows.py",  # a discard's claims, who may take it
            "tests/mirror/test_mirror_state.py",  # the hand's picture, what it shows
            "tests/mirror/test_drawing_edges.py",
            "tests/mirror/test_mirror_records.py",
            "tests/mirror/test_ruling_bodies.py",
            "tests/mirror/test_session_bodies.py",
            "tests/mirror/test_fold.py",
            "tests/mirror/test_violation_details.py",
            "tests/mirror/test_rulings.py",  # the fold through a referee's rulings
            "tests/mirror/test_disclosure.py",  # what the public snapshot hides
            "tests/mirror/test_seq_bookkeeping.py",  # seq ranges and holes
            "tests/test_event_docs.py",  # the records' field descriptions
            "tests/mirror/test_play.py",  # a hand's play (HandPlay) against the simulator
        ),
        properties=("tests/mirror/test_simulated.py",),  # simulated games, Hypothesis
    ),
    "firmware_bridge/protocol": Selection(
        tests=(
            "tests/bridge/test_protocol_rules.py",
            "tests/bridge/test_codec.py",
            "tests/bridge/test_vectors.py",
            "tests/bridge/test_bodies.py",
            "tests/bridge/test_session.py",
            "tests/bridge/test_wire.py",
            "tests/bridge/test_messages.py",
            "tests/test_event_docs.py",  # kills the mutants of the fields' descriptions
        ),
        deselect=(  # Hypothesis with a fixed max_examples=400: ~2 s a run
            "tests/bridge/test_messages.py::test_any_values_are_accepted_by_both_sides_or_by_neither",
        ),
        properties=("tests/bridge/test_codec_fuzz.py",),
    ),
}


def pytest_args(selection: Selection, with_properties: bool) -> list[str]:
    paths = [p for p in selection.tests if (ROOT / p).exists()]
    if with_properties:
        paths += selection.properties
    args = ["-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--no-header"]
    for node in selection.deselect:
        args += ["--deselect", node]
    return args + paths


# --- the fork server and its client ------------------------------------------------


def client(address: str, line: str | None) -> int:
    """mutmut's runner: ask the server for one test run, exit with its status."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(address)
        sock.sendall(f"run {line or ''}\n".encode())
        reply = sock.makefile("rb").readline()
    # mutmut 2 counts only status 1 as killed: a mutant that breaks the import (pytest's
    # 2), an internal error (3) or a run we cut short is killed too.
    return 0 if reply.strip() == b"0" else 1


def preload() -> None:
    """Import pytest, Hypothesis and the installed pytest plugins: never the code under test."""
    from importlib.metadata import entry_points

    import hypothesis.strategies  # noqa: F401
    import pytest  # noqa: F401

    # What the tests' plugins (hil_tests) import from other projects, once.
    for name in PRELOAD:
        with contextlib.suppress(ImportError):
            __import__(name)

    for entry in entry_points(group="pytest11"):
        with contextlib.suppress(Exception):  # one failing here is pytest's to report
            entry.load()


IMPORT = "<import>"  # the bucket of lines run outside any test (collection, imports)


class LineMap:
    """A pytest plugin for the mapping run: which tests execute each line of the package."""

    def __init__(self, package_dir: str) -> None:
        self.package_dir = package_dir
        self.bucket = IMPORT
        self.lines: dict[str, dict[str, None]] = {}  # "path:line" -> test ids, in run order
        sys.settrace(self._call)

    def _call(self, frame, event, arg):  # type: ignore[no-untyped-def]
        if frame.f_code.co_filename.startswith(self.package_dir):
            self._line(frame, "line", None)
            return self._line
        return None

    def _line(self, frame, event, arg):  # type: ignore[no-untyped-def]
        if event == "line":
            path = os.path.relpath(frame.f_code.co_filename)
            self.lines.setdefault(f"{path}:{frame.f_lineno}", {})[self.bucket] = None
        return self._line

    def pytest_runtest_setup(self, item) -> None:  # type: ignore[no-untyped-def]
        self.bucket = item.nodeid

    def pytest_runtest_teardown(self, item) -> None:  # type: ignore[no-untyped-def]
        self.bucket = IMPORT


def map_lines(workdir: Path, package: str, args: list[str]) -> dict[str, list[str]]:
    """Run the selection once, traced, in a child without caches; return line -> tests."""
    out = workdir / "linemap.json"
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            import functools
            import json

            import pytest

            functools.cache = lambda f: f  # type: ignore[assignment]  # every test runs its lines
            plugin = LineMap(str(workdir / package))
            code = int(pytest.main(["-p", "no:cacheprovider", "-q", *args[1:]], plugins=[plugin]))
            sys.settrace(None)
            out.write_text(json.dumps({k: list(v) for k, v in plugin.lines.items()}))
        finally:
            os._exit(code)
    _, raw = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(raw) != 0:
        raise SystemExit("the tests fail without any mutation: fix them first")
    import json

    return dict(json.loads(out.read_text()))


def tests_for(line: str, lines: dict[str, list[str]], args: list[str]) -> list[str]:
    """pytest's arguments for a mutant on `line`: its tests, or the whole selection."""
    tests = lines.get(line)
    if not tests or IMPORT in tests:
        return args
    options = [a for a in args if not a.endswith(".py")]
    return [*options, *tests]


def run_child(workdir: Path, args: list[str], log: Path) -> int:
    """Fork; the child runs pytest in the copy and exits with pytest's status."""
    pid = os.fork()
    if pid == 0:  # the child
        code = 3
        try:
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            import pytest

            code = int(pytest.main(args))
        finally:
            os._exit(code)
    return pid


def wait_child(pid: int, conn: socket.socket, child_timeout: float) -> int:
    """The child's exit status; killed (124) if the client hangs up or time runs out."""
    import select

    started = time.monotonic()
    while True:
        done, raw = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(raw)
        hung_up = select.select([conn], [], [], 0.005)[0]
        if hung_up or time.monotonic() - started > child_timeout:
            os.kill(pid, 9)  # mutmut timed the run out, or we did
            os.waitpid(pid, 0)
            return 124


def serve(server: socket.socket, mutmut: subprocess.Popen[bytes], workdir: Path,
          args: list[str], lines: dict[str, list[str]], child_timeout: float) -> None:  # fmt: skip
    """Answer run requests until mutmut exits; a child outliving its client is killed."""
    server.settimeout(0.5)
    log = workdir / "last-test-run.log"
    while mutmut.poll() is None:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            continue
        with conn:
            request = conn.makefile("rb").readline().decode().split()
            chosen = tests_for(request[1], lines, args) if len(request) > 1 else args
            status = wait_child(run_child(workdir, chosen, log), conn, child_timeout)
            if status in (4, 5) and chosen is not args:  # a test id pytest did not take
                status = wait_child(run_child(workdir, args, log), conn, child_timeout)
            with contextlib.suppress(OSError):  # the client is gone: mutmut timed it out
                conn.sendall(f"{status}\n".encode())


# --- mutmut and the equivalent list ------------------------------------------------


Key = tuple[str, tuple[str, ...], tuple[str, ...]]  # (path, removed lines, added lines)


@dataclass(frozen=True)
class Mutant:
    path: str
    removed: tuple[str, ...]
    added: tuple[str, ...]

    def key(self) -> Key:
        return (self.path, self.removed, self.added)

    def show(self) -> str:
        lines = [f"@ {self.path}"]
        lines += [f"- {line}" for line in self.removed]
        lines += [f"+ {line}" for line in self.added]
        return "\n".join(lines)


def parse_diff(diff: str) -> Mutant:
    path, removed, added = "", [], []
    for line in diff.splitlines():
        if line.startswith("--- "):
            path = line[4:].strip().removeprefix("a/")
        elif line.startswith("+++ "):
            continue
        elif line.startswith("-") and line[1:].strip():  # blank lines carry no meaning
            removed.append(line[1:].strip())
        elif line.startswith("+") and line[1:].strip():
            added.append(line[1:].strip())
    return Mutant(path, tuple(removed), tuple(added))


def load_equivalent(path: Path = EQUIVALENT) -> dict[Key, str]:
    """The checked-in list: blocks of `@ path`, `- line`, `+ line`, `why: …`."""
    found: dict[Key, str] = {}
    if not path.exists():
        return found
    blocks = path.read_text(encoding="utf-8").split("\n\n")
    for block in blocks:
        lines = [ln for ln in block.splitlines() if ln and not ln.startswith("#")]
        if not lines or not lines[0].startswith("@ "):
            continue
        where = lines[0][2:].strip()
        removed = tuple(ln[2:].strip() for ln in lines if ln.startswith("- "))
        added = tuple(ln[2:].strip() for ln in lines if ln.startswith("+ "))
        why = next((ln[4:].strip() for ln in lines if ln.startswith("why:")), "")
        if not why:
            raise SystemExit(f"{path}: the entry for {where} {removed} has no `why:` line")
        found[(where, removed, added)] = why
    return found


def mutmut(workdir: Path, *args: str) -> str:
    exe = Path(sys.executable).parent / "mutmut"
    done = subprocess.run([str(exe), *args], cwd=workdir, capture_output=True, text=True)
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", default="table_service/rules", choices=sorted(PACKAGES))
    parser.add_argument("--workdir", type=Path, help="the copy's folder (default: a new temp one)")
    parser.add_argument("--keep", action="store_true", help="keep the copy and mutmut's cache")
    parser.add_argument(
        "--with-properties",
        action="store_true",
        help="also run the package's Hypothesis tests (mutation profile)",
    )
    parser.add_argument(
        "--files",
        help="only these files of the package, comma-separated (items.py,scoring.py)",
    )
    parser.add_argument(
        "--child-timeout", type=float, default=300.0,
        help="seconds a mutant's run may take before it counts as hung (the mirror's whole "
        "selection took over 60 s on a busy 2-core machine)",
    )  # fmt: skip
    parser.add_argument("--client", help=argparse.SUPPRESS)
    parser.add_argument("--line", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.client:
        return client(opts.client, opts.line)

    started = time.monotonic()
    workdir = opts.workdir or Path(tempfile.mkdtemp(prefix="mjtable-mutation-"))
    if ROOT in (workdir.resolve(), *workdir.resolve().parents):
        parser.error("--workdir must be outside the checkout (mutmut edits files in place)")
    workdir.mkdir(parents=True, exist_ok=True)
    for name in COPY:
        source, target = ROOT / name, workdir / name
        if target.exists():
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        if source.is_dir():
            shutil.copytree(source, target, ignore=SKIP)
        elif source.exists():
            shutil.copy2(source, target)
    selection = PACKAGES[opts.package]
    args = pytest_args(selection, opts.with_properties)

    # The children import the copy, never this checkout (nor the editable install).
    os.chdir(workdir)
    sys.path.insert(0, str(workdir))
    os.environ["MJTABLE_HYPOTHESIS_PROFILE"] = "mutation"
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"  # a mutant is always compiled from source
    sys.dont_write_bytecode = True
    preload()
    top = opts.package.split("/")[0]
    assert not any(m == top or m.startswith(f"{top}.") for m in sys.modules), top

    paths = opts.package
    if opts.files:
        paths = ",".join(f"{opts.package}/{name.strip()}" for name in opts.files.split(","))
    lines = map_lines(workdir, opts.package, args)
    print(f"mapped {len(lines)} lines of {opts.package} to their tests", flush=True)
    address = str(workdir / "runner.sock")
    runner = f"{sys.executable} -I {Path(__file__).resolve()} --client {address}"
    # mutmut's hook: each mutant's runner names its line, so the server picks its tests.
    # A line run at import (or by no test) keeps the whole selection: no second run.
    # A mutant of what is never evaluated is skipped (bench/mutation_skip.py).
    (workdir / "mutmut_config.py").write_text(
        "import json, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})\n"
        "from mutation_skip import skipped\n"
        "LINES = json.load(open('linemap.json'))\n"
        "def pre_mutation(context):\n"
        "    if skipped(context):\n"
        "        context.skip = True\n"
        "        return\n"
        "    line = f'{context.filename}:{context.current_line_index + 1}'\n"
        f"    if '{IMPORT}' not in LINES.get(line, ['{IMPORT}']):\n"
        "        context.config.test_command += ' --line ' + line\n"
    )
    # mutmut drops a hook it cannot import without a word (and runs every mutant on the
    # whole selection, none skipped): make sure it can.
    subprocess.run(
        [sys.executable, "-c", "import mutmut; assert mutmut.mutmut_config is not None"],
        cwd=workdir, check=True,
    )  # fmt: skip
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        if os.path.exists(address):
            os.unlink(address)
        server.bind(address)
        server.listen(1)
        command = [
            str(Path(sys.executable).parent / "mutmut"), "run",
            "--paths-to-mutate", paths,
            "--tests-dir", str(Path(selection.tests[0]).parent),
            "--runner", runner, "--rerun-all",
            "--no-progress", "--simple-output",
        ]  # fmt: skip
        print(f"mutating {opts.package} in {workdir}; tests: pytest {' '.join(args)}", flush=True)
        with subprocess.Popen(command, cwd=workdir) as run:
            serve(server, run, workdir, args, lines, opts.child_timeout)
    elapsed = time.monotonic() - started

    counts = {}
    for status in ("killed", "timeout", "suspicious", "survived", "skipped", "untested"):
        out = mutmut(workdir, "result-ids", status).split()
        counts[status] = [int(i) for i in out if i.isdigit()]
    equivalent = load_equivalent()
    survivors = [parse_diff(mutmut(workdir, "show", str(i))) for i in counts["survived"]]
    unexplained = [m for m in survivors if m.key() not in equivalent]
    listed = {m.key() for m in survivors}
    mutated = tuple(paths.split(","))
    stale = [k for k in equivalent if k[0].startswith(mutated) and k not in listed]

    total = sum(len(v) for v in counts.values())
    print(f"\n{paths}: {total} mutants in {elapsed:.0f} s")
    for status, ids in counts.items():
        print(f"  {status:<10} {len(ids)}")
    print(f"  equivalent {len(survivors) - len(unexplained)} (listed in {EQUIVALENT.name})")
    for m in unexplained:
        print(f"\nSURVIVOR (not listed as equivalent):\n{m.show()}")
    for where, removed, added in stale:
        shown = Mutant(where, removed, added).show()
        print(f"\nSTALE entry (no longer a survivor):\n{shown}")
    if not opts.keep and opts.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        print(f"\nmutmut's cache kept in {workdir} (`mutmut show ID` there)")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
