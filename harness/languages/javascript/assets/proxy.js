// The candidate's module behind a proxy (languages/javascript/testrun.py). The server runs
// the candidate's module in a process of its own, as the runner; the spec file's Jest, as
// the builder, loads in its place a client module of the same name that forwards every use
// of it over two named pipes, read and written blocking, so that each call is synchronous
// as it is in one process. Values cross by a strict, bounded encoding: primitives, arrays,
// plain objects, Maps, Sets, Dates, regular expressions and errors by value; every other
// object and every function as a handle the other side uses through a Proxy; promises as
// handles the client keeps pumping while it awaits one. Both sides serve the other's
// requests while they wait for an answer (a callback the test passed to the candidate). An
// error of the candidate's takes its frames along, which the client checks and makes the
// error's stack of, so that Jest shows it as it does where the module runs in its process.
'use strict';

const fs = require('fs');

const MAX_FRAME = 16 << 20;
const MAX_DEPTH = 200;
const MAX_NODES = 1 << 20;
const SYMBOLS = ['iterator', 'asyncIterator', 'toPrimitive', 'toStringTag', 'hasInstance', 'isConcatSpreadable'];
// Properties Jest's equality calls on the received value itself: one the solution's value
// answered would decide the comparison (`asymmetricMatch() { return true; }`).
const HOOKS = new Set(['asymmetricMatch']);
const ERRORS = { Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError };
// Jest's environment's Error.stackTraceLimit: as many of the candidate's frames as Jest would show.
const STACK_LIMIT = 100;
// A frame's function part as V8 and source-map-support write it ("Calendar.get leap [as leap]",
// "new Calendar"): no parenthesis, colon or slash that could make it name a file.
const CALL = /^[\p{L}\p{N}_$.<>[\] ]{1,200}$/u;

class Peer {
  constructor(input, output, side) {
    this.input = input; // fd read
    this.output = output; // fd written
    this.side = side; // 'c' or 's'
    this.mine = new Map(); // id -> local object shared as a handle
    this.ids = new Map(); // local object -> id
    this.theirs = new Map(); // id -> proxy of the other side's object
    this.next = 1;
    this.seq = 1;
    this.pending = 0; // the other side's promises this side awaits
    this.broken = null;
  }

  send(message) {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    if (body.length > MAX_FRAME) throw new RangeError('a value too large to pass to or from the solution');
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    const frame = Buffer.concat([head, body]);
    let at = 0;
    while (at < frame.length) at += fs.writeSync(this.output, frame, at, frame.length - at);
  }

  readExactly(n) {
    const buf = Buffer.alloc(n);
    let at = 0;
    while (at < n) {
      let got;
      try {
        got = fs.readSync(this.input, buf, at, n - at, null);
      } catch (e) {
        if (e.code === 'EAGAIN') continue;
        throw e;
      }
      if (got === 0) return null;
      at += got;
    }
    return buf;
  }

  receive() {
    const head = this.readExactly(4);
    if (head === null) return null;
    const n = head.readUInt32BE(0);
    if (n > MAX_FRAME) throw new Error('a frame over the limit');
    const body = this.readExactly(n);
    if (body === null) return null;
    const message = JSON.parse(body.toString('utf8'));
    if (message === null || typeof message !== 'object' || typeof message.op !== 'string') {
      throw new Error('a frame of an unknown shape');
    }
    return message;
  }

  // A request to the other side; its requests are served until the answer comes.
  request(message) {
    if (this.broken) throw new Error(this.broken);
    const id = this.seq++;
    this.send({ ...message, id });
    for (;;) {
      const got = this.receive();
      if (got === null) {
        this.broken = this.side === 'c' ? "the solution's process ended" : 'the tests ended';
        throw new Error(this.broken);
      }
      if (got.op === 'ok' && got.id === id) return this.decode(got.value);
      if (got.op === 'raise' && got.id === id) throw this.decode(got.value);
      this.serve(got);
    }
  }

  serve(message) {
    let reply;
    try {
      reply = { op: 'ok', id: message.id, value: this.encode(this.perform(message)) };
    } catch (e) {
      reply = { op: 'raise', id: message.id, value: this.encodeThrown(e) };
    }
    this.send(reply);
  }

