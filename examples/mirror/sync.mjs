// The spec's sync pattern with a client generated from openapi/storeapi.yaml
// (openapi-typescript types, openapi-fetch calls): record the time before a run, list
// with updated_after = the previous run's start (minus an overlap: a change is stamped
// before it commits), order=asc, paging with next_cursor until has_more is false.
import createClient from 'openapi-fetch';

/** @typedef {import('./generated/api.js').paths} paths */
/** @typedef {'/v1/orders' | '/v1/products' | '/v1/bookings' | '/v1/customers'} ListPath */

// docs/DESIGN.md: "sync clients should overlap polls by a few seconds".
export const OVERLAP_MS = 5000;

/** @param {string} baseUrl @param {string} key */
export function apiClient(baseUrl, key) {
  /** @type {import('openapi-fetch').Client<paths>} */
  const client = createClient({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
  return client;
}

/** Waits out a 429 (Retry-After seconds), then lets the caller try again. */
async function rateLimited(response) {
  if (response.status !== 429) return false;
  const seconds = Number(response.headers.get('Retry-After') ?? '1');
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return true;
}

/**
 * Every record of one list, page by page.
 * @param {import('openapi-fetch').Client<paths>} client
 * @param {ListPath} path
 * @param {Record<string, string | number>} query
 * @returns {AsyncGenerator<any>}
 */
export async function* listAll(client, path, query) {
  let cursor;
  for (;;) {
    const { data, error, response } = await client.GET(path, { params: { query: { ...query, limit: 100, ...(cursor ? { cursor } : {}) } } });
    if (await rateLimited(response)) continue;
    if (!data) throw new Error(`GET ${path}: ${response.status} ${JSON.stringify(error)}`);
    yield* data.data;
    if (!data.has_more || !data.next_cursor) return;
    cursor = data.next_cursor;
  }
}

/**
 * One sync run of every resource into `db` (store-db.mjs). Orders, products and
 * customers are read incrementally; bookings have no updated_at and their list takes no
 * updated_after, so they are listed whole each run (webhooks bring changes sooner).
 * Products are listed twice: deleted products appear only with status=deleted.
 * @param {import('openapi-fetch').Client<paths>} client @param {import('./store-db.mjs').StoreDb} db
 */
export async function syncOnce(client, db) {
  const counts = {};
  /** @type {{resource: string, path: ListPath, passes: Record<string, string>[]}[]} */
  const incremental = [
    { resource: 'orders', path: '/v1/orders', passes: [{}] },
    { resource: 'products', path: '/v1/products', passes: [{}, { status: 'deleted' }] },
    { resource: 'customers', path: '/v1/customers', passes: [{}] },
  ];
  for (const { resource, path, passes } of incremental) {
    const runStart = new Date();  // before the run: changes made during it come next time
    const from = db.syncedFrom(resource);
    const since = from ? { updated_after: new Date(Date.parse(from) - OVERLAP_MS).toISOString() } : {};
    counts[resource] = 0;
    for (const pass of passes) {
      for await (const record of listAll(client, path, { order: 'asc', ...since, ...pass })) {
        db.upsert(resource, record);
        counts[resource]++;
      }
    }
    db.setSyncedFrom(resource, runStart.toISOString());
  }
  counts.bookings = 0;
  for await (const booking of listAll(client, '/v1/bookings', { order: 'asc' })) {
    db.upsert('bookings', booking);
    counts.bookings++;
  }
  db.save();
  return counts;
}
