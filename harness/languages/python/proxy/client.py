"""The test process's side: the proxy module's session with the candidate's process, the
checks every frame from it passes, and the proxy classes (proxies.py) its references become.

Nothing read from the candidate's process is evaluated, unpickled or imported: a frame is
parsed by codec.py into plain values and references, and a reference becomes a proxy made
here. A frame that no honest server could send (not of the protocol, out of order, over a
bound) makes the run forged: the session writes one line to the harness's verdict file,
ends the candidate's process and raises `Forged` from this and every later call.

What the candidate printed comes in frames of its own (`["o", text]`, server.py); it is
written, never to this process's output (pytest's console is the harness's transcript),
but as one JSON line `{"test": node id, "text": ...}` to the config's `printed_path`,
under the test pytest names as under way (PYTEST_CURRENT_TEST), within PRINTED_PER_TEST
characters a test and PRINTED_TOTAL in all; what it printed outside a test is dropped."""

from __future__ import annotations

import atexit
import builtins
import json
import os
import signal
import subprocess
import sys
import threading
import time
import types
from typing import Any

from . import codec, frames, wire
from .ops import OPS
from .proxies import CallTimeout, Forged, NotStarted, ProxyError, RemoteMeta, RemoteObject, ServerGone, dunder, ref

# pytest leaves this module's frames out of a failure's traceback: a reader sees the test's line
# and the candidate's exception, as in one process.
__tracebackhide__ = True

PRINTED_PER_TEST = 2000   # characters of what the candidate printed, kept for one test
PRINTED_TOTAL = 512_000   # and for all of them

# What the candidate may ask of an object the test sent it (server._TestObject): uses, not
# changes; and of its attributes only the public ones (`get` of `_name` is an AttributeError).
_LENT_OPS = frozenset(("call", "get", "iter", "next", "enter", "exit", "len", "getitem", "contains", "str", "repr",
                       "bool"))


def _package_root() -> str:
    root = os.path.abspath(__file__)
    for _ in __package__.split(".") + ["client.py"]:
        root = os.path.dirname(root)
    return root


def server_argv(python: str, root: str, package: str, candidate_dir: str, module: str, read: str,
                write: str) -> list[str]:
    """The server's command line (server.py): `root` holds the runtime `package`; `read` and
    `write` are its ends, inherited descriptors' numbers or named pipes' paths."""
    boot = f"import sys; sys.path.insert(0, sys.argv[1]); from {package}.server import main; main(sys.argv[2:])"
    return [python, "-I", "-u", "-c", boot, root, candidate_dir, module, read, write]


