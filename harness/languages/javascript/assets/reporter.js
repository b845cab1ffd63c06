// The harness's Jest reporter (languages/javascript/verdict.py reads what it writes): each
// test's full name (its describe blocks' titles and its own, joined by " > ", as Jest's
// results and Exercism's runner name it), its status and failure messages, and the errors of
// test files that did not run, written once the run is complete with the round's token.
'use strict';

const fs = require('fs');

const TOKEN = process.env.HARNESS_JS_TOKEN || '';
const OUT = process.env.HARNESS_JS_RESULTS || '';
delete process.env.HARNESS_JS_TOKEN;
delete process.env.HARNESS_JS_RESULTS;

class HarnessReporter {
  constructor() {
    this.tests = [];
    this.errors = [];
  }

  onTestResult(test, result) {
    if (result.testExecError) {
      this.errors.push(String(result.failureMessage || result.testExecError.message || 'the test file did not run'));
    }
    for (const a of result.testResults) {
      this.tests.push({
        name: a.ancestorTitles.concat(a.title).join(' > '),
        status: a.status,
        messages: a.failureMessages.map(String),
      });
    }
  }

  onRunComplete(contexts, results) {
    if (!OUT) return;
    const record = { token: TOKEN, tests: this.tests, errors: this.errors, success: results.numFailedTestSuites === 0 && results.numRuntimeErrorTestSuites === 0 };
    fs.writeFileSync(OUT, JSON.stringify(record));
  }
}

module.exports = HarnessReporter;
