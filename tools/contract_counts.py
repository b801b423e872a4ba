"""Count how far the adapters are from reading only what a model declares.

Five counts, read from the source's syntax trees (no import of bayeskit):

``isinstance``
    ``isinstance``/``issubclass`` tests naming a bayeskit model class (a class whose bases lead,
    by name, to scikit-learn's ``BaseEstimator``) in modules outside the model packages;
``private reads``
    reads of another object's private attribute, ``obj._name`` where ``obj`` is not ``self``
    or ``cls`` and not an imported module (a read of the module's own names is no back door);
``hook probes``
    ``getattr(obj, "_name", …)`` / ``hasattr(obj, "_name")`` where a model class defines
    ``_name``: asking a model whether it has a private hook (probes of other libraries'
    internals, numba's cache classes or a codec's flag, are not counted);
``circles``
    groups of modules that import each other, directly or round a ring (strongly connected
    components of the import graph; imports inside functions and for type checkers included: a
    lazy import is still a dependency);
``upward imports``
    imports running from a lower layer to a higher one, by the layers of the design note
    (leaves → stats → families → the template → models → wrappers → io → report → serve → dask →
    cli).

Run ``python tools/contract_counts.py`` for the counts, ``--list`` for every site counted, or
``--json`` for the counts as JSON (what tests/test_contract.py reads).
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "bayeskit"

#: top-level parts of bayeskit whose classes are the models (their own isinstance is no adapter's)
MODEL_PARTS = {
    "_base",
    "_estimators",
    "contract",
    "naive_bayes",
    "discriminant",
    "mixture",
    "parzen",
    "bayesnet",
    "text",
}

#: the layers of the design note, lowest first; a module may import its own layer or lower ones
LAYERS: list[set[str]] = [
    {
        "errors",
        "_validation",
        "_values",
        "_jit",
        "_insertion",
        "_in_order",
        "_lazy",
        "_threads",
        "_blas",
        "_decision",
        "_labels",
        "_identity",
        "_registry",
        "_version",
        "__init__",
        "__main__",
        "_schema",
        "_params",
        "_folds",
        "_visible",
    },
    {"stats"},
    {"families"},
    {"_base", "contract", "_rounds", "_merging", "_all_or_nothing"},
    {
        "naive_bayes",
        "discriminant",
        "mixture",
        "parzen",
        "bayesnet",
        "text",
        "_selector",
        "_usefulness",
        "inspection",
        "_estimators",
        "datasets",
    },
    {"semi_supervised", "reduction"},
    {"io"},
    {"report"},
    {"serve"},
    {"dask"},
    {"cli"},
]


def modules() -> dict[str, ast.Module]:
    """Every module of the package by dotted name (``bayeskit.text.vectorize``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return found


def part(module: str) -> str:
    """The top-level part of bayeskit a module belongs to (``text`` for ``bayeskit.text.x``)."""
    pieces = module.split(".")
    return pieces[1] if len(pieces) > 1 else "__init__"


def model_classes(trees: dict[str, ast.Module]) -> set[str]:
    """Names of the classes whose bases lead by name to ``BaseEstimator``."""
    bases: dict[str, set[str]] = {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names = {_last_name(b) for b in node.bases}
                bases.setdefault(node.name, set()).update(n for n in names if n)
    models = {"BaseEstimator"}
    changed = True
    while changed:
        changed = False
        for name, parents in bases.items():
            if name not in models and parents & models:
                models.add(name)
                changed = True
    return models - {"BaseEstimator"}


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Subscript):
        return _last_name(node.value)
    return None


def _names_in(node: ast.expr) -> Iterator[str]:
    for sub in ast.walk(node):
        name = _last_name(sub) if isinstance(sub, (ast.Name, ast.Attribute)) else None
        if name:
            yield name


def isinstance_sites(trees: dict[str, ast.Module]) -> list[str]:
    models = model_classes(trees)
    sites = []
    for module, tree in trees.items():
        if part(module) in MODEL_PARTS:
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass")
                and len(node.args) == 2
            ):
                named = sorted(set(_names_in(node.args[1])) & models)
                if named:
                    sites.append(f"{module}:{node.lineno} {node.func.id} {', '.join(named)}")
    return sites


