// A warm Jest: the builder's process that has loaded Jest and Babel once and runs each
// round's tests as `jest ARGS` would in the round's folder, with its output in the round's
// console file (languages/javascript/warm.py says who asks and why).
//
// Run as `node warm_jest.js FOLDER NODE_MODULES`. FOLDER holds the named pipe `reply`, made
// by the client before it starts this. A request is the file FOLDER/request, lines `cwd`,
// `console`, the round's root (its files are loaded afresh by the next run), the reporter's
// token and record path, then Jest's arguments, one a line, written before the client sends
// SIGUSR2 (Node keeps SIGUSR1 for its inspector). The reply is one line on FOLDER/reply:
// `ready` once (or `failed`), then for each request the run's exit status as jest-cli would
// give it (125: no run).
//
// Nothing of the candidate's runs in this process: Jest runs the spec and the proxy's client
// in contexts of their own, which the candidate reaches only by values the client decodes.
'use strict';

const fs = require('fs');

const [folder, nodeModules] = process.argv.slice(2);
const ROUND_ENV = ['HARNESS_JS_TOKEN', 'HARNESS_JS_RESULTS'];
// Jest's process grows by about 0.3 MB a run (60 runs of a small exercise: 110 MB, then 146
// MB): after this many it ends, and the next round starts another.
const RUNS = 200;

function reply(line) {
  fs.writeFileSync(`${folder}/reply`, `${line}\n`);
}

function request() {
  try {
    const lines = fs.readFileSync(`${folder}/request`, 'utf8').split('\n');
    return lines.length >= 6 && lines.pop() === '' ? lines : null;
  } catch (e) {
    return null;
  }
}

// Jest's output goes where a fresh run's would: its stdout and stderr, both the console file.
function redirected(fd, run) {
  const saved = [process.stdout.write, process.stderr.write];
  const write = (chunk, encoding, done) => {
    fs.writeSync(fd, typeof chunk === 'string' ? chunk : Buffer.from(chunk));
    const callback = typeof encoding === 'function' ? encoding : done;
    if (callback) process.nextTick(callback);
    return true;
  };
  process.stdout.write = write;
  process.stderr.write = write;
  return run().finally(() => { [process.stdout.write, process.stderr.write] = saved; });
}

// As jest-cli's `run`: its exit status, and a failure to start printed as it prints it.
async function jest(core, cli, chalk, args) {
  try {
    const argv = await cli.buildArgv(args);
    const { results, globalConfig } = await core.runCLI(argv, argv.projects || [process.cwd()]);
    return !results || results.success ? 0 : globalConfig.testFailureExitCode;
  } catch (error) {
    console.error(chalk.red(error && error.stack ? error.stack : error));
    return 1;
  }
}

async function serve(core, cli, chalk, lines) {
  const [cwd, console_, root, token, record, ...args] = lines;
  const fd = fs.openSync(console_, 'a');
  Object.assign(process.env, { HARNESS_JS_TOKEN: token, HARNESS_JS_RESULTS: record });
  try {
    process.chdir(cwd);
    return await redirected(fd, () => jest(core, cli, chalk, args));
  } finally {
    fs.closeSync(fd);
    for (const name of ROUND_ENV) delete process.env[name];
    for (const key of Object.keys(require.cache)) if (key.startsWith(`${root}/`)) delete require.cache[key];
    process.chdir('/');
  }
}

function main() {
  let modules;
  try {
    if (process.env.NODE_ENV == null) process.env.NODE_ENV = 'test';  // as jest-cli's bin sets it
    modules = [require(`${nodeModules}/@jest/core`), require(`${nodeModules}/jest-cli/build/run.js`),
      require(`${nodeModules}/chalk`), require(`${nodeModules}/@babel/core`),
      require(`${nodeModules}/@exercism/babel-preset-javascript`)];
  } catch (e) {
    reply('failed');
    throw e;
  }
  process.chdir('/');
  let busy = Promise.resolve();
  let runs = 0;
  process.on('SIGUSR2', () => {
    busy = busy.then(async () => {
      // Open while the run lasts: a client waiting on it sees its end if this process dies.
      const out = fs.openSync(`${folder}/reply`, 'w');
      let status = 125;
      try {
        const lines = request();
        if (lines !== null) status = await serve(modules[0], modules[1], modules[2].default || modules[2], lines);
      } catch (e) {
        status = 125;
      } finally {
        fs.writeSync(out, `${status}\n`);
        fs.closeSync(out);
      }
      if (++runs >= RUNS) process.exit(0);
    });
  });
  setInterval(() => undefined, 1 << 30);  // alive between requests
  reply('ready');  // once a request's signal finds its handler
}

main();
