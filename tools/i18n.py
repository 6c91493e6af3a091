"""Update, check and compile the window's translations (Qt Linguist catalogues in resources/i18n/).

    python tools/i18n.py update    # re-extract every tr() string into the .ts catalogues
    python tools/i18n.py check     # what is untranslated, unfinished, vanished or malformed (exit 1 if any)
    python tools/i18n.py compile [TS ...]   # .ts -> .qm next to them (the build and `make run` do this for you)

How to change or add a UI string (`make i18n` runs update + check):
  1. Write it through tr(): `self.tr("Saved {name}").format(name=...)` in a QObject subclass, or
     `QCoreApplication.translate("Context", "...")` (often aliased `translate = QCoreApplication.translate`)
     in a module-level function; the context must be a string literal. No f-strings inside tr().
     Counts use Qt's plurals: `self.tr("%n users", "", count)`.
  2. Run `python tools/i18n.py update`. New strings appear in resources/i18n/kiraos_desktop_zh_CN.ts as
     `<translation type="unfinished">`; plural strings also appear in kiraos_desktop_en.ts (English plural forms).
  3. Translate them: edit the .ts by hand (or with `pyside6-linguist`), write the translation and drop
     `type="unfinished"`. For `%n` strings fill every `<numerusform>` (Chinese has one, English two: "1 user",
     "%n users"). Keep `{placeholders}`, `%n` and the `&` accelerator (Chinese style: `文件(&F)`).
  4. Run `python tools/i18n.py check` (tests/test_i18n.py does the same), commit the .ts files with the code.
     Never commit .qm files: they are built.

lupdate takes an explicit file list (given a folder it finds nothing in Python files): the list is every .py
file of the package that imports PySide6 (source_files() below). Locations are not written into the
catalogues, so moving code does not change them.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kiraos_desktop"


def _catalogues_module():
    """kiraos_desktop/catalogues.py loaded on its own (no package import, no Qt)."""
    spec = importlib.util.spec_from_file_location("_kiraos_catalogues", PACKAGE / "catalogues.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


catalogues = _catalogues_module()
I18N_DIR = ROOT / "resources" / catalogues.FOLDER


def catalogue_path(language: str) -> Path:
    return I18N_DIR / (catalogues.catalogue_stem(language) + ".ts")


def source_files() -> list[Path]:
    """Every module of the package that can call tr(): those importing PySide6."""
    return sorted(path for path in PACKAGE.rglob("*.py")
                  if "__pycache__" not in path.parts and "PySide6" in path.read_text(encoding="utf-8"))


def run_lupdate(ts_file: Path, language: str, keep_obsolete: bool = False) -> None:
    tool = catalogues.qt_tool("lupdate")
    if tool is None:
        raise SystemExit("lupdate not found: install PySide6-Essentials (it ships pyside6-lupdate)")
    args = [str(tool), "-silent", "-locations", "none", "-source-language", catalogues.SOURCE_LANGUAGE,
            "-target-language", language]
    if not keep_obsolete:
        args.append("-no-obsolete")
    if language == catalogues.SOURCE_LANGUAGE:
        args.append("-pluralonly")
    files = [str(path) for path in source_files()]
    result = subprocess.run([*args, *files, "-ts", str(ts_file)], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    if result.returncode != 0:
        raise SystemExit(f"lupdate failed: {result.stderr.strip() or result.stdout.strip()}")


def update() -> None:
    I18N_DIR.mkdir(parents=True, exist_ok=True)
    for language in catalogues.LANGUAGES:
        run_lupdate(catalogue_path(language), language)
        print(f"updated {catalogue_path(language).relative_to(ROOT)}")


_PLACEHOLDER = re.compile(r"\{[A-Za-z_0-9]*\}")
_ACCELERATOR = re.compile(r"&(?!&)\S")


def _texts(message: ET.Element) -> list[str]:
    translation = message.find("translation")
    if translation is None:
        return []
    forms = translation.findall("numerusform")
    return [form.text or "" for form in forms] if forms else [translation.text or ""]


def message_problems(ts_file: Path) -> list[str]:
    """What is wrong with the messages of one catalogue, one line each ('' source = all is well)."""
    problems = []
    for context in ET.parse(ts_file).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            where = f"{ts_file.name} [{name}] {source!r}"
            translation = message.find("translation")
            kind = translation.get("type") if translation is not None else "missing"
            if kind in ("vanished", "obsolete"):
                problems.append(f"{where}: no longer in the source (run tools/i18n.py update)")
                continue
            if kind == "unfinished":
                problems.append(f"{where}: not translated yet (unfinished)")
                continue
            texts = _texts(message)
            if not texts or not all(text.strip() for text in texts):
                problems.append(f"{where}: empty translation")
                continue
            wanted = sorted(_PLACEHOLDER.findall(source))
            for text in texts:
                if sorted(_PLACEHOLDER.findall(text)) != wanted:
                    problems.append(f"{where}: the translation {text!r} does not keep the placeholders {wanted}")
                if message.get("numerus") == "yes" and "%n" not in text and "%Ln" not in text and len(texts) == 1:
                    problems.append(f"{where}: the translation {text!r} lost %n")
                if _ACCELERATOR.search(source) and not _ACCELERATOR.search(text):
                    problems.append(f"{where}: the translation {text!r} lost the & accelerator")
    return problems


def fstrings_in_tr() -> list[str]:
    """tr()/translate() calls whose text is an f-string: lupdate would extract the unformatted braces."""
    problems = []
    for path in source_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                    "tr", "translate") and any(isinstance(arg, ast.JoinedStr) for arg in node.args):
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                problems.append(f"{where}:{node.lineno}: f-string inside tr(); use .format()")
    return problems


def check() -> list[str]:
    """Re-extract the sources into copies of the committed catalogues and report every problem."""
    problems = fstrings_in_tr()
    with tempfile.TemporaryDirectory(prefix="kiraos-i18n-") as scratch:
        for language in catalogues.LANGUAGES:
            committed = catalogue_path(language)
            if not committed.is_file():
                problems.append(f"{committed.relative_to(ROOT)} is missing (run tools/i18n.py update)")
                continue
            fresh = Path(scratch, committed.name)
            fresh.write_bytes(committed.read_bytes())
            run_lupdate(fresh, language, keep_obsolete=True)
            problems += message_problems(fresh)
    return problems


def compile_all(target: Path = I18N_DIR) -> list[Path]:
    return catalogues.compile_folder(I18N_DIR, target)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("update", "check", "compile", "files"))
    parser.add_argument("--out", type=Path, default=I18N_DIR, help="folder for the .qm files (compile)")
    parser.add_argument("catalogues", nargs="*", type=Path,
                        help="compile: only these .ts files (default: every catalogue)")
    args = parser.parse_args(argv)
    if args.command == "update":
        update()
    elif args.command == "files":
        print("\n".join(str(path.relative_to(ROOT)) for path in source_files()))
    elif args.command == "compile":
        compiled = ([catalogues.compile_catalogue(ts, args.out / (ts.stem + ".qm")) for ts in args.catalogues]
                    if args.catalogues else compile_all(args.out))
        for qm in compiled:
            print(f"compiled {qm}")
    problems = check() if args.command in ("update", "check") else []
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print(f"{len(problems)} translation problem(s)", file=sys.stderr)
    return 1 if problems and args.command == "check" else 0


if __name__ == "__main__":
    sys.exit(main())
