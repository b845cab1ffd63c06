"""Drives Aider Coders, one per task-trial, over JSON lines on stdin/stdout.

Run by the Aider environment's Python, never imported by the harness: it may use only the
standard library and aider. Requests, one JSON object per line:

  {"op": "ping"}                     -> {"ok": true, "aider_version": "...", "pid": N}
  {"op": "start", ...settings...}    -> {"ok": true, "pid": N, ...}            (a session; with
                                        "history": {"done", "current"} it continues that chat)
  {"op": "send", "message": "..."}   -> {"ok": true, "round": {...}}           (in a session)
  {"op": "end"}                      -> {"ok": true}                           (ends it)
  {"op": "close"}                    -> {"ok": true}, then the process exits
  {"op": "fork", "socket": PATH,     -> {"ok": true, "pid": N}                 (a new driver, with
   "env": {...}, "log": PATH|null}                                               that environment and log)

A session started with "paced": true asks before each model request, {"op": "pace"}, and
sends it once the harness answers {"op": "go"} (a provider's rate limit, kept by the harness).

A failure of the driver itself answers {"ok": false, "error": "..."}. One process serves
any number of sessions one after another, each a fresh Coder in a forked child. `fork`
makes another driver from this warm one, with no import of its own: a child in a session
of its own that connects to the Unix socket the harness listens on and speaks the same
protocol there. A driver that has forked one serves only `fork`, `ping` and `close`
after that (it reaps its drivers as they end, which would steal a session's exit status).

The Coder is set up the way Aider's own benchmark sets it up: only the solution files in
the chat, mentions of any other file ignored, no git, no repository map, no shell command
suggestions, no auto-test, non-streaming, every confirmation answered yes; auto-lint with
Aider's own linter as the session asks (on in Aider's benchmark). A round ends when the
chat-history summary it started is done, so every model call belongs to the round that
caused it and none is cut off when the session ends.
Aider must never wait on a terminal or reach the network for anything but the model: the
protocol streams are moved off file descriptors 0 and 1 before aider is imported, so
stdin reads end-of-file and anything aider prints lands on stderr (the harness keeps it as
the trial's agent log); analytics, the version check and the model-metadata download are
never started."""

from __future__ import annotations

import http.server
import importlib.util
import json
import os
import re
import signal
import socket
import sys
import threading
import time
import traceback
from datetime import datetime, timezone
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

# Aider's benchmark counts lines like "# ... rest of the code ..." in the final reply of
# each try, with this pattern; ours also counts the C++ spelling, //, in every reply.
AIDER_LAZY_COMMENT = re.compile(r"^[+]? *[#].* [.][.][.] ", re.MULTILINE)
LAZY_COMMENT = re.compile(r"^[+]? *(#|//).* [.][.][.] ", re.MULTILINE)
NOTE_CAP = 4000  # characters of aider's own messages kept per round


