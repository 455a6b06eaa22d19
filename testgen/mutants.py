"""Mutants of a Python gold solution: one small AST edit each, as stand-ins for wrong programs.

A test suite that tells these apart from the gold solution tends to reject real wrong
programs too (off-by-one, flipped comparison, wrong operator, missing case). Each
operator edits exactly one site; ``mutants`` samples sites across operators so that no
single kind crowds out the others. Docstrings are never touched.
"""

from __future__ import annotations

import ast
import copy
import random
from dataclasses import dataclass
from typing import Callable, Optional

_BIN_SWAP: dict[type, list[type]] = {
    ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.Add, ast.FloorDiv], ast.Div: [ast.FloorDiv, ast.Mult],
    ast.FloorDiv: [ast.Div, ast.Mod], ast.Mod: [ast.FloorDiv], ast.Pow: [ast.Mult], ast.LShift: [ast.RShift],
    ast.RShift: [ast.LShift], ast.BitAnd: [ast.BitOr], ast.BitOr: [ast.BitAnd], ast.BitXor: [ast.BitOr],
}
_CMP_SWAP: dict[type, list[type]] = {
    ast.Lt: [ast.LtE, ast.Gt], ast.LtE: [ast.Lt, ast.GtE], ast.Gt: [ast.GtE, ast.Lt], ast.GtE: [ast.Gt, ast.LtE],
    ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq], ast.In: [ast.NotIn], ast.NotIn: [ast.In], ast.Is: [ast.IsNot],
    ast.IsNot: [ast.Is],
}
_NAME_SWAP = {"min": "max", "max": "min", "any": "all", "all": "any", "lower": "upper", "upper": "lower",
              "isupper": "islower", "islower": "isupper", "startswith": "endswith", "endswith": "startswith",
              "ceil": "floor", "floor": "ceil", "append": "insert0", "sort": "reverse", "remove": "discard0"}
_DROP_CALL = {"sorted", "abs", "reversed", "set", "int", "round", "list", "str", "float", "len", "sum"}


@dataclass
class Mutant:
    op: str
    code: str


