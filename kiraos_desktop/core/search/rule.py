"""The one search rule of the user list and of the 3.x entity list: what a search text finds.

A text is cut into words as recall cuts them (core/recall/text.terms: Chinese by the segmenter in its
search mode, which also yields the shorter words inside a long one; letters and digits as whole
words; case and width folded; particles and punctuation left out). An entry matches when every
word of the search begins one of its words: `teach` finds "teacher" and `Rus` finds "Rust", `ust`
finds neither; 橘猫 finds "我家的橘猫叫豆包". A text of one character, or one with no such word
(only particles or punctuation), is looked for as it is, anywhere in the text.

The user list holds its words in an index (core/storage/search_index.py) and looks a word up as the range
of index words that begin with it (`prefix_range`); the 3.x list reads its files and compares.
"""
from __future__ import annotations

from typing import Iterable

from kiraos_desktop.core.recall.text import terms

#: Above every character: a word's range of index words ends at the word followed by it.
_AFTER_EVERY_CHARACTER = "\U0010ffff"


def search_words(text: str) -> tuple[str, ...]:
    """The words a search looks for; () when the text is looked for as it is (one character, or no word)."""
    text = text.strip()
    if len(text) <= 1:
        return ()
    return terms(text)


def begins_a_word(word: str, words: Iterable[str]) -> bool:
    return any(have.startswith(word) for have in words)


def has_every_word(wanted: Iterable[str], words: Iterable[str]) -> bool:
    """Whether every wanted word begins one of `words` (the words of an entry, a user, an entity)."""
    have = tuple(words)
    return all(begins_a_word(word, have) for word in wanted)


def prefix_range(column: str) -> str:
    """SQL (either dialect) that holds for the values of `column` that begin with a word, with
    prefix_params(word) as its parameters: a range an index on the column answers, then the same
    test by characters (a server collation other than C orders text otherwise)."""
    return f"({column} >= ? AND {column} < ? AND substr({column}, 1, ?) = ?)"


def prefix_params(word: str) -> tuple:
    return (word, word + _AFTER_EVERY_CHARACTER, len(word), word)
