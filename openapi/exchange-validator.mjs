// One recorded exchange against the OpenAPI document: the response's status, headers and
// body. Schemas are checked by Ajv (JSON Schema draft 2020-12, what OpenAPI 3.1 uses).
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';

const SCHEMAS_ID = 'storeapi-components';

// '#/components/schemas/X' -> an absolute reference into the one schema document that
// holds every component schema, so each response schema compiles on its own.
function absoluteRefs(value) {
  return JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', `"${SCHEMAS_ID}#/$defs/`));
}

// '/v1/orders/{id}' -> /^\/v1\/orders\/[^/]+$/
function templateRegex(template) {
  const escaped = template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^/]+')}$`);
}

// Array indices in an instance path are folded, so one problem in every record of a
// list is reported once: /data/3/variants/0/price -> /data/[]/variants/[]/price.
function foldIndices(path) {
  return path.replace(/\/\d+(?=\/|$)/g, '/[]');
}

export class ExchangeValidator {
  constructor(yamlText) {
    this.doc = parseYaml(yamlText);
    // strictTypes off: the narrowing schemas (allOf with an envelope) name no type of their own.
    this.ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: SCHEMAS_ID, $defs: absoluteRefs(this.doc.components.schemas) });
    this.compiled = new Map();  // JSON of a schema -> its validate function
    this.paths = Object.keys(this.doc.paths).map((template) => ({ template, regex: templateRegex(template) }));
    const anyPath = this.doc['x-storeapi-any-path'];
    if (!anyPath?.responses) throw new Error('the document has no x-storeapi-any-path.responses');
    this.anyPathResponses = anyPath.responses;
  }

  // Follows a '#/components/...' reference.
  resolve(node) {
    while (node && node.$ref) {
      node = node.$ref.replace(/^#\//, '').split('/').reduce((at, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
    }
    return node;
  }

  validatorFor(schema) {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(absoluteRefs(schema));
      this.compiled.set(key, validate);
    }
    return validate;
  }

  schemaProblems(schema, value, what) {
    const validate = this.validatorFor(schema);
    if (validate(value)) return [];
    return validate.errors.map((e) => `${what}${foldIndices(e.instancePath)} ${e.message}` +
                                      (e.params?.additionalProperty ? ` (${e.params.additionalProperty})` :
                                       e.params?.unevaluatedProperty ? ` (${e.params.unevaluatedProperty})` : ''));
  }

  // The documented operation of a request ({name, template, operation, parameters} with
  // the path item's parameters included), or null. HEAD is GET without a body.
  operationFor(method, path) {
    const found = this.paths.find((p) => p.regex.test(path));
    const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
    const operation = found && this.doc.paths[found.template][verb];
    if (!operation) return null;
    const parameters = [...(this.doc.paths[found.template].parameters ?? []), ...(operation.parameters ?? [])]
      .map((p) => this.resolve(p));
    return { name: `${verb.toUpperCase()} ${found.template}`, template: found.template, operation, parameters };
  }

  // The documented responses for this request: its operation's, or (path or method not
  // documented, OPTIONS) the ones any path can give.
  responsesFor(method, path) {
    const found = this.operationFor(method, path);
    if (found) return { name: found.name, responses: found.operation.responses };
    const template = this.paths.find((p) => p.regex.test(path))?.template;
    return { name: `${method} ${template ?? '(undocumented path)'}`, responses: this.anyPathResponses };
  }

  // A webhook event body (as the dispatcher sends it) against the document's `webhooks`
  // entry of its type.
  checkWebhookPayload(body) {
    let event;
    try {
      event = JSON.parse(body);
    } catch {
      return ['webhook: the body is not JSON'];
    }
    const operation = this.doc.webhooks?.[event.type]?.post;
    if (!operation) return [`webhook: event type ${JSON.stringify(event.type)} is not documented`];
    const schema = this.resolve(operation.requestBody).content['application/json'].schema;
    return this.schemaProblems(schema, event, `webhook ${event.type}: body`);
  }

  check({ method, target, status, headers, body }) {
    const path = target.split('?')[0];
    const { name, responses } = this.responsesFor(method, path);
    const documented = this.resolve(responses[String(status)]);
    if (!documented) return [`${name}: status ${status} is not documented`];
    const problems = [];
    const headerValue = (wanted) => headers.find(([n]) => n.toLowerCase() === wanted.toLowerCase())?.[1];
    for (const [headerName, ref] of Object.entries(documented.headers ?? {})) {
      const header = this.resolve(ref);
      const value = headerValue(headerName);
      if (value === undefined) {
        if (header.required) problems.push(`${name} ${status}: header ${headerName} is missing`);
        continue;
      }
      problems.push(...this.schemaProblems(header.schema, value, `${name} ${status}: header ${headerName}`));
    }
    const media = documented.content?.['application/json'];
    const bodyExpected = media && method !== 'HEAD';
    if (!bodyExpected) {
      if (body.length > 0) problems.push(`${name} ${status}: a body where none is documented`);
      return problems;
    }
    const contentType = headerValue('Content-Type') ?? '';
    if (!/^application\/json\b/i.test(contentType)) {
      problems.push(`${name} ${status}: Content-Type is "${contentType}", not application/json`);
    }
    let parsed;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [...problems, `${name} ${status}: the body is not JSON`];
    }
    problems.push(...this.schemaProblems(media.schema, parsed, `${name} ${status}: body`));
    return problems;
  }
}
