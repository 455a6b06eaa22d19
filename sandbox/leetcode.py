"""LeetCode-style calls, shared by both function-call drivers (stdlib only, no ``__future__``).

This file is plain Python the host can import (tests, testgen) and, as text, the first part
of the engine's function-call driver (``sandbox/function_call.py`` puts it in front of
``sandbox/function_driver.py``) and of testgen's batched harness (``testgen/harness.py``).
So both drivers call a ``Solution.method`` entry, build ``ListNode``/``TreeNode`` arguments
and encode return values in exactly the same way.

* An entry ``Class.method`` runs with what LeetCode's Python 3 judge has in scope before the
  user's code (``List``, ``Optional``, ``collections``, ``heapq``, ``bisect``, ``math``, ...,
  and the ``ListNode``/``TreeNode`` classes); each call gets a fresh ``Class()``. Module names
  are bound after the star imports, so ``bisect.bisect_left`` and ``bisect_left`` both work
  (``from bisect import *`` alone would leave ``bisect`` the function). A plain
  function gets nothing added: a HumanEval program that forgets ``import math`` stays wrong.
* An argument whose annotation names ``ListNode`` is built from LeetCode's list encoding
  (``[1, 2, 3]``; ``[]`` is ``None``), one that names ``TreeNode`` from its level order
  (``[3, 9, 20, null, null, 15, 7]``); ``List[ListNode]`` / ``List[Optional[TreeNode]]``
  element-wise. The classes used are the program's own when it defines them.
* A returned ``ListNode``/``TreeNode`` (also inside lists) is encoded back the same way; a
  ``None`` where the signature returns one is ``[]``, as LeetCode prints it.
  A linked list with a cycle, or a "tree" reaching a node twice, is the program's wrong
  answer (a ``ValueError``), never a hang.
* A method annotated ``-> None`` that returns ``None`` is an in-place problem ("do not return
  anything, modify nums in-place"): its result is the first argument after the call, as
  LeetCode judges it.
"""

import json as _lc_json
import re as _lc_re

LC_PRELUDE = """\
from typing import *
from collections import *
from heapq import *
from bisect import *
from itertools import *
from functools import *
from math import inf
import collections, heapq, bisect, math, itertools, functools, operator, string, re, random


class ListNode:
    def __init__(self, val=0, next=None):
        self.val = val
        self.next = next


class TreeNode:
    def __init__(self, val=0, left=None, right=None):
        self.val = val
        self.left = left
        self.right = right
"""

LC_MAX_NODES = 10_000_000


def lc_split_entry(entry):
    """``"Solution.twoSum"`` -> ``("Solution", "twoSum")``; ``"solve"`` -> ``(None, "solve")``."""
    if "." in entry:
        cls, meth = entry.split(".", 1)
        return cls, meth
    return None, entry


def lc_prepare(namespace, entry):
    """Before the program runs: a method entry gets LeetCode's names in its module."""
    if lc_split_entry(entry)[0] is not None:
        exec(compile(LC_PRELUDE, "<leetcode prelude>", "exec", dont_inherit=True), namespace)


def _lc_build_list(values, cls):
    head = None
    for v in reversed(values):
        node = cls(v)
        node.next = head
        head = node
    return head


def _lc_build_tree(values, cls):
    if not values or values[0] is None:
        return None
    root = cls(values[0])
    queue, i = [root], 1
    for node in queue:
        if i >= len(values):
            break
        for side in ("left", "right"):
            if i < len(values):
                v = values[i]
                i += 1
                child = None if v is None else cls(v)
                setattr(node, side, child)
                if child is not None:
                    queue.append(child)
            else:
                setattr(node, side, None)
    for node in queue:  # nodes past the end of the encoding have no children
        for side in ("left", "right"):
            if not hasattr(node, side):
                setattr(node, side, None)
    return root


def _lc_annotation_text(a):
    if isinstance(a, str):
        return a
    return getattr(a, "__name__", None) if isinstance(a, type) else repr(a)


def _lc_kind(text):
    """What an annotation asks for: ("list"|"tree", depth of List[...] around it) or None."""
    if not text:
        return None
    for word, kind in (("ListNode", "list"), ("TreeNode", "tree")):
        if _lc_re.search(r"\b" + word + r"\b", text):
            depth = len(_lc_re.findall(r"\b(?:List|list|Sequence)\[", text.split(word, 1)[0]))
            return kind, depth
    return None


