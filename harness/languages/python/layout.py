"""Python as Exercism lays it out: `<slug>.py` the solution, `<slug>_test.py` the task's
tests (a .py file too, never a solution file: the roles come from .meta/config.json), and
every file that pytest or the interpreter reads by itself the task's."""

from ..base import Layout

LAYOUT = Layout(
    name="python", title="Python", solution_suffixes=(".py",),
    # pytest's configuration and plugins (conftest.py at any depth, the ini files it reads
    # for its rootdir) and what `site` runs at every start (sitecustomize, usercustomize,
    # .pth files).
    build_files=("conftest.py", "pytest.ini", ".pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml",
                 "sitecustomize.py", "usercustomize.py"),
    build_suffixes=(".pth",),
    image_packages=("python3", "python3-pytest"),
    repair_contract="repair-python",
    contracts={"tests": "tests-python", "tests-fill": "tests-fill-python", "tests-style": "tests-style-python",
               "tests-trace": "tests-trace-python"},
)