  perform(m) {
    const target = m.target === undefined ? undefined : this.decode(m.target);
    const key = m.key === undefined ? undefined : this.decodeKey(m.key);
    // The server may only call the functions the tests gave it and await their promises: a
    // property of a test's object would lead it to the test process's Function and process.
    if (this.side === 'c' && !((m.op === 'call' && typeof target === 'function')
        || (m.op === 'await' && target instanceof Promise))) {
      throw new TypeError('the solution may only call what the tests pass it');
    }
    switch (m.op) {
      case 'exports': return { esModule: Boolean(this.exports && this.exports.__esModule), value: this.exports };
      case 'get': return target[key];
      case 'set': target[key] = this.decode(m.value); return true;
      case 'has': return key in target;
      case 'delete': return delete target[key];
      case 'keys': return Reflect.ownKeys(target).filter((k) => typeof k === 'string');
      case 'desc': {
        const d = Object.getOwnPropertyDescriptor(target, key);
        if (d === undefined) return undefined;
        return { enumerable: d.enumerable, writable: d.writable !== false, accessor: 'get' in d || 'set' in d,
          value: 'value' in d ? d.value : undefined };
      }
      case 'proto': return Object.getPrototypeOf(target);
      case 'call': return Reflect.apply(target, this.decode(m.self), m.args.map((a) => this.decode(a)));
      case 'new': return Reflect.construct(target, m.args.map((a) => this.decode(a)));
      case 'pump': return undefined;
      case 'await': {
        if (!(target instanceof Promise)) throw new TypeError('not a promise');
        target.then(this.decode(m.ok), this.decode(m.err));
        return undefined;
      }
      default: throw new Error(`an unknown request ${String(m.op).slice(0, 40)}`);
    }
  }