def _lc_convert(value, kind, depth, classes):
    if value is None:
        return None
    if depth > 0:
        if not isinstance(value, list):
            return value
        return [_lc_convert(v, kind, depth - 1, classes) for v in value]
    if not isinstance(value, list):
        return value
    return _lc_build_list(value, classes[0]) if kind == "list" else _lc_build_tree(value, classes[1])


def _lc_empty_nodes(value, depth):
    """A ``None`` where the signature returns a ListNode/TreeNode is LeetCode's ``[]``."""
    if value is None:
        return []
    if depth > 0 and isinstance(value, list):
        return [_lc_empty_nodes(v, depth - 1) for v in value]
    return value


def _lc_classes(namespace):
    return namespace.get("ListNode"), namespace.get("TreeNode")


def lc_resolve(namespace, entry):
    """The callable for ``entry`` in the program's module: ``f(args) -> result`` (args a list).

    ``Class.method`` gets a fresh instance per call; arguments annotated ``ListNode`` /
    ``TreeNode`` are built from their encodings; ``-> None`` methods return their first
    argument (in-place problems). Raises AttributeError (the program's own fault) when the
    name is missing.
    """
    import inspect

    cls_name, name = lc_split_entry(entry)
    owner = namespace if cls_name is None else namespace.get(cls_name)
    if cls_name is not None and owner is None:
        raise AttributeError("the program defines no class %r" % cls_name)
    if cls_name is None:
        if name not in namespace:
            raise AttributeError("module 'solution' has no attribute %r" % name)
        fn = target = namespace[name]
    else:
        target = getattr(owner, name)  # AttributeError: the class has no such method
        fn = None
    ann = dict(getattr(target, "__annotations__", None) or {})
    try:
        params = [p for p in inspect.signature(target).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    if cls_name is not None and params and not isinstance(inspect.getattr_static(owner, name, None),
                                                                 (staticmethod, classmethod)):
        params = params[1:]  # self
    kinds = [_lc_kind(_lc_annotation_text(ann.get(p.name))) for p in params]
    returns = ann.get("return", "<absent>")
    returns_kind = _lc_kind(_lc_annotation_text(returns)) if returns != "<absent>" else None
    in_place = cls_name is not None and (returns is None or returns == "None" or returns is type(None))

    def call(args):
        classes = _lc_classes(namespace)
        args = list(args)
        for i, k in enumerate(kinds[:len(args)]):
            if k is not None and classes[0 if k[0] == "list" else 1] is not None:
                args[i] = _lc_convert(args[i], k[0], k[1], classes)
        f = fn if fn is not None else getattr(namespace[cls_name](), name)
        result = f(*args)
        if in_place and result is None and args:
            return args[0]
        if returns_kind is not None:
            return _lc_empty_nodes(result, returns_kind[1])
        return result

    return call


def _lc_list_values(node):
    out, seen = [], set()
    while node is not None:
        if id(node) in seen:
            raise ValueError("the returned linked list has a cycle")
        seen.add(id(node))
        out.append(node.val)
        node = node.next
        if len(out) > LC_MAX_NODES:
            raise ValueError("the returned linked list is too long")
    return out


def _lc_tree_values(root, enc, classes):
    out, queue, seen = [], [root], set()
    for node in queue:
        if node is None:
            out.append(None)
            continue
        if id(node) in seen:
            raise ValueError("the returned tree reaches a node twice")
        seen.add(id(node))
        out.append(enc(node.val, classes))
        queue.append(getattr(node, "left", None))
        queue.append(getattr(node, "right", None))
        if len(queue) > 2 * LC_MAX_NODES:
            raise ValueError("the returned tree is too big")
    while out and out[-1] is None:
        out.pop()
    return out


def lc_encode(value, classes=(None, None)):
    """The return value as JSON-shaped data: tuples as lists, sets sorted, ListNode / TreeNode
    in LeetCode's encodings, other objects by repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [lc_encode(x, classes) for x in value]
    if isinstance(value, (set, frozenset)):
        items = [lc_encode(x, classes) for x in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, dict):
        return {(k if isinstance(k, str) else _lc_json.dumps(lc_encode(k, classes))): lc_encode(x, classes)
                for k, x in value.items()}
    list_cls, tree_cls = classes
    if list_cls is not None and isinstance(value, list_cls):
        return [lc_encode(v, classes) for v in _lc_list_values(value)]
    if tree_cls is not None and isinstance(value, tree_cls):
        return _lc_tree_values(value, lc_encode, classes)
    return repr(value)


def lc_node_classes(namespace):
    """The ListNode / TreeNode classes in the program's module (its own or LeetCode's), if any."""
    return tuple(c if isinstance(c, type) else None for c in _lc_classes(namespace))
