"""The direct agent (`agent = "direct"`): no Aider, one chat completion per round through
litellm, asked with a fresh prompt each round: the contract's system text, then the
round's message (the instructions, or the feedback on the last round) followed by the
files as they are now in whole-file listings (contract.listing_prompt, the prompt training
completions are asked with, the profile's words on the answer's format after the system
text). The answer is read in the whole format as Aider's whole-file
coder reads it (editformat.parse_whole) and written to the workspace only if every file
name in it passes the one path check (file_names.refusal), lexically and then on disk; an
answer that writes a file the chat shows read-only or does not offer is refused whole.

For studies that sample completions directly, and for protocols that need a fresh prompt
per step; a resumed trial needs nothing of its conversation but the workspace. Where the
chat has a submit marker (Self-RLEF's decision step), an answer that is the marker alone,
and nothing else, submits the code as it stands: nothing is written."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from ..contract import listing_prompt
from ..file_names import describe, refusal
from ..llm import litellm
from ..records import AgentCounters, ChatState, ModelCall, ProviderError
from ..store import utc_now
from .base import Agent, AgentChat, AgentHost, AgentProfile, AgentRound
from .editformat import choose_fence, parse_whole

ANSWER_FORMAT = ("Answer with each file you change in full: its name on a line of its own, "
                 "then its whole content in a fenced code block.")
# The first wait after a failed request; each next one doubles, within provider_retry_s.
_FIRST_WAIT_S = 0.5


class DirectProfile(AgentProfile):
    agent: Literal["direct"] = "direct"
    edit_format: Literal["whole"] = "whole"
    fresh_prompts: ClassVar[bool] = True
    # The agent's own words on the answer's format (Aider's prompts say it in an Aider run),
    # after the contract's system text.
    answer_format: str = ANSWER_FORMAT
    extra_params: dict[str, Any] = Field(default_factory=dict)  # passed to every completion call


def _read(workspace: Path, names: list[str]) -> dict[str, bytes]:
    """The chat's files as they are now, those that exist, each name checked first (a
    workspace is the model's to fill; a link in it is never followed)."""
    out = {}
    for rel in names:
        if refusal(rel, root=workspace) is None and (workspace / rel).is_file():
            out[rel] = (workspace / rel).read_bytes()
    return out


def _cost(response: Any) -> float:
    """What litellm's price table says the answer cost; 0 for a model it has no price for
    (a local server)."""
    try:
        return float(litellm().completion_cost(completion_response=response) or 0.0)
    except Exception:  # noqa: BLE001  litellm raises its own errors for models it does not price
        return 0.0


