"""The candidate's side: a process of its own that imports the candidate's module and
answers the test process's requests, in order, one frame each, over a pair of pipes: inherited
from the test process that started it, or, in the sandbox, named pipes the builder made,
met as the runner (wire.meet). Nothing here is trusted by the test process, which checks every frame (client.py);
what the candidate does to this process (patching builtins, exiting, writing to the pipes)
is done to this process only.

What the candidate prints (its `sys.stdout`) goes where the server's output goes, and is
also kept, up to MAX_PRINTED characters, until the next frame to the test process: an
`["o", text]` frame before each reply and each request, which the test process files under
the test under way (client.py), as one process's pytest would capture it.

Run as `python3 -I -c BOOT ROOT CANDIDATE_DIR MODULE READ WRITE`, READ and WRITE the
inherited descriptors' numbers or the named pipes' paths."""

from __future__ import annotations

import builtins
import importlib
import os
import select
import sys
import threading
from typing import Any

from . import codec, frames, wire
from .ops import OPS

# Frames no one process would show: the proxy's own, the import machinery's (as an import
# statement leaves them out).
_HIDDEN = (os.path.dirname(os.path.abspath(__file__)) + os.sep, "<frozen importlib.",
           os.path.join(os.path.dirname(importlib.__file__), "__init__.py"))

_exit = os._exit
MAX_PRINTED = 4000  # characters of what the candidate printed, kept for one frame
_import = importlib.import_module
# The builtin exceptions, as the test process knows them by name: taken before the candidate's
# module is imported, which may put an exception of its own into builtins.
_BUILTIN_EXCEPTIONS = {name: value for name, value in vars(builtins).items()
                       if isinstance(value, type) and issubclass(value, BaseException)}


def _builtin_exception(cls: Any) -> str | None:
    name = getattr(cls, "__name__", None)
    return name if type(name) is str and _BUILTIN_EXCEPTIONS.get(name) is cls else None


