// Names whose values are secrets wherever they appear in log metadata.
const SECRET_KEY = /authorization|api[-_]?key|apikey|password|secret|token|cookie/i;
// Our own API keys and bearer tokens, should one slip into a message.
const SECRET_TEXT = /\b(lg_live_[0-9a-z]+|Bearer\s+[A-Za-z0-9._~+/=-]+)/g;

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(SECRET_TEXT, '[redacted]');
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: redact(value.message), stack: value.stack };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = SECRET_KEY.test(key) ? '[redacted]' : redact(v, depth + 1);
  return out;
}
