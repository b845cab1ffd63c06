"""Rust, as Exercism's Rust track lays it out."""