def _spawn(config: dict[str, Any], module: str) -> tuple[subprocess.Popen, int, int]:
    """The server started here, in a session of its own, on a pair of pipes: (the process,
    the end to read it from, the end to write it to)."""
    to_server, from_test = os.pipe()
    from_server, to_test = os.pipe()
    log = open(config["log_path"], "ab") if config.get("log_path") else subprocess.DEVNULL
    try:
        process = subprocess.Popen(
            server_argv(config.get("python") or sys.executable, _package_root(), __package__, config["candidate_dir"],
                        module, str(to_server), str(to_test)),
            pass_fds=(to_server, to_test), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            cwd=config["candidate_dir"], start_new_session=True,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"})
    finally:
        os.close(to_server)
        os.close(to_test)
        if not isinstance(log, int):  # a file, not subprocess.DEVNULL
            log.close()
    return process, from_server, from_test


class Session:
    """One candidate process, started at the proxy module's import, answering in order."""

    def __init__(self, config: dict[str, Any]):
        self.module = config["module"]
        self.candidate_dir = config["candidate_dir"]
        self.timeout = float(config["call_timeout_s"])
        self.time_left = float(config["total_timeout_s"])
        self.verdict_path = config.get("verdict_path")
        self.printed_path = config.get("printed_path")
        self.printed: dict[str, int] = {}  # characters kept, by test
        self.gone: str | None = None
        self.forged: str | None = None
        self.classes: dict[int, type] = {}
        self.objects: dict[int, RemoteObject] = {}
        self.lent: dict[int, Any] = {}       # the test's objects the candidate was sent, kept alive so ids stay unique
        self.lent_ids: dict[int, int] = {}
        self.pending: list[int] = []
        self.lock = threading.RLock()  # reentrant: a call back runs on the thread that waits
        self.room = wire.Room()
        self.seq = 0
        self.server_seq = 0
        self.deadline = time.monotonic() + float(config["start_timeout_s"])
        self.process: subprocess.Popen | None = None
        if config.get("fifos"):  # the sandbox started the server, as another user: meet it
            to_server, from_server = config["fifos"]
            try:
                read_fd, write_fd = wire.meet(from_server, to_server, self.deadline)
            except wire.TimedOut:
                why = f"the candidate's process did not start within {config['start_timeout_s']:g} s"
                if config.get("unstarted_path"):  # said here, where no code of the candidate's runs
                    with open(config["unstarted_path"], "a", encoding="utf-8") as unstarted:
                        unstarted.write(why + "\n")
                raise NotStarted(why) from None
            except wire.Closed as exc:
                raise ServerGone(f"the candidate's process could not be reached: {exc}") from None
        else:
            self.process, read_fd, write_fd = _spawn(config, self.module)
        self.write_fd = write_fd
        os.set_blocking(write_fd, False)
        self.reader = wire.Reader(read_fd)
        atexit.register(self.close, "the test process ended")
        self.pending.append(0)
        try:
            self.module_object = self._await(0)
        finally:
            self.pending.pop()

    # -- requests ------------------------------------------------------------------------

    def request(self, op: str, *operands: Any) -> Any:
        with self.lock, self.room:  # a test's threads take turns: frames of one call never interleave with another's
            return self._request(op, operands)

    def _request(self, op: str, operands: tuple) -> Any:
        self._check()
        self.seq += 1
        seq = self.seq
        frame = codec.dump(["q", seq, op, self.encode(operands)])
        if len(frame) > codec.MAX_FRAME:
            raise ValueError(f"the arguments are over {codec.MAX_FRAME} bytes: too large to send to the candidate's process")
        started = time.monotonic()
        if not self.pending:
            self.deadline = started + min(self.timeout, self.time_left)
        self.pending.append(seq)
        try:
            self._send(frame)
            return self._await(seq)
        finally:
            self.pending.pop()
            if not self.pending:
                self.time_left -= time.monotonic() - started

    def _printed(self, text: str) -> None:
        """What the candidate printed, kept for the test under way (the module docstring)."""
        current = os.environ.get("PYTEST_CURRENT_TEST", "")
        if not (self.printed_path and current and text):
            return
        test = current.rsplit(" (", 1)[0]  # "file.py::Class::test_x (call)"
        room = min(PRINTED_PER_TEST - self.printed.get(test, 0), PRINTED_TOTAL - sum(self.printed.values()))
        if room <= 0:
            return
        text = text[:room]
        self.printed[test] = self.printed.get(test, 0) + len(text)
        with open(self.printed_path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"test": test, "text": text}) + "\n")

    def _check(self) -> None:
        if self.forged:
            raise Forged(self.forged)
        if self.gone:
            raise ServerGone(self.gone)

    def _send(self, frame: bytes) -> None:
        try:
            wire.write(self.write_fd, frame, self.deadline)
        except wire.TimedOut:
            self._timed_out()
        except wire.Closed:
            self._died()

    def _await(self, seq: int) -> Any:
        while True:
            message = self._read()
            kind = message[0] if type(message) is list and message else None
            if kind == "o" and len(message) == 2 and type(message[1]) is str:
                self._printed(message[1])
                continue
            if kind in ("r", "e") and len(message) == 3 and type(message[1]) is int and message[1] == seq:
                if kind == "r":
                    return self.decode(message[2])
                raise self._exception(message[2])
            if kind == "q" and len(message) == 4 and type(message[1]) is int and message[1] == self.server_seq + 1 \
                    and message[2] in _LENT_OPS and seq != 0:
                self.server_seq += 1
                self._answer(message[1], message[2], message[3])
                continue
            self.forge("a message out of order or not of the protocol")

    def _read(self) -> Any:
        try:
            return codec.parse(self.reader.frame(self.deadline))
        except wire.TimedOut:
            self._timed_out()
        except wire.Closed:
            self._died()
        except codec.Malformed as exc:
            self.forge(str(exc))

    def _timed_out(self) -> None:
        # a call's own bound, or what is left of the session's (a remote iteration of a
        # hundred million items is a million quick calls)
        self.close(f"the candidate's process gave no answer within {self.timeout:g} s, or used up its total "
                   "time, and was ended")
        raise CallTimeout(self.gone)

    def _died(self) -> None:
        status = None
        if self.process is not None:  # a server of the sandbox's: its status is not ours to know
            try:
                status = self.process.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
        self.close(f"the candidate's process ended{'' if status is None else f' (exit status {status})'} "
                   "before it answered")
        raise ServerGone(self.gone)

    def forge(self, reason: str) -> None:
        if self.forged is None:
            self.forged = reason
            if self.verdict_path:
                with open(self.verdict_path, "a", encoding="utf-8") as verdict:
                    verdict.write(f"forged: {reason}\n")
        self.close(f"forged: {reason}")
        raise Forged(reason)

    def close(self, reason: str) -> None:
        if self.gone:
            return
        self.gone = reason
        for fd in (self.write_fd, self.reader.fd):  # first: a server of another user's sees the end
            try:
                os.close(fd)
            except OSError:
                pass
        if self.process is None:  # the sandbox's: it ends at the end of its stream, or with the run
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def _answer(self, seq: int, op: str, operands: Any) -> None:
        """The candidate used an object the test sent it (called a lambda, read a file
        object): do it here, and answer with the outcome."""
        operands = self.decode(operands)
        if not (type(operands) is tuple and operands and self._is_lent(operands[0])):
            self.forge("a request about an object the test did not send")
        if op == "call" and not (len(operands) == 3 and type(operands[1]) is tuple and type(operands[2]) is dict
                                 and all(type(k) is str for k in operands[2])):
            self.forge("a call that is not of the protocol")
        try:
            if op == "get" and not (len(operands) == 2 and type(operands[1]) is str and not operands[1].startswith("_")):
                raise AttributeError("the candidate's process reads no private attribute of the test's objects")
            reply = ["r", seq, self.encode(OPS[op](*operands))]
        except ProxyError:
            raise
        except Exception as exc:
            reply = ["e", seq, self._exception_item(exc)]
        except BaseException:  # the test left its own callable (pytest.fail, exit): the request can never be answered
            self.close("a request to the test process did not return")
            raise
        self._send(codec.dump(reply))

    def _is_lent(self, value: Any) -> bool:
        return self.lent.get(self.lent_ids.get(id(value), 0)) is value

    # -- values --------------------------------------------------------------------------

    def encode(self, value: Any) -> Any:
        return codec.Encoder(self._other).encode(value)

    def _other(self, value: Any) -> list | None:
        if isinstance(value, (RemoteObject, RemoteMeta)):
            session, hid = ref(value)
            if session is not self:
                raise TypeError("an object of another candidate process cannot be sent to this one")
            return ["h", hid]
        if isinstance(value, type) and issubclass(value, BaseException):
            return self._exception_class_item(value)
        if isinstance(value, BaseException):
            return self._exception_item(value)[:3]
        if isinstance(value, types.TracebackType):
            return None  # a traceback stays in the test process (a context manager's __exit__ gets None)
        cid = self.lent_ids.get(id(value))
        if cid is None:
            cid = self.lent_ids[id(value)] = len(self.lent) + 1
            self.lent[cid] = value
        return ["c", cid]

    def _exception_class_item(self, cls: type) -> list:
        ref = cls.__dict__.get("_harness_ref")
        if ref and ref[0] is self:
            return ["h", ref[1]]
        return ["x", cls.__name__ if getattr(builtins, cls.__name__, None) is cls else "Exception"]

    def _exception_item(self, exc: BaseException) -> list:
        try:
            args = self.encode(tuple(exc.args))
        except TypeError:
            args = ["t", [["s", str(exc)[: codec.MAX_STR]]]]
        return ["E", self._exception_class_item(type(exc)), args]

    def decode(self, item: Any) -> Any:
        try:
            return codec.Decoder(self._resolve).decode(item)
        except codec.Malformed as exc:
            self.forge(str(exc))

    def _resolve(self, tag: str, item: list) -> Any:
        if tag == "h":
            return self._handle(item, 0)
        if tag == "c" and len(item) == 2 and type(item[1]) is int and item[1] in self.lent:
            return self.lent[item[1]]
        if tag == "x":
            return self._class(item, 0)
        raise codec.Malformed(f"a reference of tag {tag!r} not in its form")

    def _handle(self, item: list, depth: int) -> Any:
        if not (len(item) in (4, 5) and type(item[1]) is int and 0 < item[1] < 1 << 53 and item[2] in ("c", "o")):
            raise codec.Malformed("a handle not in its form")
        if item[2] == "c":
            return self._class(item, depth)
        if len(item) != 4:
            raise codec.Malformed("an object's handle not in its form")
        known = self.objects.get(item[1])
        if known is not None:
            return known
        cls = self._class(item[3], depth + 1)
        if item[1] in self.classes:
            raise codec.Malformed("a class's handle named as an object")
        proxy: RemoteObject = object.__new__(cls if isinstance(cls, RemoteMeta) else RemoteObject)  # type: ignore[arg-type]  # a RemoteMeta is a RemoteObject class
        object.__setattr__(proxy, "_harness_ref", (self, item[1]))
        self.objects[item[1]] = proxy
        return proxy

    def _class(self, item: Any, depth: int) -> type:
        """The proxy class of a class item: a builtin exception by name, or a class of the
        candidate's process (made once, so that `isinstance` and `pytest.raises` hold)."""
        if depth > codec.MAX_CLASS_DEPTH or type(item) is not list or not item:
            raise codec.Malformed("a class not in its form")
        if item[0] == "x" and len(item) == 2 and type(item[1]) is str:
            return _builtin_exception(item[1])
        if not (item[0] == "h" and len(item) == 5 and type(item[1]) is int and 0 < item[1] < 1 << 53
                and item[2] == "c" and type(item[3]) is str and len(item[3]) <= codec.MAX_NAME
                and type(item[4]) is list and len(item[4]) <= codec.MAX_CLASS_DEPTH):
            raise codec.Malformed("a class's handle not in its form")
        known = self.classes.get(item[1])
        if known is not None:
            return known
        if item[1] in self.objects:
            raise codec.Malformed("an object's handle named as a class")
        bases = [self._class(base, depth + 1) for base in item[4]]
        namespace = {"__module__": self.module, "__qualname__": item[3], "_harness_ref": (self, item[1])}
        errors = tuple(dict.fromkeys(b for b in bases if issubclass(b, BaseException)))
        remote = tuple(dict.fromkeys(b for b in bases if isinstance(b, RemoteMeta)))
        try:
            cls = type(item[3], errors, namespace) if errors else RemoteMeta(item[3], remote or (RemoteObject,), namespace)
        except TypeError:  # bases no local class can have together (a layout, an order)
            cls = type(item[3], (Exception,), namespace) if errors else RemoteMeta(item[3], (RemoteObject,), namespace)
        self.classes[item[1]] = cls
        return cls

    def _exception(self, item: Any) -> BaseException:
        """The candidate's exception, raised here as its builtin type or its proxy class."""
        if not (type(item) is list and len(item) == 4 and item[0] == "E" and frames.well_formed(item[3])):
            self.forge("an exception not in its form")
        try:
            cls = self._class(item[1], 0)
        except codec.Malformed as exc:
            self.forge(str(exc))
        if not issubclass(cls, BaseException):
            self.forge("an exception of a class that is not one")
        args = self.decode(item[2])
        if type(args) is not tuple:
            self.forge("an exception's arguments that are not a tuple")
        try:
            made = cls(*args)
        except Exception:  # a builtin whose constructor wants other arguments (UnicodeError)
            made = _named_exception(cls.__name__, Exception)(*args)
        # Raised from here, the test's frames and ours (hidden) come before the candidate's.
        return made.with_traceback(frames.traceback_of(item[3], self.candidate_dir))


