#!/usr/bin/env node
// Mirrors a store into SQLite by the spec's sync pattern, optionally taking webhooks.
//
//   node mirror.mjs --base http://127.0.0.1:8080 --key sk_live_... --db store.sqlite
//                   [--interval-ms 5000 | --once] [--webhook-port 9000 --webhook-secret whsec_...]
//
// Prints one JSON line per sync run ({"synced":{...counts}}) and per webhook event
// ({"event":type} or {"rejected":why}) on stdout.
import { parseArgs } from 'node:util';
import { StoreDb } from './store-db.mjs';
import { apiClient, syncOnce } from './sync.mjs';
import { startWebhookReceiver } from './webhooks.mjs';

const { values: options } = parseArgs({
  options: {
    base: { type: 'string' },
    key: { type: 'string', default: process.env.STOREAPI_KEY },
    db: { type: 'string', default: 'store.sqlite' },
    once: { type: 'boolean', default: false },
    'interval-ms': { type: 'string', default: '5000' },
    'webhook-port': { type: 'string' },
    'webhook-secret': { type: 'string', default: process.env.STOREAPI_WEBHOOK_SECRET },
  },
});
if (!options.base || !options.key) {
  console.error('usage: mirror.mjs --base URL --key KEY [--db FILE] [--once | --interval-ms N] [--webhook-port N --webhook-secret S]');
  process.exit(2);
}

const db = await StoreDb.open(options.db);
const client = apiClient(options.base, options.key);
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

if (options['webhook-port'] !== undefined) {
  if (!options['webhook-secret']) throw new Error('--webhook-port needs --webhook-secret');
  const server = await startWebhookReceiver({
    port: Number(options['webhook-port']), secret: options['webhook-secret'], db,
    onEvent: (event) => say({ event: event.type, id: event.id }),
    onRejected: (why) => say({ rejected: why }),
  });
  say({ webhooks: /** @type {import('node:net').AddressInfo} */ (server.address()).port });
}

let stopping = false;
process.on('SIGTERM', () => { stopping = true; });
for (;;) {
  say({ synced: await syncOnce(client, db) });
  if (options.once || stopping) break;
  await new Promise((resolve) => setTimeout(resolve, Number(options['interval-ms'])));
  if (stopping) break;
}
process.exit(0);