class DirectAgent(Agent):
    profile: DirectProfile

    def __init__(self, profile: DirectProfile, limiter: Any = None):
        self.profile = profile
        self.limiter = limiter
        self._chat: AgentChat | None = None

    def start(self, chat: AgentChat) -> None:
        self._chat = chat

    def send(self, message: str) -> AgentRound:
        chat = self._chat
        if chat is None:
            raise RuntimeError("send before start")
        sent_at, t0 = utc_now(), time.monotonic()
        files, read_only = _read(chat.workspace, chat.files), _read(chat.workspace, chat.read_only)
        system = "\n\n".join(t for t in (chat.system_text, self.profile.answer_format) if t)
        messages = listing_prompt(system, message, files, read_only)
        calls, cost, provider_error = self._complete(chat, messages)
        text = calls[-1].response if provider_error is None else None
        counters = AgentCounters(prompt_tokens=sum(c.prompt_tokens or 0 for c in calls),
                                 completion_tokens=sum(c.completion_tokens or 0 for c in calls), cost=cost)
        edited: list[str] = []
        notes: list[str] = []
        submitted = text is not None and chat.submit_marker is not None and text.strip() == chat.submit_marker
        if text is not None and not submitted:
            if not text.strip():
                counters.empty_responses += 1
            problem, edited = self._apply(chat, text, [*files.values(), *read_only.values()])
            if problem is not None:
                counters.malformed_responses += 1
                notes.append(problem)
        model_s = sum(c.seconds for c in calls)
        self._log(chat, f"{sent_at} {len(calls)} request(s); "
                        + ("submitted" if submitted else f"edited: {', '.join(edited) or 'nothing'}")
                        + "".join(f"\n  {n}" for n in notes) + (f"\n  provider: {provider_error}" if provider_error else ""))
        return AgentRound(
            sent_at=sent_at, response=text, edited_files=edited, calls=calls, counters=counters,
            model_seconds=round(model_s, 4), agent_seconds=round(max(0.0, time.monotonic() - t0 - model_s), 4),
            provider_error=provider_error, notes=notes, submitted=submitted,
            chat=ChatState(done=[*messages, {"role": "assistant", "content": text or ""}]),
        )

    def _complete(self, chat: AgentChat, messages: list[dict]) -> tuple[list[ModelCall], float, ProviderError | None]:
        """The round's request, retried with doubling waits while the profile's provider
        retry budget and the round's time last: every failure of the call is the
        provider's. (Every call, the answer's cost, how the provider failed.)"""
        p, s = self.profile, chat.sampling
        params = {**p.extra_params, **{k: v for k, v in s.model_dump().items() if v is not None}}
        calls: list[ModelCall] = []
        wait, waited = _FIRST_WAIT_S, 0.0
        deadline = time.monotonic() + p.timeouts.round_s
        while True:
            if self.limiter is not None:
                self.limiter.wait()
            started, t = utc_now(), time.monotonic()
            try:
                got = litellm().completion(model=chat.model, messages=messages, api_base=chat.api_base,
                                           api_key=chat.api_key, timeout=min(p.timeouts.request_s, max(1.0, deadline - t)),
                                           max_retries=0, **params)
            except Exception as exc:  # litellm maps every provider fault to its own exception classes
                calls.append(ModelCall(started_at=started, finished_at=utc_now(), seconds=round(time.monotonic() - t, 4),
                                       request=messages, error_type=type(exc).__name__, error=str(exc)[:2000]))
                if waited + wait > p.timeouts.provider_retry_s or time.monotonic() + wait >= deadline:
                    return calls, 0.0, ProviderError(type=type(exc).__name__, message=str(exc)[:2000], failed_calls=len(calls))
                time.sleep(wait)
                waited, wait = waited + wait, wait * 2
                continue
            choice, usage = got.choices[0], getattr(got, "usage", None)
            calls.append(ModelCall(
                started_at=started, finished_at=utc_now(), seconds=round(time.monotonic() - t, 4), request=messages,
                response=choice.message.content or "", finish_reason=getattr(choice, "finish_reason", None),
                prompt_tokens=getattr(usage, "prompt_tokens", None), completion_tokens=getattr(usage, "completion_tokens", None),
            ))
            return calls, _cost(got), None

    def _apply(self, chat: AgentChat, text: str, shown: list[bytes]) -> tuple[str | None, list[str]]:
        """Write the answer's files; (why it was refused, the files written)."""
        others = set(chat.read_only) | set(chat.ignore)

        def allowed(rel: str) -> bool:
            return rel not in others

        # Aider picks its fence by what the chat's files hold; the model answers in it.
        fence = choose_fence(data.decode(errors="replace") for data in shown)
        parsed = parse_whole(text, chat.files, fence, allowed=allowed)
        if not parsed.ok:
            return parsed.malformed, []
        for rel in parsed.files:
            problem = refusal(rel, root=chat.workspace, allowed=allowed)
            if problem is not None:
                return f"the answer writes a file it may not: {describe(rel, problem)}", []
        for rel, content in parsed.files.items():
            target = chat.workspace / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content.encode())
        return None, list(parsed.files)

    @staticmethod
    def _log(chat: AgentChat, line: str) -> None:
        if chat.log_file is not None:
            with open(chat.log_file, "a") as log:
                log.write(line + "\n")

    def close(self) -> None:
        self._chat = None


class DirectAgents(AgentHost):
    """Nothing kept between trials but the profile and the rate limit."""

    def agent(self) -> DirectAgent:
        return DirectAgent(self.profile, self.limiter)
