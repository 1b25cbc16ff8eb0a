import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';

// Every relative link of the README and of docs/ leads somewhere: the file or folder exists and, when it
// names an anchor, the page has that heading (as GitHub makes anchors: github-slugger, numbered repeats).
// Links inside code are not links, as markdown-it parses them (CommonMark).
const ROOT = path.resolve(__dirname, '..');
const markdown = new MarkdownIt({ html: true });
type Token = ReturnType<MarkdownIt['parse']>[number];

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? markdownFiles(path.join(dir, entry.name)) : entry.name.endsWith('.md') ? [path.join(dir, entry.name)] : [],
  );
}

const inline = (tokens: Token[]): Token[] => tokens.flatMap((t) => (t.children ? [t, ...inline(t.children)] : [t]));

/** The anchors GitHub gives the page's headings, and any `<a id>`/`<a name>` it writes itself. */
function anchorsOf(file: string): Set<string> {
  const tokens = markdown.parse(readFileSync(file, 'utf8'), {});
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') {
      const text = inline(tokens[i + 1]!.children ?? [])
        .filter((t) => t.type === 'text' || t.type === 'code_inline')
        .map((t) => t.content)
        .join('');
      anchors.add(slugger.slug(text));
    }
    for (const html of token.type === 'html_block' || token.type === 'html_inline' ? [token.content] : [])
      for (const m of html.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  });
  for (const t of tokens.flatMap((t) => inline(t.children ?? [])))
    if (t.type === 'html_inline') for (const m of t.content.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

function linksOf(file: string): string[] {
  return inline(markdown.parse(readFileSync(file, 'utf8'), {}))
    .filter((t) => t.type === 'link_open' || t.type === 'image')
    .map((t) => t.attrGet(t.type === 'image' ? 'src' : 'href') ?? '');
}

/** What is wrong with a relative link from `file`, or null when it resolves. */
function problemOf(file: string, href: string): string | null {
  const [target = '', anchor] = href.split('#', 2);
  const resolved = target ? path.resolve(path.dirname(file), decodeURI(target)) : file;
  if (!resolved.startsWith(ROOT)) return 'leaves the repository';
  if (!existsSync(resolved)) return 'no such file or folder';
  if (anchor === undefined || anchor === '') return null;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return 'an anchor on something that is not a Markdown page';
  return anchorsOf(resolved).has(decodeURIComponent(anchor)) ? null : `no heading with the anchor #${anchor}`;
}

const pages = [path.join(ROOT, 'README.md'), ...markdownFiles(path.join(ROOT, 'docs')), ...markdownFiles(path.join(ROOT, 'apps/bench'))];

describe('documentation links', () => {
  it.each(pages.map((p) => path.relative(ROOT, p)))('when %s is read, then every relative link and anchor in it resolves', (page) => {
    const file = path.join(ROOT, page);
    const broken = linksOf(file)
      .filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href)) // http:, https:, mailto: are not ours to check offline
      .map((href) => ({ href, problem: problemOf(file, href) }))
      .filter((link) => link.problem !== null);
    expect(broken).toEqual([]);
  });

  it('when a link names a missing page or heading, then the check finds it', () => {
    const readme = path.join(ROOT, 'README.md');
    expect(problemOf(readme, 'docs/no-such-page.md')).toBe('no such file or folder');
    expect(problemOf(readme, 'docs/ARCHITECTURE.md#no-such-heading')).toBe('no heading with the anchor #no-such-heading');
    expect(problemOf(readme, 'docs/ARCHITECTURE.md')).toBeNull();
    expect(problemOf(readme, '#run-it')).toBeNull();
  });

  it('when docs/ARCHITECTURE.md is read, then its folder tree has a line for every workspace', () => {
    const page = readFileSync(path.join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
    const tree = page.slice(page.indexOf('```\napps/'), page.indexOf('```', page.indexOf('```\napps/') + 3));
    const workspaces = ['apps', 'packages'].flatMap((group) =>
      readdirSync(path.join(ROOT, group)).filter((name) => existsSync(path.join(ROOT, group, name, 'package.json'))),
    );
    expect(workspaces.filter((name) => !new RegExp(`[─ ]${name}/ `).test(tree))).toEqual([]);
  });

  it('when the README is read, then it is a front door: at most 200 lines, and ARCHITECTURE linked on its first screen', () => {
    const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n');
    expect(lines.length).toBeLessThanOrEqual(200);
    expect(lines.slice(0, 30).join('\n')).toContain('](docs/ARCHITECTURE.md)');
  });
});
