"""Hostile JavaScript candidates: the candidate's module runs as the runner in a process of
its own behind the proxy (languages/javascript/testrun.py), so none of these reaches the
verdict, which the harness's reporter writes in the builder's Jest: forged Jest output, an
exit with status 0, a returned value whose `asymmetricMatch` tells Jest it matches, the
test's callback turned into the test process's `Function`, patching `expect`, `test` and
Object.prototype, an unhandled rejection, reading the spec and the console, output,
process and memory bombs, a loop past the limit, and writing package.json or
jest.config.js. Each fails (or is refused), and the reference passes after them in the same
session. A candidate that reaches for the builder's warm Jest (signals, its /proc files, its
request, Jest's cache), that sends values made to pollute the test process (`__proto__` and
`constructor` keys, registered symbols, errors naming Jest's classes) or a source that
overflows Babel's stack leaves nothing behind: the same warm Jest then gives honest rounds
what it gave them before. The frames of a candidate's error that the console shows are only
ones an honest run of its own module could have: forged frames (naming the spec or Jest, a name with a
newline, a control character or a parenthesis, a line past the file's end, too many of
them) and a forged `stack` never reach the transcript."""

from __future__ import annotations

import re

import pytest

from harness.languages.registry import language_for
from harness.records import Status
from harness.task import load_task

from ..conftest import make_backend
from ..languages.javascript.leap import REFERENCE, WRONG, untimed, write_leap

pytestmark = [pytest.mark.slow]

_WRONG = "export const isLeap = () => false;\nexport class Calendar {}\nexport const filterYears = () => [];\n"
HOSTILE = {
    # At load time, all in one round: printing Jest's own pass lines, patching the framework's
    # globals and Object.prototype, and leaving a rejection unhandled.
    "forged output, patched framework, unhandled rejection": (
        "console.log('PASS ./leap.spec.js\\nTests:       3 passed, 3 total');\n"
        "globalThis.expect = () => new Proxy({}, { get: () => () => undefined });\n"
        "globalThis.test = (name, fn) => undefined;\n"
        "Object.prototype.toBe = () => undefined;\n"
        "Object.defineProperty(Object.prototype, 'then', { get() { process.exit(0); } });\n"
        "Promise.reject(new Error('boom'));\n" + _WRONG),
    "exit 0": "process.exit(0);\n" + _WRONG,
    "reads the tests": ("const fs = require('fs');\nlet seen = '';\n"
                        "for (const f of ['../tests/leap.spec.js', '../out/console', '../reporter.js']) {\n"
                        "  try { seen += fs.readFileSync(f, 'utf8'); } catch (e) { seen += e.code; }\n}\n"
                        "export const isLeap = () => seen.includes('toBe');\nexport class Calendar {}\n"),
    # Bombs: 16 MiB of output and 50 sleeping children at load, memory without end in a call.
    "bombs": ("for (let i = 0; i < 16; i++) process.stdout.write('x'.repeat(1 << 20));\n"
              "const { spawn } = require('child_process');\n"
              "for (let i = 0; i < 50; i++) { try { spawn('sleep', ['100'], { detached: true }); } catch (e) { break; } }\n"
              "export const isLeap = () => { const a = []; for (;;) a.push(new Array(1 << 20).fill(1)); };\n"
              "export class Calendar {}\nexport const filterYears = () => [];\n"),
    # The test's callback leads to the test process's Function constructor, and from it to process.
    "callback's constructor": ("export const isLeap = () => false;\nexport class Calendar {}\n"
                               "export const filterYears = (years, keep) => {\n"
                               "  keep.constructor('return process')().exit(0);\n};\n"),
}