  handle(value, kind) {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.next++;
      this.ids.set(value, id);
      this.mine.set(id, value);
    }
    return { t: kind, side: this.side, id, ...(kind === 'f' ? { name: String(value.name).slice(0, 200) } : {}) };
  }

  encodeKey(key) {
    if (typeof key === 'string') return key;
    const known = SYMBOLS.find((s) => Symbol[s] === key);
    if (known) return { sym: known };
    if (typeof key === 'symbol' && Symbol.keyFor(key) !== undefined) return { for: Symbol.keyFor(key) };
    throw new TypeError('a symbol that cannot pass to or from the solution');
  }

  decodeKey(key) {
    if (typeof key === 'string') return key;
    if (key && typeof key.sym === 'string' && SYMBOLS.includes(key.sym)) return Symbol[key.sym];
    if (key && typeof key.for === 'string') return Symbol.for(key.for);
    throw new TypeError('a key of an unknown shape');
  }

  encodeThrown(e) {
    try {
      return this.encode(e);
    } catch (inner) {
      return this.encode(new Error(String(inner && inner.message)));
    }
  }

  encode(value, depth = 0, count = { n: 0 }) {
    if (++count.n > MAX_NODES || depth > MAX_DEPTH) throw new RangeError('a value too large to pass to or from the solution');
    const type = typeof value;
    if (value === null || type === 'boolean' || type === 'string') return value;
    if (type === 'number') {
      return Number.isFinite(value) && !Object.is(value, -0) ? value : { t: 'n', v: String(Object.is(value, -0) ? '-0' : value) };
    }
    if (type === 'undefined') return { t: 'u' };
    if (type === 'bigint') return { t: 'b', v: value.toString() };
    if (type === 'symbol') return { t: 'y', v: this.encodeKey(value) };
    const sub = (v) => this.encode(v, depth + 1, count);
    if (type === 'function') {
      const back = this.origin(value);
      return back || this.handle(value, 'f');
    }
    const back = this.origin(value);
    if (back) return back;
    const proto = Object.getPrototypeOf(value);
    // Arrays and plain objects by value, unless on the path already (a cycle), with an
    // accessor (whose getter may make one) or a class's prototype: those cross as handles.
    const path = count.path || (count.path = new Set());
    const own = Object.getOwnPropertyDescriptor(value, 'constructor');
    const plain = (Array.isArray(value) && proto === Array.prototype)
      || ((proto === Object.prototype || proto === null) && !(own && typeof own.value === 'function' && own.value.prototype === value));
    if (plain && !path.has(value) && !Object.values(Object.getOwnPropertyDescriptors(value)).some((d) => d.get || d.set)) {
      path.add(value);
      try {
        if (Array.isArray(value)) return { t: 'a', v: Array.from(value, sub) };
        return { t: 'o', v: Object.keys(value).map((k) => [k, sub(value[k])]) };
      } finally {
        path.delete(value);
      }
    }
    if (value instanceof Promise) return this.handle(value, 'p');
    if (value instanceof Map) return { t: 'm', v: Array.from(value, ([k, v]) => [sub(k), sub(v)]) };
    if (value instanceof Set) return { t: 's', v: Array.from(value, sub) };
    if (value instanceof Date) return { t: 'd', v: value.getTime() };
    if (value instanceof RegExp) return { t: 'r', v: value.source, f: value.flags };
    if (value instanceof Error) {
      let ctor = value.constructor;
      while (ctor && !Object.values(ERRORS).includes(ctor) && !this.exported.has(ctor)) ctor = Object.getPrototypeOf(ctor);
      return { t: 'e', name: String(value.name), message: String(value.message),
        ctor: ctor && this.exported.has(ctor) ? sub(ctor) : null, base: ctor ? ctor.name : 'Error',
        ...(this.side === 's' ? { frames: candidateFrames(value), origin: this.origins.get(value) }
          : { origin: this.files ? rememberFrames(this.files, value) : undefined }) };
    }
    return this.handle(value, 'h');
  }

  // A proxy of the other side's object, passed back: the other side's own handle again.
  origin(value) {
    const id = this.proxies.get(value);
    return id === undefined ? null : { t: 'back', id };
  }

  decode(v, depth = 0) {
    if (depth > MAX_DEPTH) throw new RangeError('a value nested too deep');
    if (v === null || typeof v === 'boolean' || typeof v === 'string' || typeof v === 'number') return v;
    if (typeof v !== 'object') throw new TypeError('a value of an unknown shape');
    const sub = (x) => this.decode(x, depth + 1);
    switch (v.t) {
      case 'u': return undefined;
      case 'n': return v.v === '-0' ? -0 : Number(v.v);
      case 'b': return BigInt(v.v);
      case 'y': return this.decodeKey(v.v);
      case 'a': return v.v.map(sub);
      case 'o': {
        const out = {};
        for (const [k, x] of v.v) {
          if (typeof k !== 'string') throw new TypeError('a key of an unknown shape');
          if (this.side === 'c' && HOOKS.has(k)) throw new TypeError(`a value with ${k}, which Jest would call to compare it`);
          Object.defineProperty(out, k, { value: sub(x), enumerable: true, writable: true, configurable: true });
        }
        return out;
      }
      case 'm': return new Map(v.v.map(([k, x]) => [sub(k), sub(x)]));
      case 's': return new Set(v.v.map(sub));
      case 'd': return new Date(v.v);
      case 'r': return new RegExp(v.v, v.f);
      case 'e': {
        const ctor = v.ctor === null ? null : sub(v.ctor);
        const Base = Object.prototype.hasOwnProperty.call(ERRORS, v.base) ? ERRORS[v.base] : Error;
        const error = ctor ? Object.create(ctor.prototype) : new Base(v.message);
        Object.defineProperty(error, 'message', { value: String(v.message), writable: true, configurable: true });
        if (v.name !== Base.name || ctor) Object.defineProperty(error, 'name', { value: String(v.name), writable: true, configurable: true });
        if (this.side === 's' && Number.isInteger(v.origin)) this.origins.set(error, v.origin);
        const head = `${String(v.name) || 'Error'}: ${String(v.message)}`;
        const stack = [head, ...(this.files ? framesOf(v, this.files) : [])].join('\n');
        if (ctor || this.files) Object.defineProperty(error, 'stack', { value: stack, writable: true, configurable: true });
        return error;
      }
      case 'back': {
        if (!this.mine.has(v.id)) throw new Error('a handle this side never gave');
        return this.mine.get(v.id);
      }
      case 'f': case 'h': case 'p': {
        if (v.side === this.side || !Number.isInteger(v.id)) throw new Error('a handle of an unknown shape');
        if (!this.theirs.has(v.id)) this.theirs.set(v.id, v.t === 'p' ? this.promiseOf(v) : this.proxyOf(v));
        return this.theirs.get(v.id);
      }
      default: throw new TypeError('a value of an unknown shape');
    }
  }

  proxyOf(v) {
    const peer = this;
    const ref = { t: 'back', id: v.id };
    const target = v.t === 'f' ? function () {} : {};
    if (v.t === 'f') Object.defineProperty(target, 'name', { value: v.name });
    const ask = (op, extra) => peer.request({ op, target: ref, ...extra });
    const proxy = new Proxy(target, {
      get(t, key) {
        if (peer.side === 'c' && HOOKS.has(key)) return undefined;
        if (key === Symbol.hasInstance || (typeof key === 'symbol' && !SYMBOLS.includes(key.description && key.description.replace('Symbol.', '')) && Symbol.keyFor(key) === undefined)) return undefined;
        return ask('get', { key: peer.encodeKey(key) });
      },
      set(t, key, value) { return ask('set', { key: peer.encodeKey(key), value: peer.encode(value) }); },
      has(t, key) { return !(peer.side === 'c' && HOOKS.has(key)) && ask('has', { key: peer.encodeKey(key) }); },
      deleteProperty(t, key) { return ask('delete', { key: peer.encodeKey(key) }); },
      ownKeys(t) {
        const keys = ask('keys', {});
        if (v.t === 'f' && !keys.includes('prototype')) keys.push('prototype');
        return keys;
      },
      getOwnPropertyDescriptor(t, key) {
        if (v.t === 'f' && key === 'prototype') {
          return { value: ask('get', { key: 'prototype' }), writable: true, enumerable: false, configurable: false };
        }
        const d = ask('desc', { key: peer.encodeKey(key) });
        if (d === undefined) return undefined;
        return d.accessor ? { get: () => ask('get', { key: peer.encodeKey(key) }), set: undefined, enumerable: d.enumerable, configurable: true }
          : { value: d.value, writable: d.writable, enumerable: d.enumerable, configurable: true };
      },
      getPrototypeOf() { return ask('proto', {}); },
      apply(t, self, args) { return ask('call', { self: peer.encode(self), args: args.map((a) => peer.encode(a)) }); },
      construct(t, args) { return ask('new', { args: args.map((a) => peer.encode(a)) }); },
    });
    this.proxies.set(proxy, v.id);
    return proxy;
  }

  // The other side's promise as one of this side's: settled when the other side calls back.
  promiseOf(v) {
    const ref = { t: 'back', id: v.id };
    this.pending++;
    const promise = new Promise((resolve, reject) => {
      const done = (f) => (x) => { this.pending--; f(x); };
      this.request({ op: 'await', target: ref, ok: this.encode(done(resolve)), err: this.encode(done(reject)) });
    });
    // Whether a rejection is handled is the original's to say, on its own side: this copy may
    // only be passed back there (race, allSettled) and never get a handler of its own.
    promise.catch(() => undefined);
    this.proxies.set(promise, v.id);
    if (this.side === 'c') this.pump();
    return promise;
  }

  // While the tests await one of the server's promises, the server's event loop runs in
  // turns the client gives it: short at first, longer while nothing settles.
  pump() {
    if (this.pumping) return;
    this.pumping = true;
    let wait = 0;
    const tick = () => {
      if (this.pending <= 0 || this.broken) { this.pumping = false; return; }
      const before = this.pending;
      try { this.request({ op: 'pump', wait }); } catch (e) { this.pumping = false; return; }
      wait = this.pending < before ? 0 : Math.min(50, Math.max(1, wait * 2));
      setImmediate(tick);
    };
    setImmediate(tick);
  }
}

