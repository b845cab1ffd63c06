"""The Aider agent: one chat per task-trial on a warm driver process (drivers.py) that runs
`driver.py` in Aider's own environment (env.py). The harness never imports aider; it
speaks JSON lines with the driver, which holds the trial's Coder across rounds as Aider's
own benchmark does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import InfraError
from ..base import Agent, AgentChat, AgentHost, AgentRound
from .drivers import DriverPool, _Driver
from .env import ensure_aider_env
from .profile import AiderProfile


class AiderAgent(Agent):
    profile: AiderProfile

    def __init__(self, pool: DriverPool):
        self.pool = pool
        self.profile = pool.profile
        self._proc: _Driver | None = None
        self._healthy = True
        self.session_pid: int | None = None  # the forked process holding this chat's Coder

    def start(self, chat: AgentChat) -> None:
        p = self.profile
        extra = dict(p.model.extra_params)
        if chat.api_base:
            extra["api_base"] = chat.api_base
        if chat.api_key:
            extra["api_key"] = chat.api_key
        s = chat.sampling
        for key in ("top_p", "max_tokens", "seed"):
            if getattr(s, key) is not None:
                extra[key] = getattr(s, key)
        request = {
            "op": "start",
            "workspace": str(chat.workspace),
            "files": chat.files,
            "read_only": chat.read_only,
            "ignore_mentions": chat.ignore,
            "model": chat.model,
            "edit_format": p.edit_format,
            "extra_params": extra,
            "temperature": s.temperature,
            "model_info": {
                "max_input_tokens": p.model.context_window,
                "max_tokens": p.model.max_output_tokens,
                "max_output_tokens": p.model.max_output_tokens,
                "input_cost_per_token": p.model.input_cost_per_token,
                "output_cost_per_token": p.model.output_cost_per_token,
                "litellm_provider": chat.model.split("/", 1)[0] if "/" in chat.model else "openai",
                "mode": "chat",
            } if p.model.for_unknown_models else None,
            "auto_lint": p.coder.auto_lint,
            "request_timeout_s": p.timeouts.request_s,
            "provider_retry_s": p.timeouts.provider_retry_s,
            "system_text": chat.system_text,
            "log_file": str(chat.log_file) if chat.log_file else None,
            "chat_history_file": str(chat.chat_file) if chat.chat_file else None,
            "history": chat.history.model_dump() if chat.history else None,
            "paced": self.pool.limiter is not None,
        }
        self._proc = self.pool.acquire()
        try:
            self.session_pid = self._proc.request(request, p.timeouts.start_s).get("pid")
        except InfraError:
            self._healthy = False
            raise

    def send(self, message: str) -> AgentRound:
        if self._proc is None:
            raise RuntimeError("send before start")
        try:
            reply = self._proc.request({"op": "send", "message": message}, self.profile.timeouts.round_s)
        except InfraError:
            self._healthy = False
            raise
        return AgentRound.model_validate(reply["round"])

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        healthy = self._healthy
        if healthy and proc.alive:
            try:
                proc.request({"op": "end"}, 30)
            except InfraError:
                healthy = False
        self.pool.release(proc, healthy)



class AiderAgents(AgentHost):
    """A host's warm drivers for one profile. Importing Aider takes seconds: started when
    the host's first trial asks, the import overlaps that trial's set-up."""

    def __init__(self, profile: AiderProfile, log_path: Path | None = None, limiter: Any = None):
        super().__init__(profile, log_path, limiter)
        self.pool = DriverPool(profile, log_path, limiter=limiter)
        self.pool.prewarm()

    @staticmethod
    def prepare(profile: AiderProfile) -> None:
        ensure_aider_env(profile.aider_version)

    def agent(self) -> AiderAgent:
        return AiderAgent(self.pool)

    def kill_all(self) -> None:
        self.pool.kill_all()

    def close(self) -> None:
        self.pool.close()
