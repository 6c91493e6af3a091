"""Layering rules of DESIGN §2, checked on the source: core is Qt-free and HTTP-free, api never imports ui."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "kiraos_desktop"

FORBIDDEN = {
    "core": ("PySide6", "shiboken6", "starlette", "uvicorn", "httpx", "kiraos_desktop.ui", "kiraos_desktop.api"),
    "api": ("PySide6", "shiboken6", "kiraos_desktop.ui"),
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


#: The storage shapes: only core (the engine opens one, transfer copies between them) may name them.
STORAGE_SHAPES = ("kiraos_desktop.core.storage.sqlite", "kiraos_desktop.core.storage.postgres")


@pytest.mark.parametrize("layer", ["ui", "api", "cli"])
def test_pages_routes_and_commands_hold_the_store_protocol_only(layer):
    offenders = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for name in imported_modules(path):  # ast.walk: imports inside functions too
            if any(name == shape or name.startswith(shape + ".") for shape in STORAGE_SHAPES):
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offenders == []


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_point_one_way(layer):
    offenders = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for name in imported_modules(path):
            if any(name == bad or name.startswith(bad + ".") for bad in FORBIDDEN[layer]):
                offenders.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert offenders == []


def test_every_module_has_a_docstring_and_stays_small():
    problems = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if ast.get_docstring(ast.parse(text)) is None:
            problems.append(f"{path.relative_to(PACKAGE)}: no module docstring")
        if text.count("\n") > 800:
            problems.append(f"{path.relative_to(PACKAGE)}: over 800 lines, split it")
    assert problems == []


def test_using_the_core_loads_no_qt_and_no_http(tmp_path):
    code = (
        "import sys\n"
        "from kiraos_desktop.core.engine import Engine\n"
        f"e = Engine.open(data_dir={str(tmp_path / 'd')!r})\n"
        "e.tools.call('memory_update', 'u', {'operations': [{'op': 'event', 'value': 'x'}]})\n"
        "e.context.build(['u'])\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'starlette', 'uvicorn')]\n"
        "print(loaded)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_every_ui_module_uses_qt():
    """Qt-free logic belongs in core (where the CLI and the API can use it too); and the translation
    catalogue is extracted from the modules that import PySide6, so a ui module without it loses its texts."""
    missing = [str(path.relative_to(PACKAGE)) for path in sorted((PACKAGE / "ui").rglob("*.py"))
               if path.name != "__init__.py"
               and not any(name.split(".")[0] == "PySide6" for name in imported_modules(path))]
    assert missing == []



def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_level_imports(path: Path, modules: set[str]) -> set[str]:
    """The package modules `path` imports at module level (type-checking imports included, imports
    inside functions left out)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(nodes) -> None:
        for node in nodes:
            if isinstance(node, (ast.If, ast.Try)):
                for block in (node.body, node.orelse, *[h.body for h in getattr(node, "handlers", [])]):
                    visit(block)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(parent + ([base] if base else []))
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return {m for m in found if m in modules and m != name}


def test_no_import_cycles():
    """No module needs, at module level, one that needs it back (a cycle hidden in TYPE_CHECKING
    counts: the modules still depend on each other)."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: _module_level_imports(path, set(paths)) for name, path in paths.items()}
    cycles = []
    for start in graph:
        stack, seen = [(start, [start])], set()
        while stack:
            node, trail = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    cycles.append(" -> ".join(trail + [start]))
                elif nxt not in seen and nxt > start:  # each cycle once, from its smallest module
                    seen.add(nxt)
                    stack.append((nxt, trail + [nxt]))
    assert cycles == []


def test_a_write_batch_does_not_reach_back_into_the_store():
    """The store opens batches; a batch gets what it needs of the store as an argument (BatchStore)."""
    batch = imported_modules(PACKAGE / "core" / "storage" / "sql_write_batch.py")
    assert "kiraos_desktop.core.storage.sqlite.store" not in batch and "kiraos_desktop.core.storage.sql_store" not in batch


SHAPES = ("sqlite", "postgres", "tree")


def test_no_store_shape_imports_another_and_the_shared_sql_imports_none():
    """Issue 52: the PostgreSQL batch inherited the batch in storage/sqlite/, and the revert and the
    user search imported SQLite modules. What two shapes share lives in storage/ itself."""
    offenders = []
    for path in sorted((PACKAGE / "core" / "storage").rglob("*.py")):
        parts = path.relative_to(PACKAGE / "core" / "storage").parts
        if parts == ("protocol.py",):
            continue  # the seam itself names the tree it hands the 3.x window (entity_tree)
        own = parts[0] if len(parts) > 1 else None
        for name in imported_modules(path):
            for shape in SHAPES:
                if shape != own and name.startswith(f"kiraos_desktop.core.storage.{shape}"):
                    offenders.append(f"{'/'.join(parts)} imports {name}")
    assert offenders == []


def _import_graph() -> dict[str, set[str]]:
    """Every module of the package and the package modules it imports (at module level or inside a
    function: a deferred import is still a dependency)."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.with_suffix("").relative_to(PACKAGE.parent).parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def test_no_import_cycle():
    graph = _import_graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles = []

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def _core_package(module: str) -> str | None:
    """`memory` for kiraos_desktop.core.memory.records; a module directly in core is its own unit."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["kiraos_desktop", "core"] else None


def test_no_two_core_packages_import_each_other():
    """Issue 52: eight pairs did (memory <-> storage, storage <-> recall, ...), so no package was a layer.
    The order now: memory (records, changes) and recall, search below storage; context above it;
    tools (the memory tools) above context; a deferred or TYPE_CHECKING import counts."""
    edges: dict[str, dict[str, set[str]]] = {}
    for name, targets in _import_graph().items():
        source = _core_package(name)
        for target in targets:
            goal = _core_package(target)
            if source and goal and goal != source:
                edges.setdefault(source, {}).setdefault(goal, set()).add(f"{name} -> {target}")
    pairs = sorted(f"{a} <-> {b}: {sorted(edges[a][b])[0]} / {sorted(edges[b][a])[0]}"
                   for a in edges for b in edges[a] if a < b and a in edges.get(b, {}))
    assert pairs == []
