// The emulator's bootstrap for nodejs*.x functions: the Lambda Runtime API
// loop as AWS's Node.js runtime interface client runs it. It loads the
// handler named by _HANDLER ("file.fn", "dir/file.obj.fn") from
// LAMBDA_TASK_ROOT (CommonJS, or ES modules by .mjs or "type": "module"),
// then answers invocations one at a time: async handlers, handlers that
// take a callback, and context.done/succeed/fail.
'use strict';

const fs = require('fs');
const http = require('http');
const path = require('path');
const util = require('util');
const { pathToFileURL } = require('url');

const [host, port] = process.env.AWS_LAMBDA_RUNTIME_API.split(':');
const BASE = '/2018-06-01/runtime';
// Kept-alive sockets are unref'd while free, so an idle connection does
// not keep the event loop from emptying (callbackWaitsForEmptyEventLoop).
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function call(method, p, body, headers) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host, port, method, path: BASE + p, agent, headers: headers || {} },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

// Logging as Lambda's Node.js runtimes write it: time, request id, level,
// the message with its newlines as \r so a record stays one line.
let currentRequestId = undefined;
for (const [name, level] of [
  ['log', 'INFO'], ['info', 'INFO'], ['warn', 'WARN'], ['error', 'ERROR'], ['debug', 'DEBUG'], ['trace', 'TRACE'],
]) {
  console[name] = (...args) => {
    const msg = util.format(...args).replace(/\n/g, '\r');
    process.stdout.write(`${new Date().toISOString()}\t${currentRequestId}\t${level}\t${msg}\n`);
  };
}
console.fatal = (...args) => console.error(...args);

function isError(e) {
  return e && typeof e.name === 'string' && typeof e.message === 'string' && typeof e.stack === 'string';
}

// toRapidResponse is the error object Lambda returns for a Node.js error.
function toRapidResponse(e) {
  try {
    if (util.types.isNativeError(e) || isError(e)) {
      return { errorType: e.name, errorMessage: e.message, trace: e.stack.split('\n') };
    }
    return { errorType: typeof e, errorMessage: String(e), trace: [] };
  } catch (_) {
    return {
      errorType: 'handled',
      errorMessage: 'callback called with Error argument, but there was a problem while retrieving one or more of its message, name, and stack',
    };
  }
}

function runtimeError(type, message) {
  const e = new Error(message);
  e.name = 'Runtime.' + type;
  return e;
}

function logError(label, e) {
  const r = toRapidResponse(e);
  console.error(label, JSON.stringify({ errorType: r.errorType, errorMessage: r.errorMessage, stack: r.trace }));
}

function postError(p, e) {
  const r = toRapidResponse(e);
  return call('POST', p, JSON.stringify(r), {
    'Content-Type': 'application/json',
    'Lambda-Runtime-Function-Error-Type': r.errorType,
  });
}

