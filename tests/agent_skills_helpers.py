"""Sample Agent Skills folders (SKILL.md) and archive builders for the interop tests."""
from __future__ import annotations

import os
import zipfile
from pathlib import Path

PDF_SKILL_MD = """---
name: pdf-processing
description: >
  Extract text and tables from PDF files, fill PDF forms and merge PDFs.
  Use when the user works with PDF documents.
license: Apache-2.0
compatibility: Requires Python 3.10+
allowed-tools: Bash(python:*) Read
metadata:
  author: example-org
  version: "1.0"
---

# PDF processing

1. Read [the reference](references/REFERENCE.md) for the form fields.
2. Run scripts/extract.py on the file.
"""

UNICODE_SKILL_MD = """---
name: data-analysis
description: "数据分析助手：读取表格、计算统计量并画图 📊。用户提到「分析」「统计」或上传 CSV 时使用。"
---
# 数据分析

先阅读 references/统计方法.md，再按步骤分析。
"""


def write_agent_skill(root: Path, folder: str, skill_md: str, files: dict[str, str | bytes] | None = None) -> Path:
    """root/folder/SKILL.md plus `files` (relative path -> text or bytes)."""
    path = Path(root) / folder
    path.mkdir(parents=True, exist_ok=True)
    (path / "SKILL.md").write_text(skill_md, encoding="utf-8")
    for relative, content in (files or {}).items():
        target = path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return path


def pdf_skill(root: Path) -> Path:
    return write_agent_skill(root, "pdf-processing", PDF_SKILL_MD, {
        "references/REFERENCE.md": "# Form fields\n\nname, date, signature\n",
        "scripts/extract.py": "import sys\nprint(open(sys.argv[1], 'rb').read()[:4])\n",
        "assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    })


def unicode_skill(root: Path) -> Path:
    return write_agent_skill(root, "data-analysis", UNICODE_SKILL_MD, {
        "references/统计方法.md": "均值、中位数、标准差。\n",
    })


def zip_folder(folder: Path, archive: Path, top: bool = True) -> Path:
    """Zip `folder` (as a top folder in the archive, or its contents at the root)."""
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as handle:
        for root, _dirs, files in os.walk(folder):
            for name in files:
                path = Path(root) / name
                relative = path.relative_to(folder.parent if top else folder)
                handle.write(path, relative.as_posix())
    return archive


def snapshot(root: Path) -> dict[str, bytes]:
    """Every entry under root (hidden ones included): relative path -> bytes (b"<dir>" for folders)."""
    found: dict[str, bytes] = {}
    for path in sorted(Path(root).rglob("*")):
        key = path.relative_to(root).as_posix()
        found[key] = b"<dir>" if path.is_dir() else path.read_bytes()
    return found
