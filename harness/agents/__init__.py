"""The agents the harness drives, behind one interface (base.py: a profile, an Agent per
trial, an AgentHost per host), found by a profile's `agent` field (registry.py): Aider in
an environment of its own (aider/), and `direct`, one litellm completion per round
(direct.py). The edit formats the agents, `gold` and training read and write:
editformat.py."""
