"""What a request can ask of an object, by name, on either side: the server answers the
test process's requests with these, and the test process the candidate's requests of the
objects the tests sent it."""

from __future__ import annotations

import operator
from typing import Any, Callable

# Taken before the candidate's module is imported, so that what it patches in builtins or
# operator does not change what a request means (it can still change what its objects do).
OPS: dict[str, Callable[..., Any]] = {
    "get": getattr, "set": setattr, "del": delattr, "call": lambda f, args, kwargs: f(*args, **kwargs),
    "callattr": lambda obj, name, args, kwargs: getattr(obj, name)(*args, **kwargs),
    "eq": lambda a, b: bool(a == b), "ne": lambda a, b: bool(a != b), "bool": bool, "len": len, "hash": hash,
    "repr": repr, "str": str, "iter": iter, "next": next, "reversed": reversed, "int": int, "float": float,
    "index": operator.index, "round": round, "contains": lambda a, b: bool(b in a),
    "getitem": operator.getitem, "setitem": operator.setitem, "delitem": operator.delitem,
    "enter": lambda a: a.__enter__(), "exit": lambda a, *info: a.__exit__(*info),
    "neg": operator.neg, "pos": operator.pos, "abs": abs, "invert": operator.invert,
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "matmul": operator.matmul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow,
    "lshift": operator.lshift, "rshift": operator.rshift, "and": operator.and_, "or": operator.or_,
    "xor": operator.xor, "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
}
