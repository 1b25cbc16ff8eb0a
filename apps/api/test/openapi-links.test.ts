import { startWorld, type TestWorld } from '../../../test/harness';

// Every link of the served OpenAPI document resolves (issue 31, finding 12; decision 036): the document named
// docs/*.md files 66 times that the service did not serve.

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

describe('the served OpenAPI document links only to what is served', () => {
  let world: TestWorld;
  beforeAll(async () => {
    world = await startWorld({ worker: false });
  });
  afterAll(() => world.close());

  it('when every docs reference of the served document is followed, then each is a link that answers 200 Markdown, anchors included', async () => {
    const served = await world.http.get('/api/v1/openapi.json');
    const text = JSON.stringify(served.body);
    // No mention of a docs file outside a link.
    const bare = [...text.matchAll(/(?<!\[|\]\(\/)docs\/[\w/-]+\.md/g)].map((m) => m[0]);
    expect(bare).toEqual([]);
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    expect(targets.length).toBeGreaterThanOrEqual(66);
    for (const target of new Set(targets)) {
      if (/^https:\/\//.test(target)) continue; // another site's page, absolute
      expect(target).toMatch(/^\/docs\/[\w/-]+\.md(#[\w-]+)?$/);
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const answer = await world.http.get(file);
      expect([target, answer.status]).toEqual([target, 200]);
      expect(answer.get('Content-Type')).toMatch(/^text\/markdown/);
      if (anchor) {
        const headings = [...(answer.text ?? '').matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!));
        expect([target, headings.includes(anchor)]).toEqual([target, true]);
      }
    }
  });

  it('when a path outside the served docs is asked for, then 404: no traversal, no other file', async () => {
    for (const path of [
      '/docs/../package.json',
      '/docs/%2e%2e/package.json',
      '/docs/decisions/../../README.md',
      '/docs/nothing.md',
      '/docs/api.md.bak',
    ]) {
      const answer = await world.http.get(path);
      expect([path, answer.status === 200 && /^text\/markdown/.test(answer.get('Content-Type') ?? '')]).toEqual([path, false]);
    }
    const decision = await world.http.get('/docs/decisions/029-route-table.md');
    expect(decision.status).toBe(200);
    expect(decision.text).toContain('route table');
  });
});
