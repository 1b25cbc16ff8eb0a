import { evaluateCorpus } from '@leadgen/testing';
import { UNSEEN_SITES } from '@leadgen/testing';
import { scriptStrings } from '../src/enrichment/script-strings';

describe('the website enricher on the unseen-sites corpus (40+ sites by builder and language)', () => {
  it('when every site is enriched, then recall is at least 95 %, and no junk address or wrong profile comes out', async () => {
    expect(UNSEEN_SITES.length).toBeGreaterThanOrEqual(40);
    const score = await evaluateCorpus(UNSEEN_SITES);
    const problems = score.perSite.filter((s) => s.junk.length > 0 || s.wrongProfiles.length > 0);
    expect(problems).toEqual([]);
    expect(score.recall).toBeGreaterThanOrEqual(0.95);
  });
});

describe('scriptStrings (constant folding, nothing executed)', () => {
  it('when a script builds an address by concatenation, atob, fromCharCode, reverse or a template, then the string is found', () => {
    expect(scriptStrings(`var u='info', d='a.de'; el.innerHTML = u + '@' + d;`)).toContain('info@a.de');
    expect(scriptStrings(`x.href = 'mailto:' + atob('${Buffer.from('hi@b.com').toString('base64')}');`)).toContain('mailto:hi@b.com');
    expect(scriptStrings(`t = String.fromCharCode(${[...'c@d.io'].map((c) => c.charCodeAt(0)).join(',')});`)).toContain('c@d.io');
    expect(scriptStrings(`e = 'moc.e@f'.split('').reverse().join('');`)).toContain('f@e.com');
    expect(scriptStrings('const h = `g.${"nl"}`; s = `x@${h}`;')).toContain('x@g.nl');
  });

  it('when the script needs the page or loops to build it, or is not JavaScript, then nothing is made up and nothing runs', () => {
    expect(
      scriptStrings(`let s=''; for (const c of [105]) s += String.fromCharCode(c); el.textContent = s + '@' + location.host;`),
    ).toEqual([]);
    expect(scriptStrings(`globalThis.ran = true; 'a' + '@' + 'b.de'`)).toEqual(['a@b.de']);
    expect((globalThis as { ran?: boolean }).ran).toBeUndefined();
    expect(scriptStrings('<not javascript @ all')).toEqual([]);
  });
});
