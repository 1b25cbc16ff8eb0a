import { createHash } from 'node:crypto';
import { OBJECTION_PAGE_PATH } from '@leadgen/domain';

// The page a person reaches from the confirmation mail: plain HTML, no script, no third-party asset, its one
// style allowed by its hash. GET only shows the button; the POST confirms, so a mail scanner that
// prefetches the link changes nothing.

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}' +
  'button{font:inherit;padding:.6rem 1.2rem;border:0;border-radius:.3rem;background:#1d4ed8;color:#fff;cursor:pointer}';

/** The page's own Content-Security-Policy: nothing loads, its style by hash, its form posts here only. */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const page = (title: string, body: string) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;

/** The link is valid: what pressing the button does, and the button. The token is base64url (checked before). */
export const askPage = (token: string, noticeDays: number) =>
  page(
    'Confirm your objection',
    `<p>You asked that your email address no longer be used for direct marketing by the customers of this service, and that the copies we keep be erased.</p>
<p>When you confirm, your address joins our suppression list (no customer receives it again), the stored copies are erased, and every customer who received it in the last ${noticeDays} days is told to stop using it.</p>
<form method="post" action="${OBJECTION_PAGE_PATH}">
<input type="hidden" name="token" value="${token}">
<button type="submit">Confirm my objection</button>
</form>`,
  );

export const confirmedPage = () =>
  page(
    'Your objection is confirmed',
    `<p>Within a minute your address joins our suppression list, its stored copies are erased, and every customer who received it is told to stop using it for direct marketing.</p>
<p>You can close this page.</p>`,
  );

export const invalidLinkPage = () =>
  page(
    'This link cannot be used',
    `<p>The link was already used, has expired, or was copied incompletely. Nothing was changed.</p>
<p>If you still want to object, ask again: a new link is sent (at most one an hour).</p>`,
  );
