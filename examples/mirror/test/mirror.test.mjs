// The mirror against a live server while another process writes: after the writes stop
// and one more poll, the SQLite mirror equals the API's full listing, record for record;
// webhook deliveries are verified (a forged one is refused), and the events the writes
// fired conform to the document's webhooks.
// Needs STOREAPI_BUILD_DIR and STOREAPI_TEST_DATABASE_URL (tools/test sets both).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { StoreDb, RESOURCES } from '../store-db.mjs';
import { ExchangeValidator } from '../../../openapi/exchange-validator.mjs';
import { apiClient, listAll } from '../sync.mjs';

const build = process.env.STOREAPI_BUILD_DIR;
const clusterUrl = process.env.STOREAPI_TEST_DATABASE_URL;
const here = new URL('.', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'storeapi-mirror-'));
const children = [];

// A fresh database on the test cluster, dropped at the end.
const dbName = `storeapi_mirror_${randomBytes(6).toString('hex')}`;
const dbUrl = (() => { const u = new URL(clusterUrl); u.pathname = `/${dbName}`; return u.toString(); })();
execFileSync('psql', [clusterUrl, '-qc', `create database ${dbName}`]);

after(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  execFileSync('psql', [clusterUrl, '-qc', `drop database if exists ${dbName} with (force)`]);
  rmSync(work, { recursive: true, force: true });
});

// The mirror's webhook endpoint is on loopback, which webhooks may reach only when allowed.
const loopback = '127.0.0.0/8,::1/128';
const admin = (...args) =>
  JSON.parse(execFileSync(join(build, 'storeapi-admin'), args, { env: { ...process.env, STOREAPI_DATABASE_URL: dbUrl, STOREAPI_WEBHOOK_ALLOW_NETWORKS: loopback } }).toString());

// Starts a child whose output lines are kept; `lines.wait(predicate)` polls them.
function start(command, args, env = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines = [];
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (l) => lines.push(l));
  const wait = async (predicate, what, ms = 60000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = lines.find(predicate);
      if (found) return found;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${command}: no ${what}; said:\n${lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines, wait, exited };
}

const json = (line) => { try { return JSON.parse(line); } catch { return {}; } };