def _docstring_ids(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                ids.add(id(body[0].value))
    return ids


def _sites(tree: ast.AST) -> list[tuple[str, Callable[[ast.AST], Optional[ast.AST]], int]]:
    """(operator name, edit function, node index in walk order) for every mutable site."""
    doc = _docstring_ids(tree)
    out: list[tuple[str, Callable[[ast.AST], Optional[ast.AST]], int]] = []
    for idx, node in enumerate(ast.walk(tree)):
        if isinstance(node, (ast.BinOp, ast.AugAssign)):
            for new in _BIN_SWAP.get(type(node.op), []):
                out.append(("binop", lambda n, new=new: _set(n, "op", new()), idx))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            for new in _CMP_SWAP.get(type(node.ops[0]), []):
                out.append(("compare", lambda n, new=new: _set(n, "ops", [new()]), idx))
        elif isinstance(node, ast.BoolOp):
            out.append(("boolop", lambda n: _set(n, "op", ast.Or() if isinstance(n.op, ast.And) else ast.And()), idx))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            out.append(("unary", lambda n: n.operand, idx))
        elif isinstance(node, ast.Constant) and id(node) not in doc:
            v = node.value
            if isinstance(v, bool):
                out.append(("const", lambda n: ast.Constant(not n.value), idx))
            elif isinstance(v, int):
                out.append(("const", lambda n: ast.Constant(n.value + 1), idx))
                out.append(("const", lambda n: ast.Constant(n.value - 1), idx))
            elif isinstance(v, float):
                out.append(("const", lambda n: ast.Constant(n.value * 1.5 + 0.5), idx))
            elif isinstance(v, str) and len(v) >= 1:
                out.append(("const", lambda n: ast.Constant(n.value[1:] if len(n.value) > 1 else ""), idx))
        elif isinstance(node, ast.If):
            out.append(("negate-if", lambda n: _set(n, "test", ast.UnaryOp(ast.Not(), n.test)), idx))
        elif isinstance(node, (ast.Break, ast.Continue)):
            out.append(("break", lambda n: ast.Continue() if isinstance(n, ast.Break) else ast.Break(), idx))
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name in _NAME_SWAP and not _NAME_SWAP[name].endswith("0"):
                out.append(("call-swap", lambda n: _rename_call(n), idx))
            if isinstance(f, ast.Name) and name in _DROP_CALL and len(node.args) == 1 and not node.keywords:
                out.append(("call-drop", lambda n: n.args[0], idx))
            if isinstance(f, ast.Name) and name == "range" and node.args:
                out.append(("range", lambda n: _bump_last(n, 1), idx))
                out.append(("range", lambda n: _bump_last(n, -1), idx))
            if any(k.arg == "reverse" for k in node.keywords):
                out.append(("reverse", lambda n: _flip_reverse(n), idx))
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            for part in ("lower", "upper"):
                if getattr(node.slice, part) is not None:
                    out.append(("slice", lambda n, part=part: _bump_slice(n, part), idx))
        elif isinstance(node, ast.Return) and node.value is not None:
            out.append(("return", lambda n: _set(n, "value", ast.UnaryOp(ast.Not(), n.value))
                        if isinstance(n.value, (ast.Compare, ast.BoolOp)) else None, idx))
    for idx, node in enumerate(ast.walk(tree)):
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if isinstance(body, list) and len(body) > 1:
                for j, st in enumerate(body):
                    if isinstance(st, (ast.AugAssign, ast.Assign, ast.Expr, ast.If, ast.Break, ast.Continue)) \
                            and id(getattr(st, "value", None)) not in doc:
                        out.append(("delete-stmt", lambda n, field=field, j=j: _delete(n, field, j), idx))
    return out


def _set(n: ast.AST, field: str, value: object) -> ast.AST:
    setattr(n, field, value)
    return n


def _rename_call(n: ast.Call) -> ast.AST:
    f = n.func
    if isinstance(f, ast.Name):
        f.id = _NAME_SWAP[f.id]
    elif isinstance(f, ast.Attribute):
        f.attr = _NAME_SWAP[f.attr]
    return n


def _bump(e: ast.expr, d: int) -> ast.expr:
    return ast.BinOp(e, ast.Add() if d > 0 else ast.Sub(), ast.Constant(abs(d)))


def _bump_last(n: ast.Call, d: int) -> ast.AST:
    i = 1 if len(n.args) >= 2 else 0
    n.args[i] = _bump(n.args[i], d)
    return n


def _bump_slice(n: ast.Subscript, part: str) -> ast.AST:
    s = n.slice
    assert isinstance(s, ast.Slice)
    setattr(s, part, _bump(getattr(s, part), 1))
    return n


def _flip_reverse(n: ast.Call) -> ast.AST:
    for k in n.keywords:
        if k.arg == "reverse":
            k.value = ast.UnaryOp(ast.Not(), k.value)
    return n


def _delete(n: ast.AST, field: str, j: int) -> ast.AST:
    body = list(getattr(n, field))
    del body[j]
    setattr(n, field, body)
    return n


def _apply(tree: ast.AST, node_idx: int, edit: Callable[[ast.AST], Optional[ast.AST]]) -> Optional[str]:
    t = copy.deepcopy(tree)
    nodes = list(ast.walk(t))
    target = nodes[node_idx]
    parent_of: dict[int, tuple[ast.AST, str, Optional[int]]] = {}
    for p in nodes:
        for field, value in ast.iter_fields(p):
            if isinstance(value, ast.AST):
                parent_of[id(value)] = (p, field, None)
            elif isinstance(value, list):
                for k, v in enumerate(value):
                    if isinstance(v, ast.AST):
                        parent_of[id(v)] = (p, field, k)
    new = edit(target)
    if new is None:
        return None
    if new is not target:
        if id(target) not in parent_of:
            return None
        p, field, k = parent_of[id(target)]
        if k is None:
            setattr(p, field, new)
        else:
            getattr(p, field)[k] = new
    try:
        ast.fix_missing_locations(t)
        return ast.unparse(t)
    except Exception:
        return None


def mutants(code: str, limit: int = 40, seed: int = 0) -> list[Mutant]:
    """Up to ``limit`` distinct mutants, sampled round-robin over operator kinds."""
    try:
        tree = ast.parse(code)
        original = ast.unparse(tree)
    except (SyntaxError, ValueError, RecursionError):
        return []
    sites = _sites(tree)
    by_op: dict[str, list[tuple[Callable[[ast.AST], Optional[ast.AST]], int]]] = {}
    for op, edit, idx in sites:
        by_op.setdefault(op, []).append((edit, idx))
    rng = random.Random(seed)
    for v in by_op.values():
        rng.shuffle(v)
    out: list[Mutant] = []
    seen = {original}
    ops = sorted(by_op)
    while len(out) < limit and any(by_op.values()):
        for op in ops:
            if not by_op[op] or len(out) >= limit:
                continue
            edit, idx = by_op[op].pop()
            code2 = _apply(tree, idx, edit)
            if code2 is None or code2 in seen:
                continue
            try:
                compile(code2, "<mutant>", "exec")
            except (SyntaxError, ValueError):
                continue
            seen.add(code2)
            out.append(Mutant(op=op, code=code2))
    return out
