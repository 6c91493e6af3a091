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
