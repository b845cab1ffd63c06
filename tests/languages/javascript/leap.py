"""A tiny JavaScript exercise in Exercism's layout, for the JavaScript tests: a describe
block with a test and an `xtest`, and a class with an error of its own, and a function that calls the test's callback."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.exercise import write_exercise

STUB = "export const isLeap = () => {\n  throw new Error('Remove this line and implement the function');\n};\n"
REFERENCE = ("export const isLeap = (year) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);\n\n"
             "export class Calendar {\n  constructor(year) {\n    if (year < 1) throw new RangeError('no such year');\n"
             "    this.year = year;\n  }\n\n  get leap() {\n    return isLeap(this.year);\n  }\n}\n\n"
             "export const filterYears = (years, keep) => years.filter((year) => keep(year));\n")
WRONG = REFERENCE.replace("year % 400 === 0", "false")
SPEC = """import { isLeap, Calendar, filterYears } from './leap';

describe('Leap', () => {
  test('year not divisible by 4 in common year', () => {
    expect(isLeap(2015)).toBe(false);
  });

  xtest('year divisible by 400 is leap year', () => {
    expect(isLeap(2000)).toBe(true);
  });

  xtest('a calendar knows its year', () => {
    expect(new Calendar(1996).leap).toBe(true);
    expect(() => new Calendar(0)).toThrow(new RangeError('no such year'));
    expect(filterYears([1996, 2001], (year) => year % 2 === 0)).toEqual([1996]);
  });
});
"""
PACKAGE = {"name": "@exercism/javascript-leap", "private": True, "license": "MIT",
           "devDependencies": {"@babel/core": "^7.25.2", "@exercism/babel-preset-javascript": "^0.2.1",
                               "babel-jest": "^29.6.4", "core-js": "~3.37.1", "jest": "^29.7.0"},
           "scripts": {"test": "jest ./*"}}


def write_leap(root: Path) -> Path:
    return write_exercise(root, "leap", {
        "leap.js": STUB, "leap.spec.js": SPEC, "package.json": json.dumps(PACKAGE, indent=2) + "\n",
        "babel.config.js": "module.exports = {\n  presets: ['@exercism/babel-preset-javascript'],\n  plugins: [],\n};\n",
        ".meta/proof.ci.js": REFERENCE,
    }, solution=["leap.js"], test=["leap.spec.js"], example=[".meta/proof.ci.js"])


def untimed(console: str | None) -> str:
    """A Jest console without its times, which differ from run to run."""
    return re.sub(r" \(\d+ ms\)|Time: .*", "", console or "")
