"""Content-word overlap between an answer and the evidence it should rest on.

A cheap guard against judges rewarding fluent answers that the retrieved passages do not support: an answer
that shares no content word with the evidence is ungrounded, whatever a judge thinks of it.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+(?:[.,'][a-z0-9]+)*")
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have having he
    her here hers him his how i if in into is it its itself just may me might more most must my no nor not of off
    on once only or other our ours out over own same shall she should so some such than that the their theirs them
    then there these they this those through to too under until up upon very was we were what when where which
    while who whom why will with would yes you your yours""".split()
)


def content_word_list(text: str) -> list[str]:
    """Lower-cased words and numbers of ``text`` that are not stopwords, in order, each once.

    >>> content_word_list("Who may terminate the lease, and when may the lease end?")
    ['terminate', 'lease', 'end']
    """
    return list(dict.fromkeys(word for word in _WORD.findall(text.lower()) if word not in STOPWORDS))


def content_words(text: str) -> set[str]:
    """:func:`content_word_list` as a set.

    >>> sorted(content_words("The lease is governed by the laws of Nevada, 2,000 USD."))
    ['2,000', 'governed', 'laws', 'lease', 'nevada', 'usd']
    """
    return set(content_word_list(text))


def is_grounded(answer: str, evidence: str) -> bool:
    """Whether ``answer`` shares at least one content word with ``evidence``.

    >>> is_grounded("Nevada law", "governed by the laws of the State of Nevada"), is_grounded("Utah", "Nevada")
    (True, False)
    """
    return bool(content_words(answer) & content_words(evidence))