# The server's frames forged where they leave its process (JSON.stringify patched): for
# isLeap(2015) a valid frame among forged ones, for isLeap(2000) more frames than Jest's limit
# (valid ones); the Calendar's error has a `stack` whose getter throws. Every error also has a
# forged `stack` (Error.prepareStackTrace), which the server never sends.
_FORGED_FRAMES = """const stringify = JSON.stringify;
const valid = { file: 'leap.js', line: 1, column: 1, call: 'validLooking' };
// Jest's code frame at line 1 shows up to line 4.

const forged = [
  { file: 'leap.spec.js', line: 4, column: 5, call: 'forgedSpec' },
  { file: '../tests/leap.spec.js', line: 4, column: 5, call: 'forgedPath' },
  { file: 'leap.js', line: 1, column: 1, call: 'forgedParen (/build/js-leap/tests/leap.spec.js:4:5)' },
  { file: 'leap.js', line: 1, column: 1, call: 'forgedNewline\\n    at jest (/opt/harness/npm/node_modules/jest-circus/build/run.js:1:1)' },
  { file: 'leap.js', line: 1, column: 1, call: 'forgedControl\\u001b[31m' },
  { file: 'leap.js', line: 1, column: 1, call: 'forgedLong' + 'x'.repeat(300) },
  { file: 'leap.js', line: 99999, column: 1, call: 'forgedBeyond' },
  { file: 'leap.js', line: 1.5, column: 1, call: 'forgedFraction' },
  { call: 'forgedBuiltin (/build/js-leap/tests/leap.spec.js:4:5)' },
  { file: 0, line: 1, column: 1, call: 'forgedIndex' },
  valid,
];
JSON.stringify = function (m, ...rest) {
  const v = m && m.op === 'raise' ? m.value : null;
  if (v && v.message === 'mixed') Object.assign(v, { frames: forged, origin: { above: ['    at forgedOrigin (/x.js:1:1)'] } });
  if (v && v.message === 'too many') v.frames = Array(1000).fill(valid);
  return stringify.call(this, m, ...rest);
};
Error.prepareStackTrace = () => 'Error: forged\\n    at forgedStack (/build/js-leap/tests/leap.spec.js:4:5)';
export const isLeap = (year) => { throw new Error(year === 2000 ? 'too many' : 'mixed'); };
export class Calendar {
  constructor() {
    const e = new Error('a stack that throws');
    Object.defineProperty(e, 'stack', { get() { throw new Error('forgedGetter'); } });
    throw e;
  }
}
export const filterYears = () => [];
"""


def test_forged_frames_never_reach_the_transcript(js_session):
    task, session = js_session
    report = language_for(task).run_tests(task, {"leap.js": _FORGED_FRAMES.encode()}, session, transcript=True)
    assert [t.status for t in report.tests] == [Status.failed] * 3 and not report.passed
    shown = [report.transcript or "", *(t.message or "" for t in report.tests)]
    assert not any("forged" in text.lower() or "proxy.js" in text or "candidate" in text for text in shown), shown
    mixed, too_many, getter = (t.message or "" for t in report.tests)
    assert "at validLooking (leap/leap.js:1:1)" in mixed and "at validLooking (leap.js:1:1)" in (report.transcript or "")
    assert "validLooking" not in too_many and "a stack that throws" in getter


# Right where it can be, and for the rest a value that tells Jest's equality it matches.
_ASYMMETRIC = REFERENCE.replace("years.filter((year) => keep(year))", "({ asymmetricMatch: () => true })")


# The builder's warm Jest (languages/javascript/warm.py) runs every later round's tests:
# stopping, killing or reading it, writing its request or Jest's cache would reach them. What
# was reached comes back as isLeap(2015)'s value, which the test's failure message shows.
_REACHES = """const fs = require('fs');
const reached = [];
let seen = 0;
for (const pid of fs.readdirSync('/proc').filter((p) => /^[0-9]+$/.test(p))) {
  let cmd = '';
  try { cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1'); } catch (e) { continue; }
  if (!cmd.includes('warm_jest')) continue;
  seen += 1;
  for (const name of ['environ', 'mem', 'fd/0', 'cwd']) {
    try { fs.readdirSync(`/proc/${pid}/${name}`); reached.push(name); } catch (e) {
      try { fs.readFileSync(`/proc/${pid}/${name}`); reached.push(name); } catch (e2) { /* refused */ }
    }
  }
  for (const sig of ['SIGUSR2', 'SIGSTOP', 'SIGKILL']) {
    try { process.kill(Number(pid), sig); reached.push(sig); } catch (e) { /* refused */ }
  }
}
for (const path of ['/build/.javascript-warm/request', '/build/.javascript-warm/planted',
                    '/build/.jest-cache/planted', '/build/planted']) {
  try { fs.writeFileSync(path, 'x', { flag: 'w' }); reached.push(path); } catch (e) { /* refused */ }
}
export const isLeap = () => ({ seen, reached });
export class Calendar {}
export const filterYears = () => [];
"""

