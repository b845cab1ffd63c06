"""Tests of each language's own folder, laid out as harness/languages/ is."""
