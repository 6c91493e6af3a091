"""The README and docs/ name only modules and files that exist: a module that moves takes its mentions along."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kiraos_desktop"
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

#: A backquoted path into the package (`core/engine.py`, `ui/entities/`, `kiraos_desktop/api/app.py`,
#: `core/memory/history.revert_changes`), or into the checkout's tests/, bench/ or tools/ folders.
#: `cli.py` and `cli/...` count too: the command line is a package of the project. A call's arguments
#: after the name (`core/dialect.pg_sql()`) are left out. In tests/, bench/ and tools/ only a file
#: (with its extension) or a folder (with its slash) counts: `tools/call` is an MCP method.
PATH_MENTION = re.compile(
    r"`((?:kiraos_desktop/)?(?:core|api|ui|cli)(?:/[\w.]+)*/?|cli\.py"
    r"|(?:tests|bench|tools)/[\w/]*(?:\.\w+|/))(?:\([^`]*\))?`")


def mentioned_paths(text: str) -> list[str]:
    return [match.group(1) for match in PATH_MENTION.finditer(text)]


def resolves(mention: str) -> bool:
    """Whether the mention names a package, a module (with or without `.py`), a file, or a name
    inside a module (`core/memory/history.revert_changes`)."""
    if mention.startswith(("tests/", "bench/", "tools/")):
        base = ROOT
    else:
        base = PACKAGE
        mention = mention.removeprefix("kiraos_desktop/")
    path = mention.rstrip("/")
    if path in ("core", "api", "ui", "cli"):
        return (base / path).is_dir()
    candidates = [path]
    if not path.endswith(".py"):
        candidates.append(path + ".py")
    head, dot, _attribute = path.rpartition(".")
    if dot and "/" in head and not path.endswith(".py"):
        candidates += [head, head + ".py"]  # module.name
    return any((base / candidate).exists() for candidate in candidates)


def test_the_pattern_finds_and_judges_mentions():
    text = ("See `core/engine.py`, `ui/entities/`, `core/storage/revert.revert_changes`, `core/nowhere`,"
            " `core/schema.ensure_schema(db)` and the method `tools/call`.")
    assert mentioned_paths(text) == ["core/engine.py", "ui/entities/", "core/storage/revert.revert_changes",
                                     "core/nowhere", "core/schema.ensure_schema"]
    assert [resolves(m) for m in mentioned_paths(text)] == [True, True, True, False, False]
    assert not resolves("cli.py")  # the command line is a package now
    assert resolves("tests/test_architecture.py") and not resolves("tests/test_nothing_here.py")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_documents_name_only_paths_that_exist(document):
    missing = sorted({m for m in mentioned_paths(document.read_text(encoding="utf-8")) if not resolves(m)})
    assert missing == [], f"{document.relative_to(ROOT)} names paths that do not exist: {missing}"
