"""Evaluate coding models by execution, and train them on what they fail."""

__version__ = "0.1.0"
