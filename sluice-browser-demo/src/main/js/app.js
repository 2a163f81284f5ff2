// The page of ./sluice demo --browser. It connects to the Sluice server that served it with
// rsocket-js over a WebSocket, runs one request-stream and then many request-responses, checks
// every message, shows messages per second while it runs, and posts a report (key=value lines)
// to /report when it is done. BrowserDemo.java is the server side of this contract.
import { RSocketConnector } from "rsocket-core";
import { WebsocketClientTransport } from "rsocket-websocket-client";

// BrowserDemo.RSOCKET_PATH: where the server upgrades to RSocket over WebSocket.
const RSOCKET_PATH = "/rsocket";
const DEFAULTS = { stream: 200000, responses: 10000, inflight: 64, batch: 1024 };
// Sanity bounds of the URL options. The server decides how long a stream may be
// (BrowserDemo.MAX_STREAM_COUNT) and answers a longer one with an error, which the page reports.
const MAX = { stream: 2147483647, responses: 10000000, inflight: 4096, batch: 1 << 20 };

const $ = (id) => document.getElementById(id);

/** ?name=N from the page's URL, a whole number in 1..max, or the default. */
function option(params, name) {
  const raw = params.get(name);
  if (raw === null) {
    return DEFAULTS[name];
  }
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX[name]) {
    throw new Error(`?${name}= takes a whole number in 1..${MAX[name]}, got '${raw}'`);
  }
  return n;
}

/** One row of the table: a count, and messages per second now and since it started. */
class Meter {
  constructor(rowId, total) {
    this.row = $(rowId);
    this.count = 0;
    this.started = 0;
    this.stopped = 0;
    this.lastCount = 0;
    this.lastTime = 0;
    this.cell("of").textContent = total.toLocaleString("en");
    this.cell("count").textContent = "0";
    this.cell("now").textContent = "";
    this.cell("overall").textContent = "";
  }

  cell(name) {
    return this.row.querySelector("." + name);
  }

  start() {
    this.started = this.lastTime = performance.now();
  }

  stop() {
    this.stopped = performance.now();
    this.show();
    this.cell("now").textContent = "";
  }

  /** Messages per second from start to stop (or to now), rounded. */
  overall() {
    const end = this.stopped || performance.now();
    const seconds = (end - this.started) / 1000;
    return seconds > 0 ? Math.round(this.count / seconds) : 0;
  }