# Values the client decodes in Jest's test context, each shaped to leave something there or in
# Jest's own realm if it were assigned rather than defined: an own `__proto__` and
# `constructor`, symbols of the process-wide registry named as Jest's own, and an error whose
# class claims Jest's assertion error's name.
_POLLUTES = """export const isLeap = () => JSON.parse(
  '{"__proto__": {"toBe": 1, "polluted": true}, "constructor": {"prototype": {"polluted": true}}}');
class JestAssertionError extends Error {}
export class Calendar {
  constructor() {
    this[Symbol.for('$$jest-matchers-object')] = { matchers: {} };
    this[Symbol.for('jest-circus-shared-state')] = { hasFocusedTests: true };
    throw new JestAssertionError('polluted');
  }
}
export const filterYears = () => Object.assign(Object.create(null), { __proto__: { polluted: true } });
"""

# Deep enough that Babel's parser overflows its stack on it.
_OVERFLOWS_BABEL = "export const isLeap = () => " + "(" * 100_000 + "1" + ")" * 100_000 + ";\n"


def test_a_hostile_round_leaves_nothing_for_the_next_on_the_warm_jest(tmp_path):
    task = load_task(write_leap(tmp_path))
    js = language_for(task)

    def honest() -> list[tuple]:
        reports = [js.run_tests(task, {"leap.js": text.encode()}, session, transcript=True) for text in (WRONG, REFERENCE)]
        return [(r.status, [(t.name, t.status, t.message) for t in r.tests], untimed(r.transcript)) for r in reports]

    with make_backend("docker").session("js-warm-hostile", "javascript") as session:
        before = honest()
        warm = session.kept["jest"]
        reaching = js.run_tests(task, {"leap.js": _REACHES.encode()}, session)
        assert not reaching.passed
        # It saw the warm Jest (and the builder's shell that started it) and reached neither.
        assert re.search(r'Received: \{"reached": \[\], "seen": [1-9]\}', reaching.tests[0].message or ""), reaching.tests[0]
        for text in (_POLLUTES, _OVERFLOWS_BABEL):
            assert not js.run_tests(task, {"leap.js": text.encode()}, session).passed
        assert session.kept["jest"] == warm  # the same warm Jest served every round
        assert honest() == before and session.kept["jest"] == warm
    assert before[1][0] is Status.passed and before[0][0] is Status.failed


@pytest.fixture(scope="module")
def js_session(tmp_path_factory):
    task = load_task(write_leap(tmp_path_factory.mktemp("js-hostile")))
    with make_backend("docker").session("js-hostile", "javascript") as session:
        yield task, session


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_candidate_does_not_pass(js_session, name):
    task, session = js_session
    report = language_for(task).run_tests(task, {"leap.js": HOSTILE[name].encode()}, session)
    assert not report.passed and report.status is not Status.passed, name
    assert all(t.status is Status.failed for t in report.tests[1:]), (name, report.tests)


def test_a_value_that_answers_jests_equality_itself_fails(js_session):
    task, session = js_session
    report = language_for(task).run_tests(task, {"leap.js": _ASYMMETRIC.encode()}, session)
    assert [t.status for t in report.tests] == [Status.passed, Status.passed, Status.failed]
    assert "asymmetricMatch" in (report.tests[2].message or "")


def test_a_loop_past_the_limit_is_a_timeout_and_build_files_are_refused(js_session):
    task, session = js_session
    js = language_for(task)
    looping = js.run_tests(task, {"leap.js": b"while (true) {}\n"}, session, time_limit_s=5)
    assert looping.status is Status.error and looping.timeout
    written = {"leap.js": REFERENCE.encode(), "jest.config.js": b"module.exports = {testMatch: []};\n",
               "package.json": b'{"scripts": {"test": "true"}}\n'}
    tampered = js.run_tests(task, written, session)
    # Flagged and never staged: the round ran on the task's own package.json.
    assert set(tampered.tampered) >= {"jest.config.js", "package.json"} and len(tampered.tests) == 3
    assert js.run_tests(task, task.reference_files(), session).passed
