"""Python (harness/languages/python/)."""