function open(toServer, fromServer, side) {
  // Both sides open the pipe to the server first: a blocking open pairs each with the other's.
  if (side === 'c') {
    const output = fs.openSync(toServer, 'w');
    const input = fs.openSync(fromServer, 'r');
    return new Peer(input, output, 'c');
  }
  const input = fs.openSync(toServer, 'r');
  const output = fs.openSync(fromServer, 'w');
  return new Peer(input, output, 's');
}

function setUp(peer) {
  peer.proxies = new WeakMap();
  peer.exported = new Set();
  peer.origins = new WeakMap(); // the server's error made of one the client sent -> the client's id for it
  peer.other = peer.side === 'c' ? 's' : 'c';
  return peer;
}

// The client: the module the spec file imports in the candidate's place. `files` names the
// candidate's modules, where the runner's copy is, and where the client modules are.
function client(toServer, fromServer, files) {
  const peer = setUp(open(toServer, fromServer, 'c'));
  peer.files = { ...files, lines: new Map(), thrown: new Map(), next: 1 };
  const { esModule, value } = peer.request({ op: 'exports' });
  // Babel's interop reads `__esModule` to tell an ES module's exports from CommonJS's.
  if (esModule === true && value !== null && typeof value === 'object') {
    Object.defineProperty(value, '__esModule', { value: true });
  }
  return value;
}

