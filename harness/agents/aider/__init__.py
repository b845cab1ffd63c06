"""Aider as an agent of the harness: its profile (profile.py), its own pinned environment
(env.py), the driver that runs there and speaks JSON lines (driver.py, never imported by
the harness), the pool of warm driver processes (drivers.py), the agent a trial holds
(agent.py), and the user's Aider checkout, read as data for Aider's benchmark prompts
(checkout.py)."""
