"""The layout a newcomer is promised (README, "The folders"): the parts import each other
only downwards, the modules import each other in no cycle, and `pip install .` puts no
test code on a club's machine."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[1]
# The parts from the bottom up: each may import the parts below it, never one above.
LAYERS = (
    "firmware_bridge",
    "table_service.rules",
    "table_service.mirror",
    "table_service.live",
    "table_service.store",
    "table_service.service",
    "table_sim",
    "dashboard",
    "mjtable",
)
TESTS = ("tests", "hil_tests")


def _modules() -> dict[str, Path]:
    found = {}
    for top in {layer.partition(".")[0] for layer in LAYERS}:
        for path in (ROOT / top).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts or "node_modules" in parts:
                continue  # Alembic's scripts are loaded by Alembic, by path
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The project modules a module imports, wherever it does (a function's import
    included; not what only the type checker reads)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []  # ast.walk has not gone into it yet
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - max(node.level - 1, 0)]
            module = ".".join([*base, node.module or ""]).strip(".") if node.level else node.module
            assert module is not None
            subs = {f"{module}.{a.name}" for a in node.names} & known.keys()
            out |= subs or {module}  # `from pkg import submodule` imports the submodule
    return {m for m in out if m in known and m != name}


def _layer(module: str) -> int:
    matches = [
        i for i, layer in enumerate(LAYERS) if module == layer or module.startswith(layer + ".")
    ]
    return matches[-1] if matches else -1


def test_the_parts_import_only_downwards_and_no_test_code() -> None:
    known = _modules()
    upward = []
    for name, path in known.items():
        for imported in _imports(name, path, known):
            if _layer(imported) > _layer(name):
                upward.append(f"{name} imports {imported}")
    assert upward == []
    for path in known.values():  # nothing the product ships reads the tests
        text = path.read_text(encoding="utf-8")
        assert not any(f"from {t}" in text or f"import {t}" in text for t in TESTS), path


def test_the_modules_import_each_other_in_no_cycle() -> None:
    known = _modules()
    graph = {name: _imports(name, path, known) for name, path in known.items()}
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            raise AssertionError(
                "an import cycle: " + " -> ".join([*trail[trail.index(name) :], name])
            )
        if name in done:
            return
        for imported in sorted(graph[name]):
            visit(imported, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


def test_pip_install_puts_no_test_code_on_a_club_machine() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    installed = find_packages(str(ROOT), include=include)
    assert {"table_service", "firmware_bridge", "table_sim", "mjtable", "dashboard"} <= set(
        installed
    )
    assert [p for p in installed if p.partition(".")[0] in TESTS] == []


def test_the_readme_folder_table_is_the_layout_on_disk() -> None:
    """Every folder at the top of the checkout has its row in the README's table of
    folders, and every row names a folder that is there."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("| folder | what it holds |", 1)[1].split("\n\n", 1)[0]
    rows = {line.split("`")[1].rstrip("/") for line in table.splitlines() if line.startswith("| `")}
    on_disk = {
        p.name
        for p in ROOT.iterdir()
        if p.is_dir() and not p.name.startswith(".") and not p.name.endswith(".egg-info")
    }
    on_disk -= {"node_modules", "build", "dist", "__pycache__"}
    tops = {row.split("/")[0] for row in rows}
    assert tops == on_disk, (sorted(on_disk - tops), sorted(tops - on_disk))
    for row in rows:
        assert (ROOT / row).is_dir(), f"the README names {row}/, which is not there"
