"""The checktestdata script, translated by the package and rewritten to generate.

``checktestdata`` (pyctd) turns a script into Python that reads an input; ``translate`` parses
that Python and rewrites it for ``library.Library``, the generating side:

* the variables that size something are found (``count_variables``), and those that number
  the things a loop lists (``label_variables``: the n of ``INT(1, n)`` in a loop body);
* each value call is told which variable it fills, which place of the script it is (for
  ``Plan.distinct``) and what the assertions right after it ask of it (``bound_hints``);
* every loop body is drawn again when it fails (its own ``break``/``continue`` kept), every
  ``range`` loop checks the budget as it starts, and every power is bounded.
"""

from __future__ import annotations

import ast
from typing import Any, Optional

from ..ctd import read_script

_VALUE_CALLS = ("INT", "FLOAT", "FLOATP", "REGEX")


class GrammarError(ValueError):
    """The script cannot be used as a generator (the package is missing, a construct is not known)."""


def _names(expr: ast.AST) -> set[str]:
    return {n.id[4:] for n in ast.walk(expr) if isinstance(n, ast.Name) and n.id.startswith("var_")}


def _call_name(node: ast.AST) -> str:
    return node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else ""


def _variable(expr: Optional[ast.AST]) -> Optional[str]:
    """The script variable ``expr`` reads or writes (``var_n[None]`` is n), else None."""
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and expr.value.id.startswith("var_"):
        return expr.value.id[4:]
    return None


def _target_var(node: ast.Assign) -> Optional[str]:
    return _variable(node.targets[0]) if len(node.targets) == 1 else None


def count_variables(tree: ast.AST) -> set[str]:
    """Variables that size something: a loop's count, a word's length, and what they are computed from."""
    locals_: dict[str, ast.AST] = {}
    derived: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            t = node.targets[0]
            if isinstance(t, ast.Name) and t.id.startswith("local_"):
                locals_[t.id] = node.value
            elif (var := _target_var(node)) and _call_name(node.value) not in _VALUE_CALLS:
                derived.setdefault(var, set()).update(_names(node.value))
    counts: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and _call_name(node.iter) == "range":
            for a in node.iter.args:
                counts |= _names(locals_[a.id]) if isinstance(a, ast.Name) and a.id in locals_ else _names(a)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_call_name(n) == "STRLEN" for s in sides for n in ast.walk(s)):
                for s in sides:
                    if not any(_call_name(n) == "STRLEN" for n in ast.walk(s)):
                        counts |= _names(s)
    equal = [_names(n) for n in ast.walk(tree)  # ASSERT(s1 + s2 == n + 1): sizes tied together
             if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], ast.Eq)]
    grew = True
    while grew:  # a count computed from others, or equal to an expression of others, makes them counts
        grew = False
        for var, used in [*derived.items(), *((None, e) for e in equal)]:
            if (var in counts if var else bool(used & counts)) and not used <= counts:
                counts |= used
                grew = True
    return counts


def _constant(expr: ast.AST, names: dict) -> Optional[int]:
    """The integer a translated constant (``const_3``) stands for, else None."""
    if isinstance(expr, ast.Name) and expr.id.startswith("const_"):
        value = getattr(names.get(expr.id), "value", None)
        if isinstance(value, int) or (hasattr(value, "denominator") and value.denominator == 1):
            return int(value)
    return None


def label_of(call: ast.AST, names: dict) -> Optional[str]:
    """The variable n when ``call`` is ``INT(1, n)`` or ``INT(0, n - 1)`` (and the like): a value
    that numbers one of n things (a vertex, a colour, a position)."""
    if _call_name(call) != "INT" or len(call.args) < 2:
        return None
    lo, hi = call.args[0], call.args[1]
    low = _constant(lo, names)
    if low not in (0, 1):
        return None
    if (var := _variable(hi)) is not None:
        return var
    if isinstance(hi, ast.BinOp) and isinstance(hi.op, ast.Sub) and _constant(hi.right, names) == 1:
        return _variable(hi.left)
    return None


def label_variables(tree: ast.AST, names: dict) -> set[str]:
    """Variables that number what a loop lists: the n of ``INT(1, n)`` (or ``INT(0, n - 1)``) in a
    loop's body, the vertices of an edge list, the colours of a list of colours."""
    labels: set[str] = set()
    for loop in ast.walk(tree):
        if isinstance(loop, (ast.For, ast.While)):
            for stmt in loop.body:
                for node in ast.walk(stmt):
                    if (var := label_of(node, names)) is not None:
                        labels.add(var)
    return labels