// The candidate's module as main (a spec that runs it as a program, grep's): the server runs
// it in a process of its own and this process prints what it printed and exits as it did.
function main(toServer, fromServer, args) {
  const peer = setUp(open(toServer, fromServer, 'c'));
  const ran = peer.request({ op: 'main', args });
  process.stdout.write(String(ran.stdout));
  process.stderr.write(String(ran.stderr));
  process.exitCode = Number.isInteger(ran.status) ? ran.status : 1;
}

// Babel's options for one of the candidate's files: the exercises' preset, and the source map
// inline in the code, where candidateFrames reads it (babel-jest maps Jest's frames by its own).
function babelOptions(preset, filename) {
  return { filename, presets: [preset], babelrc: false, configFile: false, sourceMaps: 'inline' };
}

// In the builder's Jest process, before the tests (the round's globalSetup: testrun.py), where
// babel-jest loads the same Babel for the spec anyway: the server, started beside Jest on the
// same CPU, then loads no Babel of its own. A file Babel refuses becomes one that throws
// Babel's error when the candidate's module is loaded, as it did when the server compiled it.
function compileInto(nodeModules, folder, compiled, files) {
  const babel = require(`${nodeModules}/@babel/core`);
  const preset = require.resolve(`${nodeModules}/@exercism/babel-preset-javascript`);
  const path = require('path');
  for (const rel of files) {
    const filename = `${folder}/${rel}`;
    let code;
    try {
      code = babel.transformSync(fs.readFileSync(filename, 'utf8'), babelOptions(preset, filename)).code;
    } catch (e) {
      const Thrown = e instanceof SyntaxError ? 'SyntaxError' : 'Error';
      code = `throw new ${Thrown}(${JSON.stringify(String(e && e.message))});\n`;
    }
    const out = `${compiled}/${rel}`;
    fs.mkdirSync(path.dirname(out), { recursive: true, mode: 0o755 });
    fs.writeFileSync(out, code);
    fs.chmodSync(out, 0o644);
  }
}

// The runner loads each of the candidate's files as the builder compiled it.
function loadCompiled(folder, compiledFolder) {
  const plain = require.extensions['.js'];
  require.extensions['.js'] = (module, filename) => {
    if (!filename.startsWith(`${folder}/`)) return plain(module, filename);
    const name = filename.slice(folder.length + 1);
    const code = fs.readFileSync(`${compiledFolder}/${name}`, 'utf8');
    compiled.set(filename, { name, code, map: null });
    return module._compile(code, filename);
  };
}

// --- The candidate's stack frames, as Jest would show them ---------------------------------
// The server keeps each error's call sites (V8's stack trace API) and sends, for an error of
// the candidate's, the frames in the candidate's files mapped through Babel's source map as
// Jest's source-map-support (0.5.13) maps them: the original line and column, and the name the
// map gives the position, if any, for the function's. Builtins between them ("Array.map
// (<anonymous>)") go too. The client takes none of it on trust (shownFrames).

const compiled = new Map(); // the file V8 names -> the candidate's module it is, its code and map
const sites = new WeakMap(); // error -> its call sites
let SourceMapConsumer = null;

function recordSites(nodeModules) {
  ({ SourceMapConsumer } = require(`${nodeModules}/source-map`));
  Error.stackTraceLimit = STACK_LIMIT;
  Error.prepareStackTrace = (error, trace) => {
    if (error !== null && typeof error === 'object') sites.set(error, trace);
    let head;
    try { head = Error.prototype.toString.call(error); } catch (e) { head = 'Error'; }
    return [head, ...trace].join('\n    at ');
  };
}

