"""The test process's stand-ins for the candidate's classes and objects, and why a call to
its process has no answer. A stand-in holds only its session and its handle: every use of it
(an attribute, a call, an operator) is a request of the session, whose answer is decoded
there; nothing of the candidate's runs here."""

from __future__ import annotations

import dis
import sys
from types import FrameType
from typing import Any, Callable


# pytest leaves this module's frames out of a failure's traceback: a reader sees the test's line
# and the candidate's exception, as in one process.
__tracebackhide__ = True


class ProxyError(BaseException):
    """Why a call to the candidate's process has no answer. Not an Exception, so that no
    `except Exception`, `assertRaises(Exception)` or `pytest.raises(Exception)` of a test
    takes it for the candidate's own exception and passes."""


class Forged(ProxyError):
    """The candidate's process sent what no honest server sends; the verdict file says so."""


class ServerGone(ProxyError):
    """The candidate's process died, or was ended after a timeout or a forgery."""


class NotStarted(ServerGone):
    """The candidate's process never met the test process: none of its code ran (a sandbox
    too slow to start it, never the candidate's doing)."""


class CallTimeout(ProxyError):
    """No answer within the call's time bound; the candidate's process is ended."""


class OverBounds(ProxyError):
    """An answer that had to be a plain value came back as a handle: it was over a bound."""


def dunder(name: str) -> bool:
    # Special names are looked up by pytest, unittest, copy and inspect on anything they
    # meet; they are answered here (absent) and never cost a call or reach the candidate.
    return name.startswith("__") and name.endswith("__")


# The instruction that reads an attribute only to call it at once (`obj.method(args)`):
# Python 3.11's LOAD_METHOD, LOAD_ATTR with the low bit of its argument set from 3.12.
_LOAD_METHOD = dis.opmap.get("LOAD_METHOD") if sys.version_info < (3, 12) else None
_LOAD_ATTR = dis.opmap["LOAD_ATTR"]


def _called_at_once(frame: FrameType) -> bool:
    code, at = frame.f_code.co_code, frame.f_lasti
    if _LOAD_METHOD is not None:
        return code[at] == _LOAD_METHOD
    return code[at] == _LOAD_ATTR and bool(code[at + 1] & 1)


class _MethodCall:
    """`obj.method` read by an instruction that calls it next: the call is then one request
    (the candidate's process reads the attribute and calls it) instead of two. Nothing but
    that call ever sees this object, so the test cannot tell it from the bound method."""

    __slots__ = ("target", "name")

    def __init__(self, target: Any, name: str):
        self.target, self.name = target, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return request("callattr", self.target, self.name, args, kwargs)


def attribute(target: Any, name: str, frame: FrameType) -> Any:
    """`target.name` as the test's `frame` reads it: absent for a special name, else a
    request, or half of one where the frame calls it at once."""
    if dunder(name):
        raise AttributeError(name)
    return _MethodCall(target, name) if _called_at_once(frame) else request("get", target, name)


def ref(target: Any) -> tuple[Any, int]:
    if isinstance(target, RemoteMeta):
        return type.__getattribute__(target, "_harness_ref")
    return object.__getattribute__(target, "_harness_ref")


def request(op: str, target: Any, *operands: Any) -> Any:
    return ref(target)[0].request(op, target, *operands)


def _typed(op: str, target: Any, kind: type, *operands: Any) -> Any:
    """A request whose honest answer is always of `kind` (bool of ==, int of len, ...)."""
    value = request(op, target, *operands)
    if type(value) is kind:
        return value
    if isinstance(value, RemoteObject):
        raise OverBounds(f"the {kind.__name__} of {op} was over the proxy's bounds")
    ref(target)[0].forge(f"an answer to {op} that is not a {kind.__name__}")


class RemoteMeta(type):
    """The class of a candidate's class proxy: calling it constructs in the candidate's
    process, reading an attribute reads it there."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return request("call", cls, args, kwargs)

    def __getattr__(cls, name: str) -> Any:
        return attribute(cls, name, sys._getframe(1))

    def __repr__(cls) -> str:
        return f"<class {cls.__qualname__!r} of the candidate's process>"


class RemoteObject:
    """An object of the candidate's process: every attribute, call and operator is a request."""

    def __getattr__(self, name: str) -> Any:
        return attribute(self, name, sys._getframe(1))

    def __setattr__(self, name: str, value: Any) -> None:
        request("set", self, name, value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return request("call", self, args, kwargs)

    # A candidate's object never equals a plain value here: `result == 5` with a handle for
    # `result` is False whatever its __eq__ says. Two of its objects compare by its rule.
    def __eq__(self, other: Any) -> Any:
        return _typed("eq", self, bool, other) if _same_session(self, other) else NotImplemented

    def __ne__(self, other: Any) -> Any:
        return _typed("ne", self, bool, other) if _same_session(self, other) else NotImplemented

    def __hash__(self) -> int:
        return _typed("hash", self, int)

    def __bool__(self) -> bool:
        return _typed("bool", self, bool)

    def __len__(self) -> int:
        return _typed("len", self, int)

    def __contains__(self, item: Any) -> bool:
        return _typed("contains", self, bool, item)

    def __str__(self) -> str:
        return _typed("str", self, str)

    def __repr__(self) -> str:
        # pytest and unittest show operands of failed assertions; that must not raise
        try:
            text = request("repr", self)
        except ProxyError as exc:
            return f"<{type(self).__qualname__} of the candidate's process: {exc}>"
        return text if type(text) is str else f"<{type(self).__qualname__} of the candidate's process>"

    def __iter__(self) -> Any:
        iterator = request("iter", self)
        if not isinstance(iterator, RemoteObject):
            ref(self)[0].forge("an iterator that is not an object")
        return iterator

    def __next__(self) -> Any:
        return request("next", self)

    def __reversed__(self) -> Any:
        return request("reversed", self)

    def __int__(self) -> int:
        return _typed("int", self, int)

    def __index__(self) -> int:
        return _typed("index", self, int)

    def __float__(self) -> float:
        return _typed("float", self, float)

    def __round__(self, digits: Any = None) -> Any:
        return request("round", self) if digits is None else request("round", self, digits)

    def __getitem__(self, key: Any) -> Any:
        return request("getitem", self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        request("setitem", self, key, value)

    def __delitem__(self, key: Any) -> None:
        request("delitem", self, key)

    def __enter__(self) -> Any:
        return request("enter", self)

    def __exit__(self, *info: Any) -> Any:
        return request("exit", self, *info)


def _same_session(a: Any, b: Any) -> bool:
    return isinstance(b, (RemoteObject, RemoteMeta)) and ref(b)[0] is ref(a)[0]


def _operator(op: str) -> tuple[Callable, Callable]:
    def forward(self: Any, other: Any) -> Any:
        return request(op, self, other)

    def reflected(self: Any, other: Any) -> Any:
        return ref(self)[0].request(op, other, self)

    return forward, reflected


def _unary(op: str) -> Callable:
    def forward(self: Any) -> Any:
        return request(op, self)

    return forward


for _op in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and", "or", "xor"):
    _forward, _reflected = _operator(_op)
    setattr(RemoteObject, f"__{_op}__", _forward)
    setattr(RemoteObject, f"__r{_op}__", _reflected)
for _op in ("lt", "le", "gt", "ge"):
    setattr(RemoteObject, f"__{_op}__", _operator(_op)[0])
for _op in ("neg", "pos", "abs", "invert"):
    setattr(RemoteObject, f"__{_op}__", _unary(_op))
