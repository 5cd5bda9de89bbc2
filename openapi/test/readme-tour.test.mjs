// The README's API tour against the document: each curl command's method and path is a
// documented operation, its query parameters and headers are documented parameters of
// it (with valid values), and its JSON body is valid against the request body schema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ExchangeValidator } from '../exchange-validator.mjs';

const validator = new ExchangeValidator(readFileSync(new URL('../storeapi.yaml', import.meta.url), 'utf8'));
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

// The tour's curl commands, continuation lines joined.
function tourCommands() {
  const section = readme.split('\n## The API: contract and tour\n')[1]?.split('\n## ')[0];
  assert.ok(section, 'README has no "The API: contract and tour" section');
  const block = section.split('```sh\n')[1].split('```')[0].replace(/\\\n\s*/g, ' ');
  return block.split('\n').filter((line) => line.trimStart().startsWith('curl '));
}

// Splits a shell command line into words, honouring single and double quotes.
function words(line) {
  const out = [];
  const re = /'([^']*)'|"([^"]*)"|(\S+)/g;
  let m;
  while ((m = re.exec(line.split(/\s#\s/)[0]))) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

const placeholders = /^\$[A-Z_]+$/;  // $ORDER_ID, $NEXT_CURSOR, ... (set by the tour from answers)

test('the tour has a command for every operation', () => {
  const used = new Set();
  for (const line of tourCommands()) {
    const w = words(line);
    const method = w.includes('-X') ? w[w.indexOf('-X') + 1] : 'GET';
    const url = w.find((x) => x.startsWith('$BASE/'));
    const path = url.slice('$BASE'.length).split('?')[0];
    const found = validator.operationFor(method, path);
    if (found) used.add(found.name);
  }
  const documented = Object.entries(validator.doc.paths)
    .filter(([p]) => p.startsWith('/v1/'))
    .flatMap(([p, item]) => Object.keys(item).filter((k) => k !== 'parameters').map((k) => `${k.toUpperCase()} ${p}`));
  // Single-record reads are the lists' siblings; the tour shows each list and each write.
  const expected = documented.filter((name) => !/^GET \/v1\/\w+\/\{id\}$/.test(name));
  const missing = expected.filter((name) => !used.has(name));
  assert.deepEqual(missing, [], 'operations the tour does not show');
});

for (const line of tourCommands()) {
  test(`tour: ${line.trim().slice(0, 90)}`, () => {
    const w = words(line);
    const method = w.includes('-X') ? w[w.indexOf('-X') + 1] : 'GET';
    const url = w.find((x) => x.startsWith('$BASE/'));
    assert.ok(url, 'no $BASE/... URL');
    const [path, query = ''] = url.slice('$BASE'.length).split('?');
    const found = validator.operationFor(method, path);
    assert.ok(found, `${method} ${path} is not a documented operation`);
    const parameter = (where, name) => found.parameters.find((p) => p.in === where && p.name.toLowerCase() === name.toLowerCase());

    for (const pair of query ? query.split('&') : []) {
      const [name, value] = pair.split('=');
      const documented = parameter('query', name);
      assert.ok(documented, `query parameter ${name} is not documented for ${found.name}`);
      if (placeholders.test(value)) continue;
      const typed = documented.schema.type === 'integer' ? Number(value) : decodeURIComponent(value);
      assert.deepEqual(validator.schemaProblems(documented.schema, typed, `${name}=`), []);
    }
    for (let i = 0; i < w.length; i++) {
      if (w[i] !== '-H') continue;
      const [name, value] = w[i + 1].split(/:\s*/);
      if (name === 'Authorization') {
        assert.match(value, /^Bearer /);
        continue;
      }
      if (name === 'Content-Type') {
        assert.ok(found.operation.requestBody?.content?.[value], `${found.name} takes no ${value} body`);
        continue;
      }
      const documented = parameter('header', name);
      assert.ok(documented, `header ${name} is not documented for ${found.name}`);
      assert.deepEqual(validator.schemaProblems(documented.schema, value, `${name}:`), []);
    }
    if (w.includes('-d')) {
      const schema = found.operation.requestBody?.content?.['application/json']?.schema;
      assert.ok(schema, `${found.name} documents no JSON body`);
      assert.deepEqual(validator.schemaProblems(schema, JSON.parse(w[w.indexOf('-d') + 1]), 'body'), []);
    }
  });
}
