// The validator itself: what it must accept and what it must refuse, on exchanges made
// up here (the real ones come from the integration tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ExchangeValidator } from '../exchange-validator.mjs';

const validator = new ExchangeValidator(readFileSync(new URL('../storeapi.yaml', import.meta.url), 'utf8'));
const rate = [['RateLimit-Limit', '60'], ['RateLimit-Remaining', '59'], ['RateLimit-Reset', '1']];
const requestId = 'req_0123456789abcdef0123';

const customer = {
  object: 'customer', id: '0b5b7c5e-6f5a-4e2b-9c7d-1a2b3c4d5e6f', name: 'Ada', email: 'ada@example.com',
  phone: '+47 1234', source: 'storefront', email_status: 'subscribed', unsubscribed_at: null, tags: ['vip'],
  created_at: '2026-11-21T20:39:02.123Z', updated_at: '2026-11-21T20:39:02.123Z',
};

function exchange(overrides) {
  return {
    method: 'GET', target: `/v1/customers/${customer.id}`, status: 200,
    headers: [['Content-Type', 'application/json'], ['Request-Id', requestId], ...rate],
    body: JSON.stringify(customer), ...overrides,
  };
}

function error(status, type, code, param = null, headers = rate) {
  return {
    status,
    headers: [['Content-Type', 'application/json'], ['Request-Id', requestId], ...headers],
    body: JSON.stringify({ error: { type, code, message: 'm', param, request_id: requestId } }),
  };
}

test('a conforming response passes', () => {
  assert.deepEqual(validator.check(exchange({})), []);
});

test('a field the document does not have fails', () => {
  const problems = validator.check(exchange({ body: JSON.stringify({ ...customer, nickname: 'A' }) }));
  assert.equal(problems.length, 1);
  assert.match(problems[0], /must NOT have additional properties \(nickname\)/);
});

test('a missing field, a wrong format and a null where none is allowed fail', () => {
  const { phone, ...withoutPhone } = customer;
  assert.ok(phone);
  assert.match(validator.check(exchange({ body: JSON.stringify(withoutPhone) }))[0], /required property 'phone'/);
  assert.match(validator.check(exchange({ body: JSON.stringify({ ...customer, created_at: '2026-11-21T20:39:02Z' }) }))[0],
               /created_at must match pattern/);
  assert.match(validator.check(exchange({ body: JSON.stringify({ ...customer, name: null }) }))[0], /name must be string/);
});

test('a status the operation does not document fails', () => {
  assert.deepEqual(validator.check(exchange({ status: 422, ...error(422, 'invalid_request_error', 'discount_exceeds_price') })),
                   ['GET /v1/customers/{id}: status 422 is not documented']);
});

test('an error code that does not belong to the status fails', () => {
  assert.deepEqual(validator.check(exchange(error(404, 'invalid_request_error', 'resource_not_found'))), []);
  assert.ok(validator.check(exchange(error(404, 'invalid_request_error', 'route_not_found'))).length > 0);
});

test('a required header that is missing or malformed fails', () => {
  assert.deepEqual(validator.check(exchange({ headers: [['Content-Type', 'application/json'], ['Request-Id', requestId]] })),
                   ['GET /v1/customers/{id} 200: header RateLimit-Limit is missing',
                    'GET /v1/customers/{id} 200: header RateLimit-Remaining is missing',
                    'GET /v1/customers/{id} 200: header RateLimit-Reset is missing']);
  const badId = exchange({ headers: [['Content-Type', 'application/json'], ['Request-Id', 'x'], ...rate] });
  assert.match(validator.check(badId)[0], /header Request-Id must match pattern/);
});

test('HEAD is GET without a body', () => {
  assert.deepEqual(validator.check(exchange({ method: 'HEAD', body: '' })), []);
  assert.deepEqual(validator.check(exchange({ method: 'HEAD' })), ['GET /v1/customers/{id} 200: a body where none is documented']);
});

test('undocumented paths and methods answer what any path can answer', () => {
  assert.deepEqual(validator.check({ method: 'GET', target: '/v1/nope', ...error(404, 'invalid_request_error', 'route_not_found') }), []);
  assert.deepEqual(validator.check({ method: 'GET', target: '/v1/nope', status: 200, headers: [], body: '{}' }),
                   ['GET (undocumented path): status 200 is not documented']);
  const allow = [['Allow', 'GET, HEAD, OPTIONS']];
  assert.deepEqual(validator.check({ method: 'DELETE', target: '/v1/orders', ...error(405, 'invalid_request_error', 'method_not_allowed', null, [...rate, ...allow]) }), []);
  assert.deepEqual(validator.check({ method: 'OPTIONS', target: '/v1/orders', status: 204,
                                     headers: [['Request-Id', requestId], ...rate, ...allow], body: '' }), []);
});

test('list pages check every record', () => {
  const page = { object: 'list', data: [customer, { ...customer, extra: 1 }], has_more: false, next_cursor: null };
  const problems = validator.check(exchange({ target: '/v1/customers?limit=2', body: JSON.stringify(page) }));
  assert.equal(problems.length, 1);
  assert.match(problems[0], /body\/data\/\[\]/);
  const envelope = { ...page, data: [customer], total: 1 };
  assert.match(validator.check(exchange({ target: '/v1/customers', body: JSON.stringify(envelope) }))[0],
               /unevaluated properties \(total\)/);
});

test('webhook payloads are checked against the webhooks of their type', () => {
  const booking = {
    object: 'booking', id: customer.id, status: 'accepted', date: '2026-11-30', time: '14:30', timezone: 'Europe/Oslo',
    duration_minutes: 60, meeting_method: 'video', meeting_link: 'https://meet.example/x', order_id: customer.id,
    product_id: customer.id, product_name: 'Consultation', customer: { id: customer.id, name: 'Ada', email: 'a@example.com', phone: '1' },
    created_at: '2026-11-21T20:39:02.123Z',
  };
  const event = {
    id: 'evt_0123456789abcdef0123456789abcdef', object: 'event', type: 'booking.accepted',
    created_at: '2026-11-21T20:39:02.123Z', store_id: customer.id,
    data: { object: booking, previous_attributes: { status: 'pending' } },
  };
  assert.deepEqual(validator.checkWebhookPayload(JSON.stringify(event)), []);
  assert.match(validator.checkWebhookPayload(JSON.stringify({ ...event, extra: 1 }))[0], /unevaluated properties \(extra\)/);
  assert.match(validator.checkWebhookPayload(JSON.stringify({ ...event, data: { ...event.data, object: { ...booking, status: 'x' } } }))[0],
               /data\/object\/status/);
  assert.deepEqual(validator.checkWebhookPayload(JSON.stringify({ ...event, type: 'booking.deleted' })),
                   ['webhook: event type "booking.deleted" is not documented']);
});
