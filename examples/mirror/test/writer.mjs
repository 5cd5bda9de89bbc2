#!/usr/bin/env node
// The writer of the mirror test: for --seconds, and until at least --min-writes succeeded
// (a loaded machine writes slowly; 120 s bound that), moves orders along their fulfillment
// steps, changes prices and stock, and accepts or cancels bookings, through the API.
// Prints {"writes": N} — the successful writes, each of which fired one webhook event.
//   node writer.mjs --base URL --key KEY --seconds 4 --min-writes 20
import { parseArgs } from 'node:util';
import { apiClient, listAll } from '../sync.mjs';

const { values: options } = parseArgs({
  options: { base: { type: 'string' }, key: { type: 'string' }, seconds: { type: 'string', default: '4' },
             'min-writes': { type: 'string', default: '0' } },
});
const client = apiClient(options.base, options.key);

// docs/DESIGN.md's fulfillment transitions.
const NEXT = {
  pending: ['confirmed', 'processing', 'ready', 'shipped', 'fulfilled', 'canceled'],
  confirmed: ['processing', 'ready', 'shipped', 'fulfilled', 'canceled'],
  processing: ['ready', 'shipped', 'fulfilled', 'canceled'],
  ready: ['shipped', 'delivered', 'fulfilled', 'canceled'],
  shipped: ['delivered', 'returned'],
  delivered: ['fulfilled', 'returned'],
  fulfilled: ['returned'],
};

const pick = (items) => items[Math.floor(Math.random() * items.length)];
const orders = [];
for await (const order of listAll(client, '/v1/orders', {})) orders.push(order);
const products = [];
for await (const product of listAll(client, '/v1/products', {})) if (product.variants.length > 0) products.push(product);
const bookings = [];
for await (const booking of listAll(client, '/v1/bookings', {})) bookings.push(booking);

let writes = 0;
const started = Date.now();
const until = started + Number(options.seconds) * 1000;
const minWrites = Number(options['min-writes']);
while ((Date.now() < until || writes < minWrites) && Date.now() < started + 120000) {
  const kind = pick(['fulfillment', 'price', 'stock', 'booking']);
  let response;
  if (kind === 'fulfillment') {
    const order = pick(orders);
    const steps = NEXT[order.fulfillment_status];
    if (!steps) continue;
    const step = pick(steps);
    ({ response } = await client.POST('/v1/orders/{id}/fulfillment', {
      params: { path: { id: order.id } },
      body: { fulfillment_status: step, ...(step === 'shipped' ? { tracking_number: `T${writes}`, tracking_carrier: 'UPS' } : {}) },
    }));
    if (response.status === 200) order.fulfillment_status = step;
  } else if (kind === 'price') {
    const product = pick(products);
    const variant = pick(product.variants);
    const price = (100 + Math.floor(Math.random() * 9000) / 100).toFixed(2);
    ({ response } = await client.PATCH('/v1/products/{id}/variants/{variant_id}', {
      params: { path: { id: product.id, variant_id: variant.id } },
      body: { price, discount_type: null },
    }));
  } else if (kind === 'stock') {
    const product = pick(products);
    const variant = pick(product.variants);
    ({ response } = await client.POST('/v1/products/{id}/variants/{variant_id}/stock', {
      params: { path: { id: product.id, variant_id: variant.id } },
      body: { mode: 'set', quantity: Math.floor(Math.random() * 50), note: 'mirror test' },
    }));
  } else {
    const booking = pick(bookings);
    const action = booking.status === 'pending' || booking.status === 'initiated' ? 'accept' : booking.status === 'accepted' ? 'cancel' : null;
    if (!action) continue;
    ({ response } = await client.POST(`/v1/bookings/{id}/${action}`, { params: { path: { id: booking.id } } }));
    if (response.status === 200) booking.status = action === 'accept' ? 'accepted' : 'canceled';
  }
  if (response.status === 200) writes++;
  else if (response.status !== 409 && response.status !== 422) throw new Error(`${kind}: ${response.status}`);
}
console.log(JSON.stringify({ writes }));
