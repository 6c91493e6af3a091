"""Does rjieba cut Chinese text as jieba does? The KiraOS 3.x plugin fills its FTS index with jieba's precise
mode (`jieba.lcut(text)`, blanks left out, joined by spaces); we write index rows and rank recall with
rjieba (jieba's algorithm and dictionary in Rust, no Python dependency to freeze). This compares the two
on a corpus of sentences, twice: the words each segmenter gives, and the terms the index then holds
(FTS5's unicode61 tokenizer cuts the joined words again at everything but letters and digits, so
"memory_update" and "memory _ update" both become the terms "memory" and "update"). What matters for
recall is the second; exit status 1 when any sentence gives other index terms.

python bench/segmenter_check.py [--sentences 10000] FILE_OR_FOLDER ...

Needs both `jieba` and `rjieba` importable: run it with a Python that has jieba (it is not one of our
dependencies), e.g. a throw-away virtual environment. Sentences are the lines of the files given, cut at
。！？!? and newlines, kept when they hold a Chinese character, each once, in the order found. When the
files hold fewer than --sentences, the rest are made by joining two found sentences (seeded), so that
words meet across the joins. Exit status 1 when any sentence is cut differently.
"""
from __future__ import annotations

import argparse
import random
import re
import sys
import sqlite3
from pathlib import Path

_SPLIT = re.compile(r"[。！？!?\n]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def sentences_of(paths: list[Path]) -> list[str]:
    found: dict[str, None] = {}
    for root in paths:
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for path in files:
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            for piece in _SPLIT.split(text):
                piece = piece.strip()
                if _CJK.search(piece) and 2 <= len(piece) <= 200:
                    found.setdefault(piece, None)
    return list(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--sentences", type=int, default=10000)
    args = parser.parse_args()
    try:
        import jieba
        import rjieba
    except ImportError as exc:
        print(f"needs jieba and rjieba importable ({exc}): run it with a Python that has both", file=sys.stderr)
        return 2
    jieba.setLogLevel(60)
    corpus = sentences_of(args.paths)
    found = len(corpus)
    rng = random.Random(3)
    while found and len(corpus) < args.sentences:
        corpus.append(rng.choice(corpus[:found]) + rng.choice(corpus[:found]))
    corpus = corpus[:args.sentences]
    words_differ, terms_differ = [], []
    tokens = 0
    index = TermReader()
    for sentence in corpus:
        theirs = [t for t in jieba.lcut(sentence) if t.strip()]
        ours = [t for t in rjieba.cut(sentence) if t.strip()]
        tokens += len(theirs)
        if theirs != ours:
            words_differ.append(sentence)
            if index.terms(" ".join(theirs)) != index.terms(" ".join(ours)):
                terms_differ.append((sentence, theirs, ours))
    print(f"{len(corpus)} sentences ({found} found in the files, {len(corpus) - found} joined), {tokens} jieba words")
    print(f"  words cut differently: {len(words_differ)} sentences (e.g. {words_differ[:3]!r})")
    print(f"  index terms that differ: {len(terms_differ)} sentences")
    for sentence, theirs, ours in terms_differ[:20]:
        print(f"  {sentence!r}\n    jieba:  {' '.join(theirs)}\n    rjieba: {' '.join(ours)}")
    return 1 if terms_differ else 0


class TermReader:
    """The terms FTS5's unicode61 tokenizer makes of a text (the plugin's memories_fts uses it), in order."""

    def __init__(self) -> None:
        self._conn = sqlite3.connect(":memory:")
        self._conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='unicode61')")
        self._conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")

    def terms(self, text: str) -> list[str]:
        self._conn.execute("DELETE FROM t")
        self._conn.execute("INSERT INTO t (x) VALUES (?)", (text,))
        return [row[0] for row in self._conn.execute("SELECT term FROM v ORDER BY offset")]


if __name__ == "__main__":
    sys.exit(main())
