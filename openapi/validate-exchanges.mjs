#!/usr/bin/env node
// Checks recorded HTTP exchanges against openapi/storeapi.yaml: every response's status
// must be documented for its operation, its documented headers present and well-formed,
// and its body valid against the documented schema (which forbids undocumented fields).
//
//   node validate-exchanges.mjs [--spec storeapi.yaml] FILE_OR_DIR...
//
// Each file holds one exchange per line, as tests/support/exchange_recorder.cpp writes
// them: {"method","target","status","headers":[[name,value],...],"body"}. A directory
// means every *.jsonl file in it. Exit 0 when all conform, 1 otherwise (each problem is
// printed once, with how many exchanges showed it and one example).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExchangeValidator } from './exchange-validator.mjs';

const args = process.argv.slice(2);
let spec = join(dirname(fileURLToPath(import.meta.url)), 'storeapi.yaml');
if (args[0] === '--spec') {
  spec = args[1];
  args.splice(0, 2);
}
if (args.length === 0) {
  console.error('usage: validate-exchanges.mjs [--spec FILE] FILE_OR_DIR...');
  process.exit(2);
}

const files = args.flatMap((path) =>
  statSync(path).isDirectory()
    ? readdirSync(path).filter((f) => f.endsWith('.jsonl')).sort().map((f) => join(path, f))
    : [path]);

const validator = new ExchangeValidator(readFileSync(spec, 'utf8'));
const problems = new Map();  // message -> {count, example}
let exchanges = 0;
for (const file of files) {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const exchange = JSON.parse(line);
    exchanges++;
    for (const problem of validator.check(exchange)) {
      const seen = problems.get(problem);
      if (seen) seen.count++;
      else problems.set(problem, { count: 1, example: `${exchange.method} ${exchange.target} -> ${exchange.status}` });
    }
  }
}
for (const [problem, { count, example }] of problems) {
  console.error(`openapi: ${problem} (${count}x, e.g. ${example})`);
}
console.log(`openapi: ${exchanges} exchanges from ${files.length} files checked against ${spec}: ` +
            `${problems.size === 0 ? 'all conform' : `${problems.size} kinds of problem`}`);
if (exchanges === 0) {
  console.error('openapi: no exchanges were recorded; was STOREAPI_TEST_EXCHANGES_DIR set for the tests?');
  process.exit(1);
}
process.exit(problems.size === 0 ? 0 : 1);