function candidateFrames(error) {
  let trace;
  try {
    void error.stack; // formats it, and so records its sites, where nothing has yet
    trace = sites.get(error);
  } catch (e) {
    return [];
  }
  if (!Array.isArray(trace)) return [];
  const frames = [];
  let builtins = [];
  for (const site of trace.slice(0, STACK_LIMIT)) {
    const file = site.getFileName();
    const module = file ? compiled.get(file) : undefined;
    if (module) {
      frames.push(...builtins, mappedFrame(site, module));
      builtins = [];
    } else if (!file && !site.isEval() && String(site).endsWith(' (<anonymous>)')) {
      builtins.push({ call: String(site).slice(0, -' (<anonymous>)'.length) });
    } else {
      builtins = []; // the server's own frames, Node's and the tests' callbacks': none is the candidate's
    }
  }
  return frames;
}

function mappedFrame(site, module) {
  if (module.map === null) {
    const inline = /\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\s*$/.exec(module.code);
    module.map = inline ? new SourceMapConsumer(JSON.parse(Buffer.from(inline[1], 'base64').toString('utf8'))) : false;
  }
  const line = site.getLineNumber();
  const column = site.getColumnNumber() - 1;
  const position = module.map ? module.map.originalPositionFor({ line, column }) : { source: null };
  const at = position.source === null ? { line, column, name: null } : position;
  return { file: module.name, line: at.line, column: at.column + 1, call: callOf(site, at.name || site.getFunctionName()) };
}

// A call site's function part as source-map-support's CallSiteToString writes it; null where
// it writes the place alone.
function callOf(site, name) {
  if (site.isConstructor()) return `new ${name || '<anonymous>'}`;
  if (site.isToplevel()) return name || null;
  let type = site.getTypeName();
  if (type === '[object Object]') type = 'null';
  const method = site.getMethodName();
  if (!name) return `${type}.${method || '<anonymous>'}`;
  let call = type && name.indexOf(type) !== 0 ? `${type}.${name}` : name;
  if (method && name.indexOf(`.${method}`) !== name.length - method.length - 1) call += ` [as ${method}]`;
  return call;
}

// The stack lines the client shows for the server's frames: only a builtin's or one at a line
// and column of one of the candidate's modules, named by the client's own path for it, with a
// function part of CALL's characters; none where the server sent more than V8 would have.
function shownFrames(frames, files) {
  if (!Array.isArray(frames) || frames.length > STACK_LIMIT) return [];
  const lines = [];
  for (const f of frames) {
    if (f === null || typeof f !== 'object' || !(f.call === null || (typeof f.call === 'string' && CALL.test(f.call)))) continue;
    if (f.file === undefined) {
      if (f.call !== null) lines.push(`    at ${f.call} (<anonymous>)`);
      continue;
    }
    const index = files.modules.indexOf(f.file);
    if (index < 0 || !Number.isInteger(f.line) || !Number.isInteger(f.column)) continue;
    const path = `${files.candidate}/${files.modules[index]}`;
    if (!files.lines.has(path)) {
      try { files.lines.set(path, fs.readFileSync(path, 'utf8').split('\n').map((l) => l.length)); } catch (e) { files.lines.set(path, []); }
    }
    const lengths = files.lines.get(path);
    if (f.line < 1 || f.line > lengths.length || f.column < 1 || f.column > lengths[f.line - 1] + 1) continue;
    const at = `${path}:${f.line}:${f.column}`;
    lines.push(f.call === null ? `    at ${at}` : `    at ${f.call} (${at})`);
  }
  return lines;
}

// An error's stack as the client shows it: the server's frames between the test process's own
// above and below them. For an error of the server's, the test process's are those where the
// client makes it; for one the server made of the client's (a test's callback threw), those the
// client's had where it was made, as V8 keeps an error's frames from where it was made. As many
// in all as Jest's limit lets V8 record where the module runs in Jest's process.
function framesOf(v, files) {
  const { above, below } = (Number.isInteger(v.origin) && files.thrown.get(v.origin)) || testFrames(new Error().stack, 1, files);
  return [...above, ...shownFrames(v.frames, files), ...below].slice(0, STACK_LIMIT);
}

// The client's error's frames kept under an id the server may send back with the error it
// makes of it; the last 64 only.
function rememberFrames(files, error) {
  let frames;
  try {
    frames = testFrames(error.stack, String(error.message).split('\n').length, files);
  } catch (e) {
    return undefined;
  }
  const id = files.next++;
  files.thrown.set(id, frames);
  if (files.thrown.size > 64) files.thrown.delete(files.thrown.keys().next().value);
  return id;
}