_MIRROR = {ast.Eq: "==", ast.LtE: "<=", ast.Lt: "<", ast.GtE: ">=", ast.Gt: ">"}
_FLIP = {"==": "==", "<=": ">=", "<": ">", ">=": "<=", ">": "<"}
_LOOKAHEAD = 12  # assertions at most this many statements after a value bound it


def _solve(side: ast.expr, target: str) -> Optional[ast.expr]:
    """``side`` with the target (added, once, in a sum) replaced by 0: for ``a + x == b``, the
    value of x is ``b - (a + 0)``. None when the target is not such a term."""
    hits = []

    def walk(e: ast.expr, sign: int) -> bool:
        if ast.unparse(e) == target:
            hits.append(sign)
            return True
        if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)):
            return walk(e.left, sign) & walk(e.right, -sign if isinstance(e.op, ast.Sub) else sign)
        return target not in ast.unparse(e)

    if not walk(side, 1) or hits != [1]:
        return None
    zero = ast.Call(ast.Name("Number", ast.Load()), [ast.Constant(0)], [])

    class Zero(ast.NodeTransformer):
        def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
            return zero if ast.unparse(node) == target else node

    return Zero().visit(ast.parse(ast.unparse(side), mode="eval").body)


def bound_hints(assign: ast.Assign, after: list[ast.stmt]) -> list[tuple[str, ast.expr]]:
    """The assertions just after ``x = INT(...)`` (or ``s = REGEX(...)``) that bound x (the
    length of s): (op, the bound's expression), x on the left: ``ASSERT(xp < x)`` gives
    (">", xp); ``ASSERT(s1 + s2 == n + 1)`` after s2 gives ("==", n + 1 - (s1 + 0)). A bound that
    names a value drawn after x (``ASSERT(u < v)`` after u) is none: the v it would read is the
    last row's."""
    target = ast.unparse(assign.targets[0])
    is_word = _call_name(assign.value) == "REGEX"
    hints: list[tuple[str, ast.expr]] = []
    later: set[str] = set()  # values drawn after x: a bound naming one is not known when x is
    for stmt in after[:_LOOKAHEAD]:
        if isinstance(stmt, ast.Assign) and (var := _target_var(stmt)):
            later.add(var)
        if not (isinstance(stmt, ast.Expr) and _call_name(stmt.value) == "ASSERT" and stmt.value.args):
            continue
        cmp = stmt.value.args[0]
        if not (isinstance(cmp, ast.Compare) and len(cmp.ops) == 1 and type(cmp.ops[0]) in _MIRROR):
            continue
        op = _MIRROR[type(cmp.ops[0])]
        for this, other, o in ((cmp.left, cmp.comparators[0], op), (cmp.comparators[0], cmp.left, _FLIP[op])):
            if target in ast.unparse(other) or _names(other) & later:
                continue
            if is_word:
                if _call_name(this) == "STRLEN" and this.args and ast.unparse(this.args[0]) == target:
                    hints.append((o, other))
            elif ast.unparse(this) == target:
                hints.append((o, other))
            elif o == "==" and (rest := _solve(this, target)) is not None:
                hints.append(("==", ast.BinOp(other, ast.Sub(), rest)))
    return hints


class _LoopExits(ast.NodeTransformer):
    """``break``/``continue`` of this loop (not of a loop inside it) as raised exceptions."""

    def visit_Break(self, node: ast.Break) -> ast.AST:
        return ast.Raise(ast.Call(ast.Name("_Break", ast.Load()), [], []), None)

    def visit_Continue(self, node: ast.Continue) -> ast.AST:
        return ast.Raise(ast.Call(ast.Name("_Continue", ast.Load()), [], []), None)

    def visit_For(self, node: ast.AST) -> ast.AST:
        return node  # an inner loop's exits are its own

    visit_While = visit_For


