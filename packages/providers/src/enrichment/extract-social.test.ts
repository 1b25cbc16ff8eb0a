import { extractSocialProfiles, findSocialProfiles } from './extract-social';
import { isParkedPage } from './parked-domain';

const BASE = 'https://www.shop.example/';

describe('extractSocialProfiles', () => {
  it('when a page links to profiles, then they are normalised to https without query, fragment or trailing slash', () => {
    const html = `
      <a href="http://facebook.com/AcmeBakery/?ref=footer#top">fb</a>
      <a href="//instagram.com/acme.bakery/?hl=de">ig</a>
      <a href="https://de.linkedin.com/company/acme-bakery/about/">in</a>`;
    expect(extractSocialProfiles(html, BASE)).toEqual({
      facebook: 'https://www.facebook.com/AcmeBakery',
      instagram: 'https://www.instagram.com/acme.bakery',
      linkedin: 'https://www.linkedin.com/company/acme-bakery',
    });
  });

  it('when links are share buttons, pixels, plugins or posts, then none counts as a profile', () => {
    const html = `
      <a href="https://www.facebook.com/sharer/sharer.php?u=https://shop.example">share</a>
      <a href="https://www.facebook.com/sharer.php?u=x">share</a>
      <a href="https://www.facebook.com/share.php?u=x">share</a>
      <a href="https://facebook.com/dialog/share?app_id=1">share</a>
      <img src="https://www.facebook.com/tr?id=123&ev=PageView">
      <iframe src="https://www.facebook.com/plugins/page.php?href=x"></iframe>
      <a href="https://www.linkedin.com/shareArticle?mini=true&url=x">share</a>
      <a href="https://www.linkedin.com/sharing/share-offsite/?url=x">share</a>
      <a href="https://www.instagram.com/p/CxYz123/">a post</a>
      <a href="https://www.instagram.com/reel/CxYz123/">a reel</a>
      <a href="https://www.instagram.com/explore/tags/cake/">tag</a>
      <script src="https://connect.facebook.net/en_US/sdk.js"></script>`;
    expect(extractSocialProfiles(html, BASE)).toEqual({ facebook: null, instagram: null, linkedin: null });
  });

  it('when a share button comes before the profile link, then the profile is still found', () => {
    const html = '<a href="https://www.facebook.com/sharer.php?u=x">s</a><a href="https://m.facebook.com/acme">p</a>';
    expect(extractSocialProfiles(html, BASE).facebook).toBe('https://www.facebook.com/acme');
  });

  it('when a LinkedIn personal profile or fb.com short link is used, then it is accepted', () => {
    const html = '<a href="https://fb.com/acme">f</a><a href="https://www.linkedin.com/in/jane-doe-123/">l</a>';
    const profiles = extractSocialProfiles(html, BASE);
    expect(profiles.facebook).toBe('https://www.facebook.com/acme');
    expect(profiles.linkedin).toBe('https://www.linkedin.com/in/jane-doe-123');
  });

  it('when LinkedIn links are not company or person pages, then they are ignored', () => {
    const html =
      '<a href="https://www.linkedin.com/feed/">f</a><a href="https://www.linkedin.com/company/">empty</a><a href="https://www.linkedin.com/pulse/x">p</a>';
    expect(extractSocialProfiles(html, BASE).linkedin).toBeNull();
  });

  it('when profiles appear in JSON-LD sameAs, entity-encoded or as bare www. text, then they are found', () => {
    const html = `<script type="application/ld+json">{"sameAs":["https:\\/\\/www.instagram.com\\/acme_cakes"]}</script>
      <a href="https&#58;//www.facebook.com/acme&#46;cakes">f</a> Follow us: www.linkedin.com/company/acme-cakes.`;
    expect(extractSocialProfiles(html, BASE)).toEqual({
      facebook: 'https://www.facebook.com/acme.cakes',
      instagram: 'https://www.instagram.com/acme_cakes',
      linkedin: 'https://www.linkedin.com/company/acme-cakes',
    });
  });

  it('when Facebook uses profile.php or the old /pages/ form, then the identifying part is kept', () => {
    expect(extractSocialProfiles('<a href="https://www.facebook.com/profile.php?id=100064&sk=about">x</a>', BASE).facebook).toBe(
      'https://www.facebook.com/profile.php?id=100064',
    );
    expect(extractSocialProfiles('<a href="https://www.facebook.com/pages/Acme-Bakery/123456/">x</a>', BASE).facebook).toBe(
      'https://www.facebook.com/pages/Acme-Bakery/123456',
    );
  });

  it('when a host only looks like a network, then it is not a profile', () => {
    const html =
      '<a href="https://notfacebook.com/acme">x</a><a href="https://facebook.com.evil.example/acme">y</a><a href="https://developers.facebook.com/docs">z</a>';
    expect(extractSocialProfiles(html, BASE).facebook).toBeNull();
  });
});

describe('wrapped profile links', () => {
  it("when a profile is behind Facebook's link shim, Google's redirect or in a Page Plugin, then the profile itself is found with how it was read", () => {
    const html = `<a href="https://l.facebook.com/l.php?u=${encodeURIComponent('https://www.instagram.com/rosa.cafe/?hl=en')}&amp;h=AT0">IG</a>
      <a href="https://www.google.com/url?q=${encodeURIComponent('https://www.linkedin.com/company/rosa-cafe/')}&amp;sa=D">in</a>
      <iframe src="https://www.facebook.com/plugins/page.php?href=${encodeURIComponent('https://www.facebook.com/RosaCafe')}&amp;tabs=timeline"></iframe>`;
    expect(findSocialProfiles(html, 'https://rosa.example/')).toEqual({
      facebook: { url: 'https://www.facebook.com/RosaCafe', reason: 'Page Plugin' },
      instagram: { url: 'https://www.instagram.com/rosa.cafe', reason: 'unwrapped redirect link' },
      linkedin: { url: 'https://www.linkedin.com/company/rosa-cafe', reason: 'unwrapped redirect link' },
    });
  });

  it('when only share links and app-share parameters are present, then shares are not profiles and parameters are dropped', () => {
    const html = `<a href="https://www.facebook.com/sharer/sharer.php?u=https%3A%2F%2Frosa.example">Share</a>
      <a href="https://www.linkedin.com/sharing/share-offsite/?url=https%3A%2F%2Frosa.example">Share</a>
      <a href="https://www.instagram.com/rosa.cafe?igsh=MWQ1ZGUx&amp;utm_source=qr">IG</a>`;
    expect(extractSocialProfiles(html, 'https://rosa.example/')).toEqual({
      facebook: null,
      instagram: 'https://www.instagram.com/rosa.cafe',
      linkedin: null,
    });
  });
});

describe('isParkedPage', () => {
  it('when a page offers its own domain for sale or says it expired, then it is parked', () => {
    expect(isParkedPage('rosa-cafe.de\nThis domain may be for sale! Buy now', 'rosa-cafe.de')).toBe(true);
    expect(isParkedPage('Diese Domain ist abgelaufen. Jetzt reservieren.', 'www.rosa-cafe.de')).toBe(true);
    expect(isParkedPage('This Web page is parked for FREE, courtesy of GoDaddy.com.', 'rosa.example')).toBe(true);
  });

  it("when a business's own page sells things or mentions domains, then it is not parked", () => {
    expect(isParkedPage('Café Rosa. Our old espresso machine is for sale, make us an offer!', 'rosa-cafe.de')).toBe(false);
    expect(isParkedPage('We build websites and register domains for our clients.', 'webstudio.example')).toBe(false);
  });
});
