import type { FieldProblem } from '@leadgen/domain';

/**
 * What a JSON body may hold that validation would otherwise let through:
 * - `__proto__`, `constructor`, `prototype` keys at any depth: JSON.parse keeps them as own keys,
 *   Joi drops `__proto__` silently, and anything that merges the body would walk into prototypes;
 * - NUL and unpaired UTF-16 surrogates in any string or key: PostgreSQL refuses both in text and
 *   jsonb, so they would fail late, as a 500, instead of here as a 400.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
// With the u flag a well-formed pair is one code point; only a lone half is of category Cs.
// eslint-disable-next-line no-control-regex -- NUL is what this looks for
const UNSTORABLE = /\u0000|\p{Cs}/u;

/** RFC 6901 JSON Pointer in RFC 9457's fragment form: "#/linkedinParams/title/0", "#" for the whole. */
export function jsonPointer(path: ReadonlyArray<string | number>): string {
  return path.length === 0 ? '#' : `#/${path.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}

// What is reported must itself be storable and printable: the bad characters are shown escaped.
const escapeUnstorable = (text: string) =>
  // eslint-disable-next-line no-control-regex -- NUL is what this looks for
  text.replace(/\u0000|\p{Cs}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

function printable(path: ReadonlyArray<string | number>): string {
  return jsonPointer(path.map((p) => (typeof p === 'string' ? escapeUnstorable(p) : p)));
}

// Named as Joi names a field in its messages: linkedinParams.title[1].
function label(path: ReadonlyArray<string | number>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${escapeUnstorable(p)}`)).join('') || 'the body';
}

interface Step {
  value: unknown;
  key: string | number | null;
  parent: Step | null;
}

// Paths are linked steps, built only for a problem: copying them per node would be quadratic in depth.
function pathOf(step: Step): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Step | null = step; at && at.key !== null; at = at.parent) path.push(at.key);
  return path.reverse();
}

export function unsafeContentProblems(body: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const report = (step: Step, detail: (name: string) => string) => {
    const path = pathOf(step);
    problems.push({ pointer: printable(path), detail: detail(label(path)) });
  };
  // Iterative: a 16 KiB body can nest thousands of levels deep.
  const pending: Step[] = [{ value: body, key: null, parent: null }];
  while (pending.length > 0 && problems.length < 50) {
    const step = pending.pop()!;
    const { value } = step;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) report(step, (name) => `${name} must not contain NUL characters or unpaired UTF-16 surrogates`);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push({ value: item, key: index, parent: step }));
    } else if (typeof value === 'object' && value !== null) {
      for (const key of Object.keys(value)) {
        const child: Step = { value: (value as Record<string, unknown>)[key], key, parent: step };
        if (FORBIDDEN_KEYS.has(key)) report(child, () => `"${key}" is not an accepted field name`);
        else if (UNSTORABLE.test(key))
          report(child, (name) => `${name}: field names must not contain NUL characters or unpaired UTF-16 surrogates`);
        else pending.push(child);
      }
    }
  }
  return problems.sort((a, b) => (a.pointer < b.pointer ? -1 : a.pointer > b.pointer ? 1 : 0));
}
