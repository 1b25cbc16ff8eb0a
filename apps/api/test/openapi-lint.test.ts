import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openApiDocument } from '../src/openapi/openapi-document';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document walked by key

const ROOT = path.resolve(__dirname, '../../..');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const doc = openApiDocument() as Doc;

/** Every operation of the document (paths and webhooks), named `METHOD path`. */
function operations(): Array<[string, Doc]> {
  return [...Object.entries(doc.paths as Doc), ...Object.entries(doc.webhooks as Doc)].flatMap(([where, item]) =>
    METHODS.filter((m) => item[m]).map((m): [string, Doc] => [`${m.toUpperCase()} ${where}`, item[m] as Doc]),
  );
}

/** `at` of every object property without a description, walking schemas (not following $refs). */
function undescribed(schema: unknown, at: string, out: string[] = []): string[] {
  if (Array.isArray(schema)) schema.forEach((s, i) => undescribed(s, `${at}/${i}`, out));
  if (!schema || typeof schema !== 'object') return out;
  const node = schema as Doc;
  for (const [name, property] of Object.entries((node.properties ?? {}) as Doc)) {
    if (!property.description && !property.$ref) out.push(`${at}.${name}`);
    undescribed(property, `${at}.${name}`, out);
  }
  for (const key of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties'])
    if (node[key]) undescribed(node[key], `${at}/${key}`, out);
  return out;
}

describe('the OpenAPI document, as tools read it', () => {
  it('when linted by redocly with its recommended rules, then there is no error and no warning', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const cli = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
      // No telemetry, no update check: tests reach nothing but loopback.
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true', NO_COLOR: '1' };
      const run = await promisify(execFile)(process.execPath, [cli, 'lint', file, '--extends=recommended', '--format=json'], {
        env,
        cwd: dir,
        maxBuffer: 16 << 20,
      }).catch((error: { stdout: string; stderr: string }) => error);
      const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as {
        totals: Record<string, number>;
        problems: Array<{ ruleId: string; message: string }>;
      };
      expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('when read for a reference, then every operation has an id, a summary, a description and a tag, and every property a description', () => {
    const missing: string[] = [];
    for (const [name, operation] of operations()) {
      for (const key of ['operationId', 'summary', 'description']) if (!operation[key]) missing.push(`${name}: ${key}`);
      if (!operation.tags?.length) missing.push(`${name}: tags`);
      for (const [status, response] of Object.entries(operation.responses as Doc)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as Doc))
          missing.push(...undescribed(media.schema, `${name} ${status} ${type}`));
      }
      for (const [type, media] of Object.entries((operation.requestBody?.content ?? {}) as Doc))
        missing.push(...undescribed(media.schema, `${name} body ${type}`));
      for (const parameter of (operation.parameters ?? []) as Doc[])
        if (!parameter.$ref && !parameter.description) missing.push(`${name}: parameter ${parameter.name}`);
    }
    for (const [name, schema] of Object.entries(doc.components.schemas as Doc)) missing.push(...undescribed(schema, name));
    expect(missing).toEqual([]);
  });

  it('when the tags are read, then each is described and the licence is named', () => {
    expect((doc.tags as Doc[]).filter((t) => !t.description)).toEqual([]);
    expect(doc.info.license.name).toBeTruthy();
  });
});
