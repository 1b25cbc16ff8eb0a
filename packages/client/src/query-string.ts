/** A query string of the defined values; arrays as one comma list (the form the document declares). */
export function query(params: Record<string, string | number | readonly string[] | Date | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) search.append(name, value.join(','));
    else search.append(name, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** The segment, escaped for a path. */
export const seg = (value: string) => encodeURIComponent(value);

/** A UUID where the runtime has one (Node 22, browsers, edge), else random hex. */
export function newKey(): string {
  const c = globalThis.crypto;
  if (c?.randomUUID) return c.randomUUID();
  return Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
}

/** Every item of a cursor-paged listing, page after page, as long as the caller reads on. */
export async function* items<T>(pages: AsyncGenerator<{ items: T[] }>): AsyncGenerator<T> {
  for await (const page of pages) yield* page.items;
}

/** The pages of a cursor-paged listing, following `nextCursor` until it is null. */
export async function* pages<P extends { nextCursor: string | null }>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
): AsyncGenerator<P> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield page;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/** JSON Lines from a byte stream, one value per line as they arrive; throws when the stream is cut mid-line. */
export async function* jsonLines<T>(body: NonNullable<Response['body']>): AsyncGenerator<T> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const lines = (rest + value).split('\n');
      rest = lines.pop()!;
      for (const line of lines) if (line) yield JSON.parse(line) as T;
    }
    // A complete export ends with a newline: anything left means the connection was cut.
    if (rest) throw new Error('the export was cut short');
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
