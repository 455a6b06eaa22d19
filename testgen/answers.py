"""Problems with several right answers, read from the statement.

* ``order``: the answer is a collection that may come in any order ("You may return the answer
  in any order", "the order of the output does not matter"). Judged by the engine's
  ``unordered`` comparison: a function's returned list, or an output's lines, as a multiset.
* ``choice``: any one of several answers is right ("If there are multiple answers, return any
  of them", "print any valid solution"). Only a checker can judge those (the problem's own, or
  an LLM-written one that the golds' outputs pass); without one the problem is skipped with
  that reason — comparing with one gold's choice would fail correct programs, and accepting
  anything would pass wrong ones.

The golds can also show it: function problems whose golds disagree only in the order of a
returned list are judged ``unordered`` too (``testgen/validate.py``).
"""

from __future__ import annotations

import re
from typing import Optional

_ORDER = re.compile(
    r"\b(?:in|with) any order\b|\bany order\b|\border (?:of [^.]{0,40})?(?:does not|doesn't|do not|don't) matter"
    r"|\b(?:can|may) be (?:returned|printed|output|given) in any order", re.I)
_CHOICE = re.compile(
    r"\b(?:return|print|output)\s+any\b(?!\s+order)|\bany (?:one )?of them\b|\bany (?:one )?of those\b"
    r"|\bany (?:valid|possible|correct) (?:answer|solution|output|one)s?\b"
    r"|\b(?:multiple|several|many) (?:valid |possible |correct |different )?(?:answers|solutions)\b"
    r"|\bmore than one (?:valid |possible |correct )?(?:answer|solution)\b", re.I)
# "the answer is unique", "exactly one solution": not several answers, whatever else is said
_UNIQUE = re.compile(r"\b(?:exactly|only) one (?:valid )?(?:answer|solution)\b|\b(?:answer|solution) is unique\b"
                     r"|\blexicographically (?:smallest|largest|minimal|maximal|first|last)\b"
                     r"|\b(?:print|output|return) the (?:one|smallest|largest|minimum|maximum|first|last)\b", re.I)


def several_answers(statement: str) -> Optional[tuple[str, str]]:
    """("order" | "choice", the words that say so), or None when the statement implies one answer."""
    text = " ".join(statement.split())
    choice = _CHOICE.search(text)
    if choice and not _UNIQUE.search(text):
        return "choice", choice.group(0)
    order = _ORDER.search(text)
    if order:
        return "order", order.group(0)
    return None