def _load_file_names():
    """The harness's path check (harness/file_names.py, standard library only), loaded by
    its path: this script never imports the harness."""
    harness = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(harness, "file_names.py")
    spec = importlib.util.spec_from_file_location("harness_file_names", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


FILE_NAMES = _load_file_names()


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class _NoAnalytics:
    """Aider's Coder builds an Analytics object (which writes a user id under $HOME) unless
    given one; this one records nothing and sends nothing."""

    def event(self, *args, **kwargs) -> None:
        return None


class Recorder:
    """Every model request of the current round: what was sent, what came back, when,
    how long, the usage the server reported, and the error if the call failed. A `gate`
    is waited for before each request."""

    def __init__(self, gate=None) -> None:
        self.calls: list[dict] = []
        self.local = threading.local()
        self.lock = threading.Lock()
        self.gate = gate

    def wrap(self, completion):
        def recorded(**kwargs):
            if self.gate is not None:
                self.gate()
            purpose = getattr(self.local, "purpose", None) or "summarize"
            call = {
                "purpose": purpose,
                "started_at": now(),
                "request": [_plain_message(m) for m in kwargs.get("messages") or []],
            }
            t0 = time.monotonic()
            try:
                response = completion(**kwargs)
            except BaseException as exc:
                call.update(seconds=round(time.monotonic() - t0, 4), finished_at=now(),
                            error_type=type(exc).__name__, error=str(exc)[:2000])
                with self.lock:
                    self.calls.append(call)
                raise
            call.update(seconds=round(time.monotonic() - t0, 4), finished_at=now())
            if response is None:
                # No response object at all is a broken exchange, not an empty answer.
                call.update(error_type="NoResponse", error="the completion call returned no response")
            else:
                call.update(_response_fields(response))
            with self.lock:
                self.calls.append(call)
            return response

        return recorded

    def take(self) -> list[dict]:
        with self.lock:
            calls, self.calls = self.calls, []
        return calls


def _plain_message(m) -> dict:
    if isinstance(m, dict):
        content = m.get("content")
        if isinstance(content, list):  # content parts (cache-control markers): keep the text
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return {"role": m.get("role"), "content": content}
    return {"role": getattr(m, "role", None), "content": getattr(m, "content", None)}


def _response_fields(response) -> dict:
    out: dict = {"response": None, "prompt_tokens": None, "completion_tokens": None}
    try:
        out["response"] = response.choices[0].message.content
    except Exception:
        pass
    try:
        out["finish_reason"] = response.choices[0].finish_reason
    except Exception:
        pass
    usage = getattr(response, "usage", None)
    if usage is not None:
        out["prompt_tokens"] = getattr(usage, "prompt_tokens", None)
        out["completion_tokens"] = getattr(usage, "completion_tokens", None)
    return out


class Session:
    def __init__(self, req: dict, recorder: Recorder) -> None:
        # Aider's environment's packages, imported once the protocol streams left fds 0 and 1
        # (see above); _preload loaded them before the fork
        from aider import __version__
        from aider import models
        from aider.coders import Coder
        from aider.coders import base_coder
        from aider.io import InputOutput
        from aider.llm import litellm

        self.version = __version__
        self.recorder = recorder

        # Model metadata comes from litellm's bundled table, Aider's own metadata file and,
        # for a model neither knows, the agent profile's figures when the profile gives
        # them; never from the download aider would otherwise attempt.
        manager = models.model_info_manager
        manager._cache_loaded = True
        manager._update_cache = lambda: None
        model_name = req["model"]
        info = req.get("model_info") or {}
        if info:
            try:
                known = litellm.get_model_info(model_name)
            except Exception:
                known = None
            if not known:
                litellm.register_model({model_name: dict(info)})
                manager.local_model_metadata[model_name] = dict(info)

        models.request_timeout = float(req.get("request_timeout_s", 600))
        retry = float(req.get("provider_retry_s", 60))
        models.RETRY_TIMEOUT = retry
        base_coder.RETRY_TIMEOUT = retry

        litellm.completion = recorder.wrap(litellm.completion)

        main_model = models.Model(model_name)
        extra = dict(main_model.extra_params or {})
        extra.update(req.get("extra_params") or {})
        main_model.extra_params = extra or None

        self.io = InputOutput(
            pretty=False, yes=True, fancy_input=False,
            chat_history_file=req.get("chat_history_file"),
            input_history_file=None,
        )
        self.notes: list[str] = []
        for name in ("tool_error", "tool_warning"):
            self._capture(name)

        workspace = req["workspace"]
        fnames = [os.path.join(workspace, f) for f in req["files"]]
        read_only = [os.path.join(workspace, f) for f in req.get("read_only") or []]
        self.coder = Coder.create(
            main_model,
            req.get("edit_format") or "whole",
            self.io,
            fnames=fnames,
            read_only_fnames=read_only,
            use_git=False,
            stream=False,
            map_tokens=0,
            auto_lint=bool(req.get("auto_lint")),
            auto_test=False,
            cache_prompts=True,
            suggest_shell_commands=False,
            detect_urls=False,
            ignore_mentions=set(req.get("ignore_mentions") or []),
            analytics=_NoAnalytics(),
        )
        # As in Aider's benchmark: no other file is ever pulled into the chat.
        self.coder.get_file_mentions = lambda content, ignore_current=False: set()
        self._confine_edits()
        if req.get("temperature") is not None:
            self.coder.temperature = float(req["temperature"])
        system_text = req.get("system_text")
        if system_text:
            prompts = type(self.coder.gpt_prompts)()
            # Aider formats its system prompt with str.format; braces in ours are literal.
            escaped = system_text.replace("{", "{{").replace("}", "}}")
            prompts.main_system = prompts.main_system.rstrip("\n") + "\n\n" + escaped + "\n"
            self.coder.gpt_prompts = prompts

        history = req.get("history")
        if history:
            # A resumed trial: the conversation as it stood after its last tested round,
            # and the summary Aider would have started then, if the history is too big.
            self.coder.done_messages = list(history.get("done") or [])
            self.coder.cur_messages = list(history.get("current") or [])
            self.coder.summarize_start()

        original_send = self.coder.send
        local = recorder.local

        def send(messages, model=None, functions=None):
            local.purpose = "edit"
            try:
                yield from original_send(messages, model=model, functions=functions)
            finally:
                local.purpose = None

        self.coder.send = send

    def _confine_edits(self) -> None:
        """Aider's benchmark runs Aider itself in a container; here it runs on the host, so
        every file an answer edits goes through the harness's one path check first
        (harness/file_names.py: relative, inside the workspace, no link on the way, no
        device). An answer naming a file it refuses is malformed, as Aider counts a
        malformed answer: nothing of it is written and the reason goes back to the model.
        Edits inside the workspace go through as Aider has them (a changed test file is
        restored and flagged by the sandbox)."""
        coder, io = self.coder, self.io
        root = os.path.realpath(coder.root)
        original = coder.get_edits

        def get_edits(*args, **kwargs):
            edits = original(*args, **kwargs)
            if kwargs.get("mode", args[0] if args else "update") != "update":
                return edits
            for edit in edits:
                path = edit[0]
                if path is None:
                    continue
                problem = FILE_NAMES.refusal(path, root=root)
                if problem is None and not os.path.realpath(coder.abs_root_path(path)).startswith(root + os.sep):
                    problem = "outside the workspace"
                if problem is not None:
                    refused = f"Refused an edit to {FILE_NAMES.describe(path, problem)}."
                    io.tool_error(refused)  # the round's notes keep the name
                    raise ValueError(f"{refused} Edit only files inside the workspace, by their relative names.")
            return edits

        coder.get_edits = get_edits

    def _capture(self, name: str) -> None:
        original = getattr(self.io, name)
        notes = self.notes

        def captured(message="", strip=True):
            text = str(message)
            if text.strip() and sum(len(n) for n in notes) < NOTE_CAP:
                notes.append(text[:NOTE_CAP])
            return original(message, strip=strip)

        setattr(self.io, name, captured)

    def counters(self) -> dict:
        c = self.coder
        return {
            "malformed_responses": c.num_malformed_responses,
            "exhausted_context_windows": c.num_exhausted_context_windows,
            "user_asks": self.io.num_user_asks,
            "error_outputs": self.io.num_error_outputs,
            "prompt_tokens": c.total_tokens_sent,
            "completion_tokens": c.total_tokens_received,
            "cost": c.total_cost,
        }

    def send(self, message: str) -> dict:
        before = self.counters()
        self.notes.clear()
        sent_at = now()
        t0 = time.monotonic()
        response = self.coder.run(with_message=message, preproc=False)
        # Aider joins a summary at its next request; joined here, it is this round's call.
        self.coder.summarize_end()
        seconds = time.monotonic() - t0
        after = self.counters()
        counters = {k: after[k] - before[k] for k in after}
        calls = self.recorder.take()
        edit_calls = [c for c in calls if c["purpose"] == "edit"]
        replies = [c.get("response") or "" for c in edit_calls if "error" not in c]
        counters["lazy_comments"] = len(AIDER_LAZY_COMMENT.findall(response or ""))
        counters["lazy_comments_all_replies"] = sum(len(LAZY_COMMENT.findall(r)) for r in replies)
        counters["empty_responses"] = sum(1 for r in replies if not r.strip())
        # Summaries count too: the round waits for the last one.
        model_seconds = sum(c["seconds"] for c in calls)
        # The round ended on a provider failure when its last model call failed (Aider
        # retried with backoff and gave up). A full context window is the model's problem.
        provider_error = None
        if edit_calls and "error" in edit_calls[-1] and edit_calls[-1]["error_type"] != "ContextWindowExceededError":
            failed = 0
            for c in reversed(edit_calls):
                if "error" not in c:
                    break
                failed += 1
            last = edit_calls[-1]
            provider_error = {"type": last["error_type"], "message": last["error"], "failed_calls": failed}
        edited = sorted(
            os.path.relpath(f, self.coder.root) if os.path.isabs(f) else f
            for f in (self.coder.aider_edited_files or ())
        )
        return {
            "sent_at": sent_at,
            "response": response,
            "edited_files": edited,
            "calls": calls,
            "counters": counters,
            "model_seconds": round(model_seconds, 4),
            "agent_seconds": round(max(0.0, seconds - model_seconds), 4),
            "provider_error": provider_error,
            "notes": list(self.notes),
            "chat": {"done": [_plain_message(m) for m in self.coder.done_messages],
                     "current": [_plain_message(m) for m in self.coder.cur_messages]},
        }


def _preload() -> None:
    """Everything slow to import, once, before any session forks from this process."""
    import aider.coders  # noqa: F401
    import aider.io  # noqa: F401
    from aider.exceptions import LiteLLMExceptions
    from aider.llm import litellm

    litellm._load_litellm()
    LiteLLMExceptions()
    # Aider's own metadata for models litellm's table lacks, registered as Aider's CLI and
    # its benchmark register it.
    import importlib_resources
    from aider import models

    models.register_litellm_models([importlib_resources.files("aider.resources").joinpath("model-metadata.json")])
    # The OpenAI client imports its resource classes on first use: a second per session
    # otherwise, on the path every OpenAI-compatible server takes.
    import openai.resources  # noqa: F401


class _OneAnswer(http.server.BaseHTTPRequestHandler):
    """A chat completion endpoint that answers "ok" (for `_warm_up`, on 127.0.0.1)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.dumps({
            "id": "warm-up", "object": "chat.completion", "created": 0, "model": "warm-up",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def _warm_up() -> None:
    """Do once here what every forked session would otherwise do on its first round, each
    time from scratch: load the tokenizer that counts the chat's tokens (about half a second)
    and take litellm's completion path once (lazy imports, schema builds: about as much
    again). The completion goes to a one-shot server on 127.0.0.1; what it leaves behind
    that a fork must not inherit (a pooled client, litellm's worker thread) is undone."""
    # Aider's packages, loaded by _preload once the protocol streams left fds 0 and 1
    from aider.llm import litellm
    from litellm.litellm_core_utils import thread_pool_executor

    message = [{"role": "user", "content": "warm-up"}]
    server = http.server.HTTPServer(("127.0.0.1", 0), _OneAnswer)
    answering = threading.Thread(target=server.handle_request, daemon=True)
    answering.start()
    try:
        litellm.token_counter(model="openai/warm-up", messages=message)
        litellm.completion(model="openai/warm-up", messages=message, api_key="warm-up", timeout=30,
                           api_base=f"http://127.0.0.1:{server.server_address[1]}/v1")
    except Exception as exc:  # only time is lost: each session then pays for itself
        print(f"aider driver: warm-up failed ({type(exc).__name__}: {exc})", file=sys.stderr)
    finally:
        server.server_close()
        answering.join(5)
        litellm.in_memory_llm_clients_cache.flush_cache()
        # A fork keeps the pool's bookkeeping but not its thread: a child would queue work
        # for a worker it does not have. Joined and made new, the pool starts its own.
        # Aider's pinned litellm keeps a plain ThreadPoolExecutor here (the harness's own
        # litellm, which mypy reads, a subclass of it with other arguments).
        pool: ThreadPoolExecutor = thread_pool_executor.executor
        pool.shutdown(wait=True)
        type(pool).__init__(pool, max_workers=thread_pool_executor.MAX_THREADS)
    others = [t.name for t in threading.enumerate() if t is not threading.main_thread()]
    if others:
        print(f"aider driver: threads still running before sessions fork: {', '.join(others)}", file=sys.stderr)


def _serve_session(first: dict, proto_in, reply) -> None:
    """The forked child: one Coder for one task-trial, then exit. Every request gets a
    reply, failures included: the harness is waiting on each one."""
    session = None
    try:
        log = first.get("log_file")
        if log:
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            os.dup2(fd, 2)
            os.dup2(fd, 1)
            os.close(fd)
        session = Session(first, Recorder(_pacer(proto_in, reply) if first.get("paced") else None))
        reply({"ok": True, "aider_version": session.version, "pid": os.getpid()})
    except Exception as exc:
        traceback.print_exc()
        reply({"ok": False, "error": f"{type(exc).__name__}: {exc}"})
        return
    for line in proto_in:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            op = req.get("op")
            if op == "send":
                reply({"ok": True, "round": session.send(req["message"])})
            elif op == "end":
                reply({"ok": True})
                return
            else:
                raise RuntimeError(f"unknown op in a session {op!r}")
        except Exception as exc:
            traceback.print_exc()
            reply({"ok": False, "error": f"{type(exc).__name__}: {exc}"})


def _pacer(proto_in, reply):
    """Ask the harness before a request and wait for its go; one request asks at a time
    (a chat-history summary runs in a thread of its own)."""
    lock = threading.Lock()

    def wait() -> None:
        with lock:
            reply({"op": "pace"})
            proto_in.readline()

    return wait


def main() -> None:
    # The protocol owns private copies of fds 0 and 1; aider gets /dev/null and stderr.
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")
    sys.stdout = sys.stderr
    _preload()
    _warm_up()
    _serve(proto_in, proto_out)
    sys.stderr.flush()
    os._exit(0)


def _serve(proto_in, proto_out) -> None:
    """Answer requests on one channel until it closes or asks to close."""

    def reply(obj: dict) -> None:
        proto_out.write(json.dumps(obj) + "\n")
        proto_out.flush()

    forked = False
    # Each session runs in a child forked from this warm process: imports are paid once
    # per driver, and no state (a background summarization, a patched global) outlives
    # its trial. The protocol is strictly request/reply, so no input is buffered here
    # while a child reads the same stream.
    for line in proto_in:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            op = req.get("op")
        except ValueError as exc:
            reply({"ok": False, "error": f"bad request: {exc}"})
            continue
        if op == "ping":
            # aider is imported only once the protocol streams left fds 0 and 1 (see above)
            from aider import __version__

            reply({"ok": True, "aider_version": __version__, "pid": os.getpid()})
        elif op == "start" and not forked:
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    _serve_session(req, proto_in, reply)
                except BaseException:
                    traceback.print_exc()
                    code = 70  # the parent answers for a child that could not
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    # Background threads (a summarization in flight) are not waited for.
                    os._exit(code)
            _, status = os.waitpid(pid, 0)
            if status != 0:
                reply({"ok": False, "error": f"the Aider session process died ({_status_text(status)})"})
        elif op == "fork":
            if not forked:
                signal.signal(signal.SIGCHLD, _reap_drivers)
                forked = True
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _become_driver(req, proto_in, proto_out)
            reply({"ok": True, "pid": pid})
        elif op == "close":
            reply({"ok": True})
            break
        else:
            reply({"ok": False, "error": f"unknown op {op!r}" + (" (this driver forks drivers)" if forked else "")})


def _become_driver(req: dict, parent_in, parent_out) -> None:
    """The forked child: drop the parent's channel (a copy held here would keep the
    harness from seeing the parent end), take a session of our own (the harness kills a
    driver by its process group), the environment and log of the run that asked for it
    (the parent may have been started for an earlier run), and serve the socket until it
    closes."""
    code = 0
    try:
        parent_in.close()
        parent_out.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.setsid()
        if req.get("env") is not None:
            os.environ.clear()
            os.environ.update(req["env"])
        sys.stderr.flush()
        log = os.open(req["log"] if req.get("log") else os.devnull, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.dup2(log, 2)
        os.dup2(log, 1)
        os.close(log)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(req["socket"])
        _serve(sock.makefile("r", encoding="utf-8"), sock.makefile("w", encoding="utf-8"))
    except BaseException:
        traceback.print_exc()
        code = 70
    finally:
        sys.stderr.flush()
        os._exit(code)


def _reap_drivers(signum, frame) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _status_text(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit code {os.WEXITSTATUS(status)}"


if __name__ == "__main__":
    main()