test('the mirror equals the full listing after concurrent writes, and verifies webhooks', { timeout: 240000 }, async () => {
  admin('migrate');
  const store = admin('store', 'create', '--name', 'Mirror Test', '--slug', 'mirror-test', '--currency', 'EUR',
                      '--plan', 'advanced', '--owner-email', 'owner@mirror.example');
  admin('store', 'set-rate-limit', '--store', store.id, '--rpm', '1000000');
  const key = admin('key', 'create', '--store', store.id, '--name', 'mirror', '--access', 'full').key;
  admin('seed', '--store', store.id, '--orders', '40', '--products', '20', '--customers', '10', '--bookings', '16');

  const server = start(join(build, 'storeapi'), [], {
    STOREAPI_DATABASE_URL: dbUrl, STOREAPI_LISTEN: '127.0.0.1:0', STOREAPI_THREADS: '2', STOREAPI_ACCESS_LOG: 'off',
    STOREAPI_METRICS_LISTEN: 'off' });  // its fixed default port may be another server's
  const listening = await server.wait((l) => /listening on 127\.0\.0\.1:\d+/.test(l), 'listening line');
  const base = `http://127.0.0.1:${listening.match(/:(\d+) /)[1]}`;

  // The mirror with its webhook endpoint; the endpoint is registered once it listens.
  const dbFile = join(work, 'mirror.sqlite');
  const mirrorArgs = [join(here, '..', 'mirror.mjs'), '--base', base, '--key', key, '--db', dbFile];
  // The endpoint's URL names the mirror's port and the mirror needs the endpoint's secret:
  // a free port is asked of the kernel first, then the endpoint added, then the mirror started.
  const probe = start(process.execPath, ['-e', 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})']);
  const port = Number(await probe.wait((l) => /^\d+$/.test(l), 'free port'));
  const hook = admin('webhook', 'add', '--store', store.id, '--url', `http://127.0.0.1:${port}/hooks`);
  const mirror = start(process.execPath, [...mirrorArgs, '--interval-ms', '300', '--webhook-port', String(port),
                                          '--webhook-secret', hook.secret]);
  await mirror.wait((l) => json(l).webhooks === port, 'webhook endpoint');
  await mirror.wait((l) => json(l).synced, 'first sync');

  // Quick retries: a delivery that meets a closing keep-alive connection is sent again soon.
  const dispatcher = start(join(build, 'storeapi-dispatch'), [], {
    STOREAPI_DATABASE_URL: dbUrl, STOREAPI_WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1', STOREAPI_WEBHOOK_ALLOW_NETWORKS: loopback,
    STOREAPI_DISPATCH_METRICS_LISTEN: 'off' });
  const writer = start(process.execPath, [join(here, 'writer.mjs'), '--base', base, '--key', key, '--seconds', '4', '--min-writes', '20']);
  assert.equal(await writer.exited, 0, writer.lines.join('\n'));
  const writes = json(await writer.wait((l) => json(l).writes !== undefined, 'write count')).writes;
  assert.ok(writes > 10, `only ${writes} writes`);

  // Every event the writes fired arrives, signed (a write that changed nothing, such as a
  // price set to what it was, fires none); a forged delivery is refused.
  const events = Number(execFileSync('psql', [dbUrl, '-Atc', 'select count(*) from events']).toString());
  assert.ok(events > 10, `only ${events} events`);
  await mirror.wait(() => new Set(mirror.lines.map((l) => json(l).id).filter(Boolean)).size >= events,
                    `${events} verified events`, 120000);
  // The events the writes fired, as the dispatcher sent them, against the document's webhooks.
  const document = new ExchangeValidator(readFileSync(new URL('../../../openapi/storeapi.yaml', import.meta.url), 'utf8'));
  // Every payload at once: a quiet machine's writer fires hundreds of events (a few KB each),
  // beyond execFileSync's default 1 MiB of output.
  const payloads = execFileSync('psql', [dbUrl, '-Atc', 'select payload::text from events'], { maxBuffer: 1 << 30 })
    .toString().trim().split('\n');
  assert.equal(payloads.length, events);
  for (const payload of payloads) assert.deepEqual(document.checkWebhookPayload(payload), []);
  const forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
    method: 'POST', body: '{"type":"product.updated"}',
    headers: { 'webhook-id': 'evt_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,Zm9yZ2Vk' } });
  assert.equal(forged.status, 401);
  await mirror.wait((l) => json(l).rejected, 'rejection of the forged delivery');
  mirror.child.kill('SIGTERM');
  assert.equal(await mirror.exited, 0);
  dispatcher.child.kill('SIGTERM');
  await dispatcher.exited;

  // One more poll after the writes, then record for record against the full listing.
  const last = start(process.execPath, [...mirrorArgs, '--once']);
  assert.equal(await last.exited, 0, last.lines.join('\n'));
  const db = await StoreDb.open(dbFile);
  const client = apiClient(base, key);
  const listings = {
    orders: [{}], products: [{}, { status: 'deleted' }], bookings: [{}], customers: [{}],
  };
  for (const resource of RESOURCES) {
    const expected = new Map();
    for (const query of listings[resource]) {
      for await (const record of listAll(client, `/v1/${resource}`, query)) expected.set(record.id, record);
    }
    const mirrored = db.records(resource);
    assert.ok(expected.size > 0, `${resource}: the store has none`);
    assert.deepEqual([...mirrored.keys()].sort(), [...expected.keys()].sort(), `${resource}: ids`);
    for (const [id, record] of expected) assert.deepEqual(mirrored.get(id), record, `${resource} ${id}`);
  }
  server.child.kill('SIGTERM');
  await server.exited;
});