_NAMED: dict[tuple[str, type], type] = {}


def _named_exception(name: str, base: type) -> type:
    """A stand-in of a builtin exception's name that cannot be raised as itself here: a
    BaseException for SystemExit or KeyboardInterrupt (raised as themselves they would end
    the test run, not fail one test; as an Exception, `pytest.raises(Exception)` would pass),
    an Exception for one whose constructor refuses the arguments it came with."""
    if (name, base) not in _NAMED:
        _NAMED[name, base] = type(name, (base,), {"__module__": "candidate"})
    return _NAMED[name, base]


def _builtin_exception(name: str) -> type:
    cls = getattr(builtins, name, None) if name.isidentifier() else None
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        raise codec.Malformed("a builtin exception that is not one")
    return cls if issubclass(cls, Exception) else _named_exception(name, BaseException)


class _ProxyModule(types.ModuleType):
    """The proxy module's type: what a test sets or deletes on it (`mock.patch("grep.open",
    ...)`) is set or deleted in the candidate's module, where its functions look it up."""

    def __setattr__(self, name: str, value: Any) -> None:
        if dunder(name):
            super().__setattr__(name, value)
        else:
            session = self.__dict__["_harness_session"]
            session.request("set", session.module_object, name, value)

    def __delattr__(self, name: str) -> None:
        if dunder(name):
            super().__delattr__(name)
        else:
            session = self.__dict__["_harness_session"]
            session.request("del", session.module_object, name)


def bind(namespace: dict[str, Any], config: dict[str, Any]) -> None:
    """Make the generated module at `namespace` the proxy of the candidate's module."""
    try:
        session = Session(config)
    except (ProxyError, KeyboardInterrupt):
        raise

    def __getattr__(name: str) -> Any:
        if dunder(name):
            raise AttributeError(name)
        return session.request("get", session.module_object, name)

    namespace["__getattr__"] = __getattr__
    namespace["_harness_session"] = session
    sys.modules[namespace["__name__"]].__class__ = _ProxyModule
