// A webhook endpoint for the mirror: verifies each delivery's Standard Webhooks
// signature with the `standardwebhooks` package, and stores the event's object at once
// (the next poll confirms it). An unverifiable request is answered 401 and ignored.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** @typedef {import('./generated/api.js').components['schemas']} Schemas */

// Event type prefix -> the mirror's table.
const TABLES = { order: 'orders', booking: 'bookings', product: 'products' };

/**
 * Listens on 127.0.0.1:`port` (0: any free port). Resolves to the server once listening.
 * @param {{port: number, secret: string, db: import('./store-db.mjs').StoreDb,
 *          onEvent?: (event: any) => void, onRejected?: (why: string) => void}} options
 * @returns {Promise<import('node:http').Server>}
 */
export function startWebhookReceiver({ port, secret, db, onEvent = () => {}, onRejected = () => {} }) {
  const verifier = new Webhook(secret);
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      /** @type {Schemas['OrderEvent'] | Schemas['BookingEvent'] | Schemas['ProductEvent']} */
      let event;
      try {
        event = /** @type {any} */ (verifier).verify(body, /** @type {Record<string, string>} */ (req.headers));
      } catch (e) {
        onRejected(String(e));
        res.writeHead(401).end();
        return;
      }
      const table = TABLES[String(event.type).split('.')[0]];
      if (table) {
        db.upsert(table, event.data.object);
        db.save();
      }
      onEvent(event);
      res.writeHead(204).end();
    });
  });
  // Idle connections stay open longer than Node's default 5 s, so that a sender reusing
  // one (curl, as storeapi-dispatch does) rarely meets it closing.
  server.keepAliveTimeout = 65000;
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}