function hasTypeModule(dir) {
  for (;;) {
    if (dir.endsWith('/node_modules')) return false;
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj)) {
      try {
        return JSON.parse(fs.readFileSync(pj, 'utf8')).type === 'module';
      } catch (_) {
        return false;
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}

async function loadModule(file) {
  if (fs.existsSync(file) && fs.statSync(file).isFile()) return require(file);
  const esm = hasTypeModule(path.dirname(file));
  if (!esm && fs.existsSync(file + '.js')) return require(file + '.js');
  if (esm && fs.existsSync(file + '.js')) return import(pathToFileURL(file + '.js').href);
  if (fs.existsSync(file + '.mjs')) return import(pathToFileURL(file + '.mjs').href);
  if (fs.existsSync(file + '.cjs')) return require(file + '.cjs');
  return require(require.resolve(path.basename(file), { paths: [path.dirname(file), process.env.LAMBDA_TASK_ROOT] }));
}

async function loadHandler(root, handler) {
  if (handler.includes('..')) {
    throw runtimeError('MalformedHandlerName',
      `'${handler}' is not a valid handler name. Use absolute paths when specifying root directories in handler names.`);
  }
  const base = path.basename(handler);
  const moduleRoot = handler.substring(0, handler.length - base.length);
  const m = /^([^.]*)\.(.*)$/.exec(base);
  if (!m) throw runtimeError('MalformedHandlerName', 'Bad handler');
  let mod;
  try {
    mod = await loadModule(path.resolve(root, moduleRoot, m[1]));
  } catch (e) {
    if (e instanceof SyntaxError) throw runtimeError('UserCodeSyntaxError', String(e));
    if (e && e.code === 'MODULE_NOT_FOUND') throw runtimeError('ImportModuleError', String(e));
    throw e;
  }
  const fn = m[2].split('.').reduce((o, k) => o && o[k], mod);
  if (!fn) throw runtimeError('HandlerNotFound', `${handler} is undefined or not exported`);
  if (typeof fn !== 'function') throw runtimeError('HandlerNotFound', `${handler} is not a function`);
  return fn;
}

// What runs when the event loop empties during an invocation: the answer
// a callback handler gave (callbackWaitsForEmptyEventLoop), or null.
let onEmptyLoop = () => {};
process.on('beforeExit', () => onEmptyLoop());

// The invocation uncaught errors are reported for (then the process exits,
// as Lambda's runtime does).
let failCurrent = null;
process.on('uncaughtException', (e) => {
  logError('Uncaught Exception', e);
  (failCurrent ? failCurrent(e) : Promise.resolve()).finally(() => process.exit(129));
});
process.on('unhandledRejection', (reason) => {
  const e = isError(reason) ? reason : runtimeError('UnhandledPromiseRejection', String(reason));
  logError('Unhandled Promise Rejection', e);
  (failCurrent ? failCurrent(e) : Promise.resolve()).finally(() => process.exit(128));
});

function parseJSONHeader(v, name) {
  if (v === undefined) return undefined;
  try {
    return JSON.parse(v);
  } catch (e) {
    throw new Error(`Cannot parse ${name} as json: ${e}`);
  }
}

async function once(handler, isAsync) {
  const next = await call('GET', '/invocation/next');
  if (next.status !== 200) {
    process.stderr.write(`runtime API answered ${next.status} to /next: ${next.body.toString().slice(0, 200)}\n`);
    process.exit(1);
  }
  const h = next.headers;
  const id = h['lambda-runtime-aws-request-id'];
  currentRequestId = id;
  if (h['lambda-runtime-trace-id']) process.env._X_AMZN_TRACE_ID = h['lambda-runtime-trace-id'];
  else delete process.env._X_AMZN_TRACE_ID;

  let finished = false;
  let finishedPromise;
  const settled = new Promise((resolve) => { finishedPromise = resolve; });
  const finish = (err, result) => {
    if (finished) return;
    finished = true;
    onEmptyLoop = () => {};
    failCurrent = null;
    let p;
    if (err !== undefined && err !== null) {
      logError('Invoke Error', err);
      p = postError(`/invocation/${id}/error`, err);
    } else {
      let body;
      try {
        body = JSON.stringify(result === undefined ? null : result);
      } catch (e) {
        p = postError(`/invocation/${id}/error`, runtimeError('MarshalError', `Unable to stringify response body: ${e}`));
      }
      if (!p) p = call('POST', `/invocation/${id}/response`, body, { 'Content-Type': 'application/json' });
    }
    p.then(finishedPromise, finishedPromise);
  };
  failCurrent = (e) => { finish(e); return settled; };

  let waitForEmptyLoop = true;
  const callback = (err, result) => {
    if (err !== undefined && err !== null) return finish(err);
    if (!waitForEmptyLoop) return finish(null, result);
    onEmptyLoop = () => setImmediate(() => finish(null, result));
  };
  // An async handler that never settles leaves the loop empty: Lambda's
  // runtime reports that; a sync one that never called back answers null.
  onEmptyLoop = isAsync
    ? () => finish(runtimeError('NodeJsExit', 'The Lambda runtime client detected an unexpected Node.js exit code. This is most commonly caused by a Promise that was never settled.'))
    : () => finish(null, null);

  const deadline = Number(h['lambda-runtime-deadline-ms']);
  const context = {
    get callbackWaitsForEmptyEventLoop() { return waitForEmptyLoop; },
    set callbackWaitsForEmptyEventLoop(v) { waitForEmptyLoop = v; },
    succeed: (r) => finish(null, r),
    fail: (e) => finish(e === undefined || e === null ? 'handled' : e),
    done: (e, r) => finish(e, r),
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    invokedFunctionArn: h['lambda-runtime-invoked-function-arn'],
    awsRequestId: id,
    getRemainingTimeInMillis: () => Math.max(deadline - Date.now(), 0),
  };
  try {
    context.clientContext = parseJSONHeader(h['lambda-runtime-client-context'], 'ClientContext');
    context.identity = parseJSONHeader(h['lambda-runtime-cognito-identity'], 'CognitoIdentity');
    const event = JSON.parse(next.body.length ? next.body.toString('utf8') : '{}');
    const result = handler(event, context, callback);
    if (result && typeof result.then === 'function') {
      result.then((v) => finish(null, v), (e) => finish(e === undefined || e === null ? new Error(String(e)) : e));
    }
  } catch (e) {
    finish(e);
  }
  await settled;
}

async function main() {
  let handler;
  try {
    handler = await loadHandler(process.env.LAMBDA_TASK_ROOT || process.cwd(), process.env._HANDLER || '');
  } catch (e) {
    logError('Init Error', e);
    await postError('/init/error', e).catch(() => {});
    process.exit(1);
  }
  const isAsync = handler.constructor && handler.constructor.name === 'AsyncFunction';
  for (;;) await once(handler, isAsync);
}

main();