class _TestObject:
    """An object of the test process (a callable, a mock, a file object it opened): every
    use is a request there, answered only for names without a leading underscore."""

    def __init__(self, server: "Server", cid: int):
        object.__setattr__(self, "_server", server)
        object.__setattr__(self, "_cid", cid)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._server.ask("get", self, name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._server.ask("call", self, args, kwargs)

    # Equal and hashed by identity: there is one of these for each object the test sent.


def _ask(op: str) -> Any:
    return lambda self, *operands: self._server.ask(op, self, *operands)


for _op in ("iter", "next", "enter", "exit", "len", "getitem", "contains", "str", "repr", "bool"):
    setattr(_TestObject, f"__{_op}__", _ask(_op))


class _Printed:
    """The candidate's `sys.stdout`: what it prints is written on as before and kept, up
    to MAX_PRINTED characters, until `take`."""

    def __init__(self, out: Any):
        self._out = out
        self._kept: list[str] = []
        self._size = 0
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        if type(text) is not str:
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        with self._lock:
            if self._size < MAX_PRINTED:
                self._kept.append(text[:MAX_PRINTED - self._size])
                self._size += len(self._kept[-1])
        return self._out.write(text)

    def take(self) -> str:
        with self._lock:
            text, self._kept, self._size = "".join(self._kept), [], 0
        return text

    def __getattr__(self, name: str) -> Any:  # flush, encoding, fileno...: the stream's own
        return getattr(self._out, name)


class Server:
    def __init__(self, read_fd: int, write_fd: int, printed: _Printed | None = None):
        self.printed = printed
        self.reader = wire.Reader(read_fd)
        self.write_fd = write_fd
        self.objects: dict[int, Any] = {}     # every object handed out, kept alive so ids stay unique
        self.ids: dict[int, int] = {}
        self.test_objects: dict[int, _TestObject] = {}
        self.seq = 0
        self.room = wire.Room()
        self.lock = threading.RLock()  # reentrant: a call back's request is made on the thread that waits

    def handle(self, obj: Any, depth: int = 0) -> list:
        """A reference to `obj`: an object's names its class, a class's its bases, as many and
        as deep as the test process reads them (codec.MAX_CLASS_DEPTH)."""
        hid = self.ids.get(id(obj))
        if hid is None:
            hid = self.ids[id(obj)] = len(self.objects) + 1
            self.objects[hid] = obj
        if isinstance(obj, type):
            if depth < codec.MAX_CLASS_DEPTH - 1:
                above = [b for b in obj.__bases__ if b is not object][: codec.MAX_CLASS_DEPTH]
            else:  # an exception's stays one, of its nearest builtin's class
                above = [b for b in obj.__mro__ if _builtin_exception(b)][:1]
            bases = [self.class_item(b, depth + 1) for b in above]
            return ["h", hid, "c", str(obj.__name__)[: codec.MAX_NAME], bases]
        return ["h", hid, "o", self.class_item(type(obj), depth + 1)]

    def class_item(self, cls: type, depth: int = 0) -> list:
        name = _builtin_exception(cls)
        return ["x", name] if name else self.handle(cls, depth)

    def other(self, value: Any) -> list:
        if type(value) is _TestObject and value._server is self:
            return ["c", value._cid]
        return self.class_item(value) if isinstance(value, type) else self.handle(value)

    def encode(self, value: Any) -> Any:
        return codec.Encoder(self.other).encode(value)

    def references(self, value: Any) -> list:
        """A request's operand as a reference, a call's arguments and keywords each one."""
        if type(value) is tuple:
            return ["t", [self.other(item) for item in value]]
        if type(value) is dict:
            return ["d", [[["s", key], self.other(item)] for key, item in value.items()]]
        return self.other(value)

    def resolve(self, tag: str, item: list) -> Any:
        if tag == "h":
            return self.objects[item[1]]
        if tag == "c":
            return self.test_objects.setdefault(item[1], _TestObject(self, item[1]))
        if tag == "x":
            return _BUILTIN_EXCEPTIONS.get(item[1], Exception)
        cls = self.resolve(item[1][0], item[1])
        args = self.decode(item[2])
        try:
            return cls(*args)
        except Exception:
            return Exception(*args)

    def decode(self, item: Any) -> Any:
        return codec.Decoder(self.resolve).decode(item)

    def exception(self, exc: BaseException) -> list:
        try:
            listed = frames.listed(exc.__traceback__, _HIDDEN)  # the candidate's frames, as one process shows them
        except Exception:
            listed = []
        try:
            args = self.encode(tuple(exc.args))
        except Exception:
            args = ["t", []]
        if len(codec.dump(args)) > codec.MAX_FRAME // 2:
            args = ["t", [self.handle(exc.args)]]
        if len(codec.dump(listed)) > codec.MAX_FRAME // 4:  # arguments whose reprs escape to many bytes each
            listed = []
        return ["E", self.class_item(type(exc)), args, listed]

    def send(self, message: list) -> None:
        self.send_printed()
        wire.write(self.write_fd, codec.dump(message), None)

    def send_printed(self) -> None:
        """What the candidate printed since the last frame, in a frame of its own."""
        text = self.printed.take() if self.printed is not None else ""
        if text:
            wire.write(self.write_fd, codec.dump(["o", text]), None)

    def answer(self, request: list) -> None:
        _, seq, op, operands = request
        try:
            result = OPS[op](*self.decode(operands))
            frame = codec.dump(["r", seq, self.encode(result)])
            if len(frame) > codec.MAX_FRAME:  # too large as data: a handle instead
                frame = codec.dump(["r", seq, self.handle(result)])
        except BaseException as exc:  # the candidate's SystemExit too: it is the call's outcome
            frame = codec.dump(["e", seq, self.exception(exc)])
        self.send_printed()
        wire.write(self.write_fd, frame, None)

    def wait(self, seq: int | None) -> list:
        """Answer requests until the reply to our own request `seq` (None: forever)."""
        while True:
            try:
                message = codec.parse(self.reader.frame(None))
            except (wire.Closed, codec.Malformed):
                _exit(0)  # the test process is gone: nothing is left to answer
            if message[0] == "q":
                self.answer(message)
            elif seq is not None and message[1] == seq:
                return message
            else:
                _exit(3)

    def ask(self, op: str, *operands: Any) -> Any:
        """A request of the test process, about one of its objects; the requests it makes
        meanwhile are answered first."""
        with self.lock, self.room:  # the candidate's threads take turns, as the test's do
            seq = self.seq + 1
            frame = codec.dump(["q", seq, op, self.encode(operands)])
            if len(frame) > codec.MAX_FRAME:  # too large as data: the arguments as handles
                frame = codec.dump(["q", seq, op, ["t", [self.references(v) for v in operands]]])
            self.send_printed()
            wire.write(self.write_fd, frame, None)
            self.seq = seq  # once sent: a request its own code could not make took no number
            kind, _, value = self.wait(seq)
            outcome = self.resolve("E", value) if kind == "e" else self.decode(value)
        if kind == "e":
            raise outcome
        return outcome


def _ends(read: str, write: str) -> tuple[int, int]:
    if read.isdigit() and write.isdigit():
        return int(read), int(write)
    return wire.meet(read, write, None)  # the sandbox ends a server the test process never met


def _end_with_the_test(write_fd: int) -> None:
    """Exit when the test process has closed its end, even while the candidate's code holds
    the main thread (a call the test gave up on): nothing is left to answer."""
    watch = select.poll()
    watch.register(write_fd, 0)  # a pipe's write end reports only its reader's end
    watch.poll()
    _exit(0)


def main(argv: list[str]) -> None:
    candidate_dir, module = argv[0], argv[1]
    read_fd, write_fd = _ends(argv[2], argv[3])
    threading.Thread(target=_end_with_the_test, args=(write_fd,), daemon=True).start()
    sys.path.insert(0, candidate_dir)
    printed = sys.stdout = _Printed(sys.stdout)
    server = Server(read_fd, write_fd, printed)
    try:
        loaded = _import(module)
    except BaseException as exc:
        server.send(["e", 0, server.exception(exc)])
        _exit(0)
    server.send(["r", 0, server.encode(loaded)])
    server.wait(None)
