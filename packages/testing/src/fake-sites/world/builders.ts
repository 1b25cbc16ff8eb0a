// Builders beyond site-builders.ts: Jimdo (Creator/Dolphin), an Astro site (islands), a WordPress block
// theme (Astra with Gutenberg blocks) and a server-rendered Next.js site, each with the markup they emit
// around a page's content.
import { wrap as wrapClassic, type Builder as ClassicBuilder } from '../site-builders';

export type WorldBuilder = ClassicBuilder | 'jimdo' | 'astro' | 'astra' | 'next';

export const WORLD_BUILDERS: WorldBuilder[] = [
  'elementor',
  'wix',
  'squarespace',
  'shopify',
  'webflow',
  'jimdo',
  'astro',
  'astra',
  'divi',
  'next',
  'onepage',
  'plain',
];

/** The page as served; `footer` goes where the builder puts its footer. */
export function wrapWorld(builder: WorldBuilder, lang: string, title: string, body: string, footer: string): string {
  switch (builder) {
    case 'jimdo':
      return `<!DOCTYPE html><html lang="${lang}"><head><meta charset="utf-8"><title>${title}</title>
<link rel="stylesheet" href="https://assets.jimstatic.com/web.css.2f7a9c.css">
<script>var jimdoData = {"isTestserver":false,"cmsId":"s1a2b3c4d5e6f7","websiteId":"7b1e","isCheckoutAvailable":false,"cookieLaw":{"enabled":true}};</script>
</head><body class="jtpl-main"><div class="jtpl-navigation"></div><div id="content_area" class="jtpl-content">${body}</div>
<div class="jtpl-footer"><div id="contentfooter">${footer}<div class="leftrow"><a href="/about/">Impressum</a> | <a href="/j/privacy">Datenschutz</a> | <a href="https://www.jimdo.com" rel="nofollow">Jimdo</a></div></div></div></body></html>`;
    case 'astro':
      return `<!DOCTYPE html><html lang="${lang}"><head><meta charset="utf-8"><meta name="generator" content="Astro v4.15.4"><title>${title}</title>
<link rel="stylesheet" href="/_astro/index.Bq3c9a1f.css"><script type="module" src="/_astro/hoisted.CxPzD1yO.js"></script>
<style>astro-island,astro-slot,astro-static-slot{display:contents}</style></head>
<body><header class="site-header"></header><main>${body}</main><footer class="site-footer">${footer}</footer></body></html>`;
    case 'astra':
      return `<!DOCTYPE html><html lang="${lang}"><head><meta charset="UTF-8"><title>${title}</title>
<link rel="stylesheet" id="astra-theme-css-css" href="/wp-content/themes/astra/assets/css/minified/main.min.css?ver=4.6.4" media="all">
<link rel="stylesheet" id="wp-block-library-css" href="/wp-includes/css/dist/block-library/style.min.css?ver=6.4.3" media="all">
<script id="astra-theme-js-js-extra">var astra = {"break_point":"921","isRtl":"","is_scroll_to_id":"1","ajax_url":"\\/wp-admin\\/admin-ajax.php"};</script>
</head><body class="home page-template-default ast-single-post ast-page-builder-template"><div id="page" class="hfeed site"><div id="content" class="site-content"><div class="ast-container"><div class="entry-content clear">${body}</div></div></div>
<footer class="site-footer" id="colophon"><div class="site-below-footer-wrap"><div class="ast-footer-copyright">${footer}<p>Powered by <a href="https://wpastra.com/">Astra WordPress Theme</a></p></div></div></footer></div>
<script src="/wp-content/themes/astra/assets/js/minified/frontend.min.js?ver=4.6.4" id="astra-theme-js-js"></script></body></html>`;
    case 'next':
      return `<!DOCTYPE html><html lang="${lang}"><head><meta charSet="utf-8"/><title>${title}</title><link rel="preload" href="/_next/static/css/7e0a.css" as="style"/></head>
<body><div id="__next"><div class="layout">${body}<footer>${footer}</footer></div></div>
<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"title":${JSON.stringify(title)}}},"page":"/","query":{},"buildId":"kq2W9","nextExport":true,"isFallback":false,"gsp":true,"scriptLoader":[]}</script>
<script src="/_next/static/chunks/main-3a1f.js" defer=""></script></body></html>`;
    default: {
      // the classic wrappers put their own footer after the body: the site's footer goes at the end of the body
      return wrapClassic(builder, lang, title, `${body}<div class="site-footer-content">${footer}</div>`);
    }
  }
}