  show() {
    if (!this.started) {
      return;
    }
    const now = performance.now();
    this.cell("count").textContent = this.count.toLocaleString("en");
    if (!this.stopped && now > this.lastTime) {
      const rate = ((this.count - this.lastCount) * 1000) / (now - this.lastTime);
      this.cell("now").textContent = Math.round(rate).toLocaleString("en");
    }
    this.cell("overall").textContent = this.overall().toLocaleString("en");
    this.lastCount = this.count;
    this.lastTime = now;
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return new RSocketConnector({
    setup: { keepAlive: 10000, lifetime: 60000 },
    transport: new WebsocketClientTransport({ url: `${scheme}//${location.host}${RSOCKET_PATH}` }),
  }).connect();
}

function message(e) {
  return e && e.message ? e.message : String(e);
}

/**
 * request-stream 'count:N': the server sends "0", "1", ... "N-1", then completes. Asks for
 * 2 * batch at first and for another batch each time a batch has arrived.
 */
function runStream(rsocket, count, batch, meter) {
  const result = { requested: count, received: 0, inOrder: true, completed: false, error: "" };
  return new Promise((resolve) => {
    let sinceRequest = 0;
    meter.start();
    const handle = rsocket.requestStream({ data: Buffer.from("count:" + count) }, 2 * batch, {
      onNext(payload, isComplete) {
        const text = payload.data ? payload.data.toString("utf8") : "";
        if (result.inOrder && text !== String(result.received)) {
          result.inOrder = false;
          result.error = `message ${result.received} was '${text.slice(0, 40)}'`;
        }
        meter.count = ++result.received;
        if (isComplete) {
          result.completed = true;
          resolve(result);
        } else if (++sinceRequest === batch) {
          sinceRequest = 0;
          handle.request(batch);
        }
      },
      onComplete() {
        result.completed = true;
        resolve(result);
      },
      onError(e) {
        result.error = message(e);
        resolve(result);
      },
      onExtension() {},
    });
  }).finally(() => meter.stop());
}

/** count request-responses 'ping-i', inflight at a time; each answer must be 'echo:ping-i'. */
function runResponses(rsocket, count, inflight, meter) {
  const result = { requested: count, ok: 0, wrong: 0, errors: 0, error: "" };
  return new Promise((resolve) => {
    let sent = 0;
    let answered = 0;
    const finished = () => {
      meter.count = ++answered;
      if (sent < count) {
        send();
      } else if (answered === count) {
        resolve(result);
      }
    };
    const send = () => {
      const text = "ping-" + sent++;
      rsocket.requestResponse({ data: Buffer.from(text) }, {
        onNext(payload) {
          const got = payload.data ? payload.data.toString("utf8") : "";
          if (got === "echo:" + text) {
            result.ok++;
          } else {
            result.wrong++;
            result.error = result.error || `'${text}' was answered '${got.slice(0, 40)}'`;
          }
          finished();
        },
        onComplete() {
          result.wrong++;
          result.error = result.error || `'${text}' was answered with no message`;
          finished();
        },
        onError(e) {
          result.errors++;
          result.error = result.error || `'${text}' failed: ${message(e)}`;
          finished();
        },
        onExtension() {},
      });
    };
    meter.start();
    for (let k = 0; k < Math.min(inflight, count); k++) {
      send();
    }
  }).finally(() => meter.stop());
}

/** The report as key=value lines (java.util.Properties reads them; values on one line). */
function report(fields) {
  return Object.entries(fields)
    .map(([k, v]) => `${k}=${String(v).replace(/[\\\r\n]/g, " ")}`)
    .join("\n") + "\n";
}

async function run() {
  const again = $("again");
  again.disabled = true;
  $("report").textContent = "";
  const fields = { result: "fail", error: "" };
  let timer = 0;
  let rsocket = null;
  try {
    const params = new URLSearchParams(location.search);
    const o = {};
    for (const name of Object.keys(DEFAULTS)) {
      o[name] = option(params, name);
    }
    const streamMeter = new Meter("stream", o.stream);
    const responseMeter = new Meter("response", o.responses);
    timer = setInterval(() => {
      streamMeter.show();
      responseMeter.show();
    }, 250);
    $("status").textContent = "connecting";
    rsocket = await connect();
    $("status").textContent = "request-stream running";
    const s = await runStream(rsocket, o.stream, o.batch, streamMeter);
    Object.assign(fields, {
      "stream.requested": s.requested,
      "stream.received": s.received,
      "stream.inOrder": s.inOrder,
      "stream.completed": s.completed,
      "stream.messagesPerSecond": streamMeter.overall(),
    });
    $("status").textContent = "request-response running";
    const r = await runResponses(rsocket, o.responses, o.inflight, responseMeter);
    Object.assign(fields, {
      "response.requested": r.requested,
      "response.ok": r.ok,
      "response.wrong": r.wrong,
      "response.errors": r.errors,
      "response.inflight": o.inflight,
      "response.messagesPerSecond": responseMeter.overall(),
    });
    const passed = s.received === s.requested && s.inOrder && s.completed && !s.error
      && r.ok === r.requested;
    fields.result = passed ? "pass" : "fail";
    fields.error = s.error || r.error;
  } catch (e) {
    fields.error = message(e);
  } finally {
    clearInterval(timer);
    if (rsocket) {
      rsocket.close();
    }
  }
  fields.browser = navigator.userAgent;
  const text = report(fields);
  $("report").textContent = text;
  $("status").textContent = fields.result === "pass" ? "done, every message checked" : "failed";
  $("status").className = fields.result === "pass" ? "" : "failed";
  try {
    await fetch("report", { method: "POST", headers: { "content-type": "text/plain" }, body: text });
  } catch (e) {
    $("status").textContent += " (the report could not be sent: " + message(e) + ")";
  }
  again.disabled = false;
}

$("again").addEventListener("click", run);
run();
