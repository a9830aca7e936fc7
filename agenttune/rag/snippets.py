"""The part of a chunk a search result shows: the window that holds most of the query's words.

A search engine shows the passage around the matched words, not the top of the page. With
``harness.snippet_chars`` set, the harness cuts each hit to the ``width``-character window that holds the most
distinct content words of the query, starting a little before the first of them (a fifth of the width) at a
word boundary. A text word matches a query word when it starts with the query word's first :data:`PREFIX`
characters, a crude stem ("terminate" finds "termination", "law" finds "laws").
"""

from __future__ import annotations

import re

from agenttune.rewards.grounding import content_word_list

PREFIX = 5
_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"[.;]\s")


def best_window(text: str, query: str, width: int, finish_sentence: bool = False) -> tuple[int, int]:
    """``(start, end)`` in ``text`` of a window of at most ``width`` characters holding the most distinct
    query words (the earliest such window; the text's start when no word matches). With ``finish_sentence`` the
    window runs on to the end of the sentence it cuts, when that ends within a quarter of ``width`` more.

    >>> text = "Preamble text here, and more of it. The laws of Nevada govern this lease."
    >>> start, end = best_window(text, "which law governs the lease", 40)
    >>> text[start:end]
    'it. The laws of Nevada govern this'
    >>> start, end = best_window(text, "which law governs the lease", 40, finish_sentence=True)
    >>> text[start:end]
    'it. The laws of Nevada govern this lease.'
    >>> best_window("short", "anything", 30)
    (0, 5)
    """
    if len(text) <= width:
        return 0, len(text)
    stems = [w[:PREFIX] for w in content_word_list(query)]
    matches = []
    for m in _WORD.finditer(text):
        word = m.group().lower()
        stem = next((s for s in stems if word.startswith(s)), None)
        if stem is not None:
            matches.append((m.start(), stem))
    best, first = 0, None
    for i, (start, _) in enumerate(matches):
        found = set()
        for later, stem in matches[i:]:
            if later > start + width * 4 // 5:
                break
            found.add(stem)
        if len(found) > best:
            best, first = len(found), start
    start = 0
    if first is not None:
        lead = first - width // 5
        start = next(m.start() for m in _WORD.finditer(text) if m.start() >= lead or m.start() == first)
    end = min(start + width, len(text))
    if end < len(text):
        cut = text.rfind(" ", start + 1, end)
        end = cut if first is not None and cut > first else end
    if finish_sentence and end < len(text):
        stop = _SENTENCE_END.search(text + " ", end - 1, min(len(text), end + width // 4) + 1)
        end = stop.start() + 1 if stop else end
    return start, end