def _imported_modules(tree: ast.Module) -> set[str]:
    """Local names bound to modules by ``import x`` / ``from . import x`` (and ``np`` & co.)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            for alias in node.names:
                local = alias.asname or alias.name
                # ``from . import text`` binds a module; ``from .x import y`` may bind either:
                # a name that starts lower-case and has no underscore-led class is taken as a
                # module only when it is a package part (checked by the caller's file list).
                if node.module is None or alias.name[:1].islower():
                    names.add(local)
    return names


def private_reads(trees: dict[str, ast.Module]) -> list[str]:
    package_modules = {m.rsplit(".", 1)[-1] for m in trees}
    sites = []
    for module, tree in trees.items():
        imported = _imported_modules(tree) & (package_modules | {"np", "sp", "numba", "os", "sys"})
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Load)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                continue
            owner = node.value
            if isinstance(owner, ast.Name) and (
                owner.id in ("self", "cls") or owner.id in imported
            ):
                continue
            if isinstance(owner, ast.Call) and _last_name(owner.func) == "super":
                continue
            sites.append(f"{module}:{node.lineno} .{node.attr}")
    return sites


def model_members(trees: dict[str, ast.Module]) -> set[str]:
    """Names defined in the body of a model class: its methods and class-level values."""
    models = model_classes(trees)
    names = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in models:
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names.add(item.name)
                    elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        names.add(item.target.id)
                    elif isinstance(item, ast.Assign):
                        names.update(t.id for t in item.targets if isinstance(t, ast.Name))
    return names


def hook_probes(trees: dict[str, ast.Module]) -> list[str]:
    hooks = model_members(trees)
    sites = []
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and node.args[1].value.startswith("_")
                and not node.args[1].value.startswith("__")
                and node.args[1].value in hooks
            ):
                owner = node.args[0]
                if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                    continue
                sites.append(f"{module}:{node.lineno} {node.func.id} {node.args[1].value}")
    return sites


def import_graph(trees: dict[str, ast.Module]) -> dict[str, set[str]]:
    """Module -> the bayeskit modules it imports (anywhere in it: lazily, or only for type
    checkers, which read the module too)."""
    graph: dict[str, set[str]] = {}
    for module, tree in trees.items():
        is_package = (PACKAGE / Path(*module.split(".")[1:]) / "__init__.py").exists()
        base = module if is_package else module.rsplit(".", 1)[0]
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = base.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    stem = ".".join([*anchor, node.module] if node.module else anchor)
                elif node.module and node.module.startswith("bayeskit"):
                    stem = node.module
                else:
                    continue
                for alias in node.names:
                    full = f"{stem}.{alias.name}"
                    targets.add(full if full in trees else stem)
            elif isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.startswith("bayeskit"))
        graph[module] = {t for t in targets if t in trees and t != module}
    return graph


def circles(graph: dict[str, set[str]]) -> list[str]:
    """Strongly connected components of more than one module (Tarjan), packages' ``__init__``
    re-exports left out: importing ``bayeskit.text`` for one name is no circle of its own."""
    edges = {m: {t for t in ts if not _is_reexport(m, t)} for m, ts in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[str] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(" <-> ".join(sorted(group)))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _is_reexport(module: str, target: str) -> bool:
    """An edge to or from a package's ``__init__`` within that package."""
    return target.startswith(module + ".") or module.startswith(target + ".")


def layer(module: str) -> int:
    name = part(module)
    for rank, members in enumerate(LAYERS):
        if name in members:
            return rank
    raise KeyError(f"{module}: add its part {name!r} to a layer in LAYERS")


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    sites = []
    for module, targets in sorted(graph.items()):
        if part(module) in ("__init__", "__main__"):
            continue  # the package's door and entry point load names on demand from anywhere
        for target in sorted(targets):
            if part(target) != "__init__" and layer(target) > layer(module):
                sites.append(f"{module} -> {target}")
    return sites


def measure() -> dict[str, list[str]]:
    trees = modules()
    graph = import_graph(trees)
    return {
        "isinstance": isinstance_sites(trees),
        "private reads": private_reads(trees),
        "hook probes": hook_probes(trees),
        "circles": circles(graph),
        "upward imports": upward_imports(graph),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="print every site counted")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = parser.parse_args(argv)
    found = measure()
    if args.json:
        print(json.dumps({k: len(v) for k, v in found.items()}))
        return 0
    for name, sites in found.items():
        print(f"{name:16} {len(sites)}")
        if args.list:
            for site in sites:
                print(f"    {site}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
