import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/openapi/openapi-document';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- an OpenAPI document walked by key

const MAX_CAPTURE = 1024 * 1024;
const DOWNLOADS: Record<string, string> = { 'text/csv': 'csv', 'application/x-ndjson': 'jsonl' };
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks responses against the served OpenAPI document: a documented path and method must answer a
 * documented status with a documented content type, and a JSON body must match its schema. Paths the
 * document does not describe (operators' board, unknown paths) and undocumented methods (405) are skipped.
 */
export class OpenApiResponses {
  private readonly doc: Doc = openApiDocument();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly routes: Array<{ template: string; pattern: RegExp }>;

  constructor() {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...this.doc, $id: 'doc' });
    // Most literal characters first, so `/result-sets/{id}.csv` is found before `/result-sets/{id}` takes `rs_….csv`.
    const literal = (template: string) => template.replace(/\{[^}]+\}/g, '').length;
    this.routes = Object.keys(this.doc.paths as object)
      .sort((a, b) => literal(b) - literal(a))
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\./g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      }));
  }

  /** What is wrong with this response, or null when the document describes it (or does not cover it). */
  check(method: string, url: string, status: number, contentType: string | undefined, body: string | null): string | null {
    let path: string;
    try {
      path = new URL(url, 'http://x').pathname;
    } catch {
      return null; // a request line no URL parser takes (the HTTP fuzzing sends them) names no documented path
    }
    // A listing asked for a download the older way (`?format=csv`, Accept) answers as its `.csv` / `.jsonl`
    // operation does: check it against that one.
    const download = DOWNLOADS[(contentType ?? '').split(';')[0]!.trim()];
    if (download && this.routes.some((r) => r.pattern.test(`${path}.${download}`))) path = `${path}.${download}`;
    const route = this.routes.find((r) => r.pattern.test(path));
    const operation = route && (this.doc.paths[route.template][method.toLowerCase()] as Doc | undefined);
    if (!route || !operation) return null;
    const documented = (operation.responses as Doc)[String(status)] ? String(status) : 'default';
    let response = (operation.responses as Doc)[documented] as Doc | undefined;
    if (!response) return `${method} ${path}: status ${status} is not documented`;
    const named = response.$ref ? String(response.$ref).split('/').pop()! : null;
    if (named) response = this.doc.components.responses[named] as Doc;
    const type = (contentType ?? '').split(';')[0]!.trim();
    const content = response.content as Doc | undefined;
    if (!content) return body ? `${method} ${path} ${status}: a body where the document has none` : null;
    if (!content[type]) return `${method} ${path} ${status}: content type ${type || '(none)'} is not documented`;
    if (body === null || !type.endsWith('json')) return null;
    const at = named
      ? `doc#/components/responses/${named}/content/${escape(type)}/schema`
      : `doc#/paths/${escape(route.template)}/${method.toLowerCase()}/responses/${documented}/content/${escape(type)}/schema`;
    let validate = this.compiled.get(at);
    if (!validate) {
      validate = this.ajv.compile({ $ref: at });
      this.compiled.set(at, validate);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return `${method} ${path} ${status}: the body is not JSON`;
    }
    return validate(parsed) ? null : `${method} ${path} ${status}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`;
  }

  /** Watches every response of a server (before Express sees the request); violations collect in `problems`. */
  watch(server: Server): string[] {
    const problems: string[] = [];
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const keep = (chunk: unknown) => {
        if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
        const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
        size += buffer.length;
        if (size <= MAX_CAPTURE) chunks.push(buffer);
      };
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      res.write = ((...args: unknown[]) => {
        keep(args[0]);
        return write(...args);
      }) as typeof res.write;
      res.end = ((...args: unknown[]) => {
        keep(args[0]);
        return end(...args);
      }) as typeof res.end;
      res.on('finish', () => {
        const body = size > MAX_CAPTURE ? null : Buffer.concat(chunks).toString('utf8');
        const problem = this.check(
          req.method ?? 'GET',
          req.url ?? '/',
          res.statusCode,
          res.getHeader('content-type') as string | undefined,
          body || null,
        );
        if (problem) problems.push(problem);
      });
    });
    return problems;
  }
}
