"""Python, the second language: Exercism's Python layout, pytest in the sandbox, and the
candidate's module judged from outside its process (`proxy/`)."""