class _Rewrite(ast.NodeTransformer):
    """Loop bodies drawn again when they fail; value calls told their place in the script, the
    variable they fill, the bounds the assertions after them set (``bound_hints``) and whether
    they number things (``label_variables``)."""

    def __init__(self, names: dict, labels: set[str]) -> None:
        self.names, self.labels = names, labels
        self.loops = 0
        self.sites = 0

    def _body(self, body: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for i, stmt in enumerate(body):
            stmt = self.visit(stmt)
            if isinstance(stmt, (ast.Assign, ast.Expr)) and _call_name(stmt.value) in _VALUE_CALLS:
                stmt.value.keywords.append(ast.keyword("_site", ast.Constant(self.sites)))
                self.sites += 1
                if label_of(stmt.value, self.names) in self.labels:
                    stmt.value.keywords.append(ast.keyword("_label", ast.Constant(True)))
            if isinstance(stmt, ast.Assign) and (var := _target_var(stmt)) and _call_name(stmt.value) in _VALUE_CALLS:
                stmt.value.keywords.append(ast.keyword("_to", ast.Constant(var)))
                hints = bound_hints(stmt, body[i + 1:])
                if hints:
                    no_args = ast.arguments([], [], None, [], [], None, [])
                    stmt.value.keywords.append(ast.keyword("_bounds", ast.List(
                        [ast.Tuple([ast.Constant(op), ast.Lambda(no_args, e)], ast.Load()) for op, e in hints],
                        ast.Load())))
            out.append(stmt)
        return out

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field in ("body", "orelse"):
            if isinstance(getattr(node, field, None), list) and not isinstance(node, (ast.For, ast.While)):
                setattr(node, field, self._body(getattr(node, field)))
        for field, value in ast.iter_fields(node):
            if field not in ("body", "orelse") and isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node

    def _retried(self, body: list[ast.stmt], prologue: list[ast.stmt]) -> list[ast.stmt]:
        """The loop body drawn again (``LOOP_TRIES`` times) when it fails. Its own ``break`` and
        ``continue`` (pyctd writes ``WHILE`` as ``for _ in count(0): if not cond: break``) are
        raised through the retry and done outside it."""
        k = self.loops
        self.loops += 1
        template = ast.parse(
            f"try:\n"
            f"    for _try_{k} in _attempts():\n"
            f"        _mark_{k} = _save()\n"
            f"        try:\n"
            f"            pass\n"
            f"        except _Reject:\n"
            f"            _restore(_mark_{k})\n"
            f"            continue\n"
            f"        break\n"
            f"    else:\n"
            f"        raise _Reject()\n"
            f"except _Break:\n"
            f"    break\n"
            f"except _Continue:\n"
            f"    continue\n").body
        template[0].body[0].body[1].body = prologue + [_LoopExits().visit(stmt) for stmt in body]
        return template

    def visit_For(self, node: ast.For) -> ast.AST:
        body = self._body(node.body)
        prologue: list[ast.stmt] = []
        if isinstance(node.target, ast.Name):  # nested loops reuse ``_``: each attempt restores its own
            own = f"_it_{self.loops}"
            prologue = [ast.Assign([ast.Name(node.target.id, ast.Store())], ast.Name(own, ast.Load()))]
            node.target = ast.Name(own, ast.Store())
        node.iter = self.visit(node.iter)
        if _call_name(node.iter) == "range":  # the loop's size is known as it starts: check the budget
            node.iter.func = ast.Name("_loop", ast.Load())
        node.body = self._retried(body, prologue)
        node.orelse = self._body(node.orelse)
        return node

    def visit_While(self, node: ast.While) -> ast.AST:
        node.test = self.visit(node.test)
        node.body = self._retried(self._body(node.body), [])
        node.orelse = self._body(node.orelse)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        node.left, node.right = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, ast.Pow):  # a power the budget allows, never one that hangs (m ^ m)
            return ast.Call(ast.Name("_pow", ast.Load()), [node.left, node.right], [])
        return node

    def visit_Module(self, node: ast.Module) -> ast.AST:
        node.body = self._body(node.body)
        return node


def translate(source: str) -> tuple[Any, dict[str, Any], set[str], set[str]]:
    """(the rewritten script's code, the package's names it runs with, the count variables, the
    label variables)."""
    read, why = read_script(source, lambda parser: (ast.parse(parser.python_code(standalone=False)),
                                                    parser.python_globals()))
    if read is None:
        raise GrammarError(why)
    tree, names = read
    counts = count_variables(tree)
    labels = label_variables(tree, names)
    tree = ast.fix_missing_locations(_Rewrite(names, labels).visit(tree))
    return compile(tree, "<checktestdata grammar>", "exec"), names, counts, labels
