"""The agents the harness drives. Aider runs in an environment of its own (env.py), behind a
JSON-lines driver (aider_driver.py) that aider.py starts, pools and talks to."""
