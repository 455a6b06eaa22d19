"""Inputs generated from the problem's checktestdata grammar (its ``.ctd`` input validator).

A Kattis or DOMjudge package often states its input format as a checktestdata script: every
token with its range, the loops that repeat them, the assertions that tie them together
(``INT(1, 500000, n) ... REP(m) INT(1, n, u) ... END``). Read the other way, the script is a
generator, as checktestdata's own ``--generate`` mode reads it: where the validator reads an
integer in [lo, hi], the generator writes one; a loop writes its body as often as the count it
wrote before says; an assertion that does not hold sends the generator back to try again.

The script is translated by ``checktestdata`` (pyctd, the ``[testgen]`` extra, as for validation)
into Python, rewritten (``script.py``), and run against a generating library (``library.py``)
instead of the reading one; ``generator.py`` draws an input under a plan, ``family.py`` a
problem's inputs in a bounded child process:

* a loop body whose assertion fails is drawn again (a few times) before the whole input is;
* a value read into a variable that sizes a loop (``REP(n)``, ``STRLEN(s) == n``) is a *count*:
  small in the small families, at the stated maximum (scaled down until the input fits
  the input caps, ``input_caps.caps()``, and the assertions hold) in the stress shapes;
* a word read by ``REGEX`` gets the length its assertion asks for (``words``).

Every input still goes through all of the problem's validators and its golds like any other:
the grammar proposes, validation decides.
"""

from .family import draw_family, draw_family_bounded
from .generator import Grammar, plans
from .library import Plan
from .script import GrammarError

__all__ = ["Grammar", "GrammarError", "Plan", "draw_family", "draw_family_bounded", "plans"]
