import { allowAll, disallowAll, parseRobots } from './robots';

const UA = 'LeadgenBot/1.0 (+https://github.com/leadgen; enrichment of business contact pages)';

describe('parseRobots', () => {
  it('when robots.txt disallows a path for everyone, then that path and below are disallowed and the rest allowed', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /contact\n');
    expect(robots.isAllowed('/contact', UA)).toBe(false);
    expect(robots.isAllowed('/contact/form?x=1', UA)).toBe(false);
    expect(robots.isAllowed('/contacts', UA)).toBe(false);
    expect(robots.isAllowed('/', UA)).toBe(true);
    expect(robots.isAllowed('/about', UA)).toBe(true);
  });

  it('when a group names our token, then only that group applies and `*` is ignored', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /\n\nUser-agent: LeadgenBot\nDisallow: /private\n');
    expect(robots.isAllowed('/contact', UA)).toBe(true);
    expect(robots.isAllowed('/private/x', UA)).toBe(false);
    expect(robots.isAllowed('/contact', 'OtherBot/2.0')).toBe(false);
  });

  it('when the agent token differs in case or carries a version, then it still matches our group', () => {
    const robots = parseRobots('User-agent: leadgenbot/1.0\nDisallow: /\n');
    expect(robots.isAllowed('/', 'LeadgenBot')).toBe(false);
    expect(robots.isAllowed('/', UA)).toBe(false);
  });

  it('when only another bot is restricted, then we are allowed everywhere', () => {
    const robots = parseRobots('User-agent: BadBot\nDisallow: /\n');
    expect(robots.isAllowed('/anything', UA)).toBe(true);
  });

  it('when Allow and Disallow both match, then the longest pattern wins and a tie goes to Allow', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /shop\nAllow: /shop/contact\nAllow: /tie\nDisallow: /tie\n');
    expect(robots.isAllowed('/shop/cart', UA)).toBe(false);
    expect(robots.isAllowed('/shop/contact', UA)).toBe(true);
    expect(robots.isAllowed('/tie', UA)).toBe(true);
  });

  it('when patterns use `*` and `$`, then they act as wildcard and end anchor', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /*.php$\nDisallow: /*/print\nAllow: /$\nDisallow: /\n');
    expect(robots.isAllowed('/', UA)).toBe(true);
    expect(robots.isAllowed('/index.php', UA)).toBe(false);
    expect(robots.isAllowed('/index.php?x=1', UA)).toBe(false);
    expect(robots.isAllowed('/a/print', UA)).toBe(false);
  });

  it('when `$` ends a pattern, then only the exact path is matched', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /contact$\n');
    expect(robots.isAllowed('/contact', UA)).toBe(false);
    expect(robots.isAllowed('/contact/', UA)).toBe(true);
  });

  it('when several user-agent lines precede rules, then the rules apply to all of them, and groups for one agent are merged', () => {
    const robots = parseRobots('User-agent: a\nUser-agent: LeadgenBot\nDisallow: /one\n\nUser-agent: LeadgenBot\nDisallow: /two\n');
    expect(robots.isAllowed('/one', UA)).toBe(false);
    expect(robots.isAllowed('/two', UA)).toBe(false);
    expect(robots.isAllowed('/three', UA)).toBe(true);
  });

  it('when the file has comments, CRLF, a BOM, blank Disallow, unknown keys and rules outside any group, then those are handled', () => {
    const robots = parseRobots(
      '\uFEFFDisallow: /orphan\r\n# comment\r\nUser-agent: * # everyone\r\nCrawl-delay: 10\r\nDisallow:\r\nDisallow: /secret # why\r\nSitemap: https://x/sitemap.xml\r\n',
    );
    expect(robots.isAllowed('/orphan', UA)).toBe(true);
    expect(robots.isAllowed('/secret', UA)).toBe(false);
    expect(robots.isAllowed('/', UA)).toBe(true);
  });

  it('when paths differ only in percent-encoding, then they match the same rule', () => {
    const robots = parseRobots('User-agent: *\nDisallow: /%7Ejoe/\nDisallow: /über\n');
    expect(robots.isAllowed('/~joe/contact', UA)).toBe(false);
    expect(robots.isAllowed('/%C3%BCber-uns', UA)).toBe(false);
  });

  it('when a hostile pattern is full of wildcards, then matching stays fast', () => {
    const robots = parseRobots(`User-agent: *\nDisallow: /${'*a'.repeat(40)}b\n`);
    const started = Date.now();
    expect(robots.isAllowed(`/${'a'.repeat(5_000)}`, UA)).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('when the text is empty or not robots.txt at all, then everything is allowed', () => {
    expect(parseRobots('').isAllowed('/contact', UA)).toBe(true);
    expect(parseRobots('<html><body>Not found</body></html>').isAllowed('/contact', UA)).toBe(true);
  });

  it('when robots.txt is unavailable (4xx) or unreachable (5xx), then the fallbacks allow or disallow everything but robots.txt itself', () => {
    expect(allowAll.isAllowed('/contact', UA)).toBe(true);
    expect(disallowAll.isAllowed('/', UA)).toBe(false);
    expect(disallowAll.isAllowed('/robots.txt', UA)).toBe(true);
  });
});
