"""The trial viewer: from a number in a report to the trajectory behind it, in the browser.

    facts.py     what the grid needs of each trial beyond the report's frame (failure kinds), cached
    site.py      the sources a viewer shows (runs, loops, curricula), loaded once
    trial.py     one trial read in full: messages, diffs, test reports, raw files
    pages.py     every page, rendered from Jinja templates; the same HTML served or written
    server.py    `harness view`: a local, read-only FastAPI server
    static.py    the same pages as files (`harness report/compare --format html`)
"""
