"""Input models of function-call problems, one file per input type.

``FunctionModel.infer(seeds, statement, entry_point)`` (``model.py``) gives every argument
position a ``Spec`` (``base.py``) inferred from the seed values (``infer.py``): ``ints``,
``floats``, ``strings``, ``lists``, ``records`` (fixed-length tuples with a type per
position), ``dicts``, ``bools``, ``nones``, ``unions``; ``relations`` keeps what holds
between arguments in every seed. Each spec draws random values, boundary values, special
shapes, stress-sized values and type-preserving mutations, never leaving its domain.
"""

from .base import Hints, Spec
from .bools import BoolSpec
from .dicts import DictSpec
from .floats import FloatSpec
from .infer import infer_spec
from .ints import IntSpec
from .lists import ListSpec
from .model import FunctionModel, size_ok
from .nones import NoneSpec
from .relations import Invariants
from .strings import StrSpec
from .unions import UnionSpec

__all__ = ["BoolSpec", "DictSpec", "FloatSpec", "FunctionModel", "Hints", "IntSpec", "Invariants", "ListSpec",
           "NoneSpec", "Spec", "StrSpec", "UnionSpec", "infer_spec", "size_ok"]
