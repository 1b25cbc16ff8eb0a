import helmet from 'helmet';

/**
 * Security headers on every response the API serves (helmet). The API itself serves JSON only, so its
 * policy allows nothing to load and nothing to frame it; the operators' board gets its own policy.
 * HSTS without includeSubDomains: a self-hosted install must not pin its operator's other hosts.
 */
export const securityHeaders = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: false },
  xFrameOptions: { action: 'deny' },
});

/**
 * The pages this process serves to a browser, Bull Board's and the API reference at /docs (Swagger
 * UI): their scripts, styles and API calls from this origin, inline styles (both use them), nothing
 * from a third party (the Google Fonts link the board carries is blocked, so operators' browsers do
 * not call out; the system font is used), and never in a frame.
 */
export const pageContentSecurityPolicy = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'", 'data:'],
    'connect-src': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  },
});
