"""Words of a text for relevance recall: rjieba segmentation, case folding, no particles or punctuation."""
from __future__ import annotations

import functools
import re
import unicodedata

import rjieba

#: Bump when terms() changes: an index built with other terms is rebuilt on open.
TERMS_VERSION = "1"
#: A query contributes at most this many distinct words (a 10 kB message must stay cheap: each word is
#: looked for in the text of every candidate).
MAX_QUERY_TERMS = 32
#: The text of a query's candidates scored, newest candidates first: scoring segments each one
#: (~0.2 ms for 1,000 Chinese characters), so a message whose words every event holds would cost
#: hundreds of milliseconds for a user with a thousand long events. Older candidates past it are not
#: scored (everyday events are short: some 300-1,000 of them fit; a block shows ten).
MAX_SCORED_CHARS = 20_000
#: Text beyond this many characters of a query is not looked at (a longer query is no error).
MAX_QUERY_CHARS = 2000

# Words that say nothing about what a text is about: Chinese particles, pronouns and function
# words, English articles, auxiliaries and pronouns. Matching on them would make every event relevant.
_STOP_WORDS = frozenset("""
的 了 吗 呢 吧 啊 呀 哦 嗯 哈 么 嘛 啦 喔 哟 呗 着 过 得 地 之 而 及 与 和 或 跟 同 把 被 让 给 对 向 从 在 于
是 有 也 就 都 还 又 再 很 太 更 最 挺 真 好 不 没 没有 别 要 会 能 可 可以 想 去 来 到 说 做 看 一 一个 一些 这 那
这个 那个 这些 那些 这里 那里 这样 那样 哪 哪个 哪里 什么 怎么 怎么样 怎样 如何 为什么 多少 几 吧 个 只 些 位 次
我 你 您 他 她 它 我们 你们 他们 她们 它们 咱 咱们 自己 大家 人家 谁 某 其 此 该 每 各 所 所以 因为 但 但是 然后
如果 虽然 已经 正在 刚 刚才 现在 今天 昨天 还是 就是 不是 一下 一直 一起 知道 觉得 记得 记 告诉 问 吗吗 嘿 喂
a an the is am are was were be been being do does did done have has had having i me my mine you your yours
he him his she her hers it its we us our ours they them their theirs this that these those there here what
which who whom whose when where why how to of in on at by for with from about as into onto and or but not no
so if then than too very just also can could will would shall should may might must am pm ok okay yes
please tell remember know think let lets s t d ll re ve m
""".split())


def _split_word(word: str) -> list[str]:
    """The runs of letters and digits of one segment: the pieces SQLite's unicode61 would see too."""
    if word.isalnum():
        return [word]
    pieces, current = [], []
    for ch in word:
        if ch.isalnum():
            current.append(ch)
        elif current:
            pieces.append("".join(current))
            current = []
    if current:
        pieces.append("".join(current))
    return pieces


def normalise(text: str) -> str:
    """Full-width forms folded (NFKC) and case folded: how recall compares text."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", text).casefold()


#: Texts up to this long are cached (bots and events repeat the same short texts); the cache holds
#: at most _CACHED_TEXTS of them, so it stays below a few megabytes.
_CACHED_CHARS = 200
_CACHED_TEXTS = 4096


def terms(text: str) -> tuple[str, ...]:
    """The distinct meaningful words of `text`, in order of first appearance."""
    return _cached_terms(text) if len(text) <= _CACHED_CHARS else _terms(text)


def _terms(text: str) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for segment in rjieba.cut_for_search(normalise(text)):
        for word in _split_word(segment):
            if word not in _STOP_WORDS:
                seen[word] = None
    return tuple(seen)


_cached_terms = functools.lru_cache(maxsize=_CACHED_TEXTS)(_terms)


def query_terms(query: str) -> tuple[str, ...]:
    """The words a query looks for: those of its first MAX_QUERY_CHARS characters, at most MAX_QUERY_TERMS."""
    return terms(query[:MAX_QUERY_CHARS])[:MAX_QUERY_TERMS]


def is_han(word: str) -> bool:
    """Chinese (or other unspaced script) text: the segmenter may cut it differently in another text
    ("橘猫" in a message, "橘 / 猫叫" in an event), so it is also looked for inside the text (the fallback)."""
    return all(unicodedata.category(ch) == "Lo" for ch in word)


def repeat_key(text: str) -> str:
    """What two event texts must share to be the same event: letters and digits, folded."""
    return _cached_repeat_key(text) if len(text) <= _CACHED_CHARS else _repeat_key(text)


# Python's \w is exactly str.isalnum() plus "_" (for every code point), so this drops what is not
# a letter or digit in one C pass (a character loop costs some 0.4 ms for 1,000 characters).
_NOT_ALNUM = re.compile(r"[\W_]+")


def _repeat_key(text: str) -> str:
    folded = normalise(text)
    key = _NOT_ALNUM.sub("", folded)
    return key or " ".join(folded.split())


_cached_repeat_key = functools.lru_cache(maxsize=_CACHED_TEXTS)(_repeat_key)