// The test process's frames of a stack (its first `head` lines the message): those of the spec
// and of Jest (which Jest sets aside as it prints them) above the proxy's and below them, not
// the proxy's nor the client modules', nor a builtin's among those.
function testFrames(stack, head, files) {
  const own = [__filename, ...files.modules.map((m) => `${files.tests}/${m}`)].map((f) => `${f}:`);
  const above = [];
  const below = [];
  let held = [];
  let seen = false;
  for (const line of String(stack).split('\n').slice(head)) {
    if (own.some((f) => line.includes(f))) {
      seen = true;
      held = [];
    } else if (seen && line.endsWith(' (<anonymous>)')) {
      held.push(line);
    } else {
      (seen ? below : above).push(...held, line);
      held = [];
    }
  }
  return { above, below: [...below, ...held] };
}

// The server, as the runner: `serve <node_modules> <folder> <file> <to server> <from server>`,
// the compiled files in $HARNESS_JS_COMPILED; it serves every client that comes until the
// runner's shell ends it (testrun.py).
async function serve([nodeModules, folder, file, toServer, fromServer]) {
  loadCompiled(folder, process.env.HARNESS_JS_COMPILED);
  recordSites(nodeModules);
  const path = `${folder}/${file}`;
  let exportsOf = null;
  for (;;) {
    const peer = setUp(open(toServer, fromServer, 's'));
    for (;;) {
      const m = peer.receive();
      if (m === null) break;
      if (m.op === 'pump') {
        await new Promise((r) => setTimeout(r, Number.isInteger(m.wait) && m.wait >= 0 && m.wait <= 50 ? m.wait : 1));
        peer.send({ op: 'ok', id: m.id, value: { t: 'u' } });
      } else if (m.op === 'main') {
        peer.send({ op: 'ok', id: m.id, value: peer.encode(runMain(path, folder, m.args)) });
      } else {
        if (exportsOf === null) {
          try {
            exportsOf = { value: require(path) };
          } catch (e) {
            exportsOf = { error: e };
          }
        }
        peer.exports = exportsOf.value;
        for (const v of Object.values(Object(exportsOf.value))) if (typeof v === 'function') peer.exported.add(v);
        if (exportsOf.error && m.op === 'exports') peer.send({ op: 'raise', id: m.id, value: peer.encodeThrown(exportsOf.error) });
        else peer.serve(m);
      }
    }
  }
}

// The module as a program. A CommonJS file runs as `node file` runs it (npm-test.sh's Node runs
// the file as written: its lines, and its errors' frames, are the file's); one of ES module
// syntax, which Aider's Node (20.19 on) runs as a module where the image's 18 would refuse
// it, runs compiled by Babel, as Jest would run it.
function runMain(path, folder, args) {
  if (!Array.isArray(args) || args.length > 1000 || !args.every((a) => typeof a === 'string')) {
    throw new TypeError('arguments of an unknown shape');
  }
  const { spawnSync } = require('child_process');
  const ran = spawnSync(process.execPath, moduleSyntax(path) ? [__filename, 'run', path, ...args] : [path, ...args],
    { cwd: folder, encoding: 'utf8', maxBuffer: 1 << 20, env: { ...process.env } });
  return { stdout: ran.stdout || '', stderr: ran.stderr || '', status: ran.status === null ? 1 : ran.status };
}

// Whether a file fails to compile as CommonJS for syntax only a module may have (Node's own
// test for running it as one).
function moduleSyntax(path) {
  try {
    require('vm').compileFunction(fs.readFileSync(path, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname']);
    return false;
  } catch (e) {
    return e instanceof SyntaxError && /import statement|'export'|import\.meta|await is only valid/.test(e.message);
  }
}

if (require.main === module) {
  const [mode, ...rest] = process.argv.slice(2);
  if (mode === 'serve') {
    serve(rest).catch((e) => { process.stderr.write(`${e && e.stack}\n`); process.exit(1); });
  } else if (mode === 'run') {
    const [path, ...args] = rest;
    loadCompiled(require('path').dirname(path), process.env.HARNESS_JS_COMPILED);
    process.argv = [process.argv[0], path, ...args];
    require(path);
  }
}

module.exports = { client, main, compileInto };
