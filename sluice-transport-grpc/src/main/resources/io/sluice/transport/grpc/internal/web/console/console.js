// The Sluice console: services and messages from api/services, calls through the server's
// HTTP/JSON route (POST /package.Service/Method, application/json), figures from api/figures.
// No framework and nothing loaded from elsewhere. A link such as
//   /console/#call=pkg.Service/Method&data={"name":"ada"}&run
// opens that method with that request, and with "run" calls it at once.
'use strict';

const CODES = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND',
  'ALREADY_EXISTS', 'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED',
  'OUT_OF_RANGE', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED'];

let schema = null;
let current = null; // {service, method}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function example(typeName, depth) {
  const m = schema.messages[typeName];
  const out = {};
  if (!m || depth > 3) return out;
  for (const f of m.fields) {
    let v;
    if (f.map) v = {};
    else if (f.message) v = example(f.message, depth + 1);
    else if (f.enum) v = f.enum[0];
    else if (f.type === 'string') v = '';
    else if (f.type === 'bool') v = false;
    else if (f.type === 'bytes') v = '';
    else if (/int64|fixed64/.test(f.type)) v = '0';
    else v = 0;
    out[f.json] = f.repeated ? [] : v;
  }
  return out;
}

function fieldsTable(table, typeName) {
  table.replaceChildren();
  const m = schema.messages[typeName];
  if (!m) {
    table.append(el('tr', {}, el('td', { class: 'muted' }, 'not described (lite messages)')));
    return;
  }
  if (m.fields.length === 0) table.append(el('tr', {}, el('td', { class: 'muted' }, 'no fields')));
  for (const f of m.fields) {
    table.append(el('tr', {},
      el('td', {}, f.json),
      el('td', { class: 'type' }, (f.repeated ? 'repeated ' : '') + f.type + (f.enum ? ' {' + f.enum.join(', ') + '}' : '')),
      el('td', { class: 'muted' }, String(f.number))));
  }
}

function select(serviceName, methodName, data) {
  const service = schema.services.find(s => s.name === serviceName);
  const method = service && service.methods.find(m => m.name === methodName);
  if (!method) {
    showStatus('error', 'no method ' + serviceName + '/' + methodName + ' on this server');
    return false;
  }
  current = { service, method };
  document.querySelectorAll('nav button').forEach(b =>
    b.classList.toggle('selected', b.dataset.path === serviceName + '/' + methodName));
  document.getElementById('pick').hidden = true;
  document.getElementById('method-view').hidden = false;
  document.getElementById('method-name').textContent = serviceName + '/' + methodName;
  document.getElementById('method-kind').textContent = method.kind.toLowerCase().replace(/_/g, ' ');
  document.getElementById('request-type').textContent = method.request || '?';
  document.getElementById('response-type').textContent = method.response || '?';
  fieldsTable(document.getElementById('request-fields'), method.request);
  fieldsTable(document.getElementById('response-fields'), method.response);
  document.getElementById('request').value =
    data !== undefined ? data : JSON.stringify(example(method.request, 0), null, 2);
  document.getElementById('call').disabled = !method.json;
  document.getElementById('not-callable').hidden = method.json;
  document.getElementById('status').textContent = '';
  document.getElementById('answer').textContent = '';
  return true;
}

function showStatus(kind, text) {
  const s = document.getElementById('status');
  s.className = 'status ' + kind;
  s.textContent = text;
}

async function call() {
  if (!current) return;
  const path = '/' + current.service.name + '/' + current.method.name;
  const body = document.getElementById('request').value;
  showStatus('', 'calling ' + path + '…');
  document.getElementById('answer').textContent = '';
  const started = performance.now();
  let response;
  try {
    response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  } catch (e) {
    showStatus('error', 'the request failed: ' + e);
    return;
  }
  const text = await response.text();
  const ms = Math.round(performance.now() - started);
  const status = response.headers.get('grpc-status');
  if (response.ok && (status === null || status === '0')) {
    showStatus('ok', 'OK in ' + ms + ' ms');
    document.getElementById('answer').textContent = pretty(text);
    return;
  }
  let code = status !== null ? Number(status) : NaN;
  let message = text;
  try {
    const err = JSON.parse(text);
    if (typeof err.code === 'number') code = err.code;
    if (typeof err.message === 'string') message = err.message;
  } catch (e) { /* not JSON: shown as it came */ }
  const name = CODES[code] || ('HTTP ' + response.status);
  showStatus('error', name + ': ' + message);
  document.getElementById('answer').textContent = text;
}

function pretty(text) {
  // One JSON object, or NDJSON (a server stream): each pretty-printed.
  return text.split('\n').filter(l => l.trim() !== '').map(l => {
    try { return JSON.stringify(JSON.parse(l), null, 2); } catch (e) { return l; }
  }).join('\n');
}

function renderServices() {
  const nav = document.getElementById('services');
  nav.replaceChildren();
  if (schema.services.length === 0) nav.append(el('p', { class: 'muted' }, 'this server serves no RPC services'));
  for (const s of schema.services) {
    nav.append(el('h2', {}, s.name));
    for (const m of s.methods) {
      const b = el('button', { type: 'button' }, m.name + ' ', el('span', { class: 'kind' }, m.kind.toLowerCase().replace(/_/g, ' ')));
      b.dataset.path = s.name + '/' + m.name;
      b.addEventListener('click', () => select(s.name, m.name));
      nav.append(b);
    }
  }
}

function number(v, digits) {
  return v === null || v === undefined ? '–' : (digits === undefined ? String(v) : v.toFixed(digits));
}

async function refreshFigures() {
  try {
    const r = await fetch('api/figures', { cache: 'no-store' });
    const f = await r.json();
    document.getElementById('connections').textContent = f.connections < 0 ? '–' : String(f.connections);
    document.getElementById('open-calls').textContent = String(f.openCalls);
    document.getElementById('calls-per-second').textContent = number(f.callsPerSecond, 1);
    document.getElementById('figures-source').textContent = 'figures: ' + f.source;
    const body = document.querySelector('#method-figures tbody');
    body.replaceChildren();
    for (const m of f.methods) {
      body.append(el('tr', {}, el('td', { class: 'type' }, m.method), el('td', {}, String(m.calls)),
        el('td', {}, String(m.failures)), el('td', {}, number(m.callsPerSecond, 1)), el('td', {}, number(m.p99Millis, 2))));
    }
  } catch (e) {
    document.getElementById('figures-source').textContent = 'figures unavailable: ' + e;
  }
}

function fromLink() {
  const params = new URLSearchParams(location.hash.slice(1));
  const target = params.get('call');
  if (!target) return Promise.resolve();
  const slash = target.lastIndexOf('/');
  if (!select(target.slice(0, slash), target.slice(slash + 1), params.get('data') ?? undefined)) return Promise.resolve();
  return params.has('run') ? call() : Promise.resolve();
}

async function start() {
  document.getElementById('server').textContent = location.host;
  document.getElementById('call-form').addEventListener('submit', e => { e.preventDefault(); call(); });
  const r = await fetch('api/services', { cache: 'no-store' });
  schema = await r.json();
  renderServices();
  await fromLink();
  await refreshFigures();
  document.body.dataset.ready = 'true';
  setInterval(refreshFigures, 1000);
}

start().catch(e => showStatus('error', 'the console could not start: ' + e));
