import { parsePostgresUrl } from './postgres-url';
import { VARIABLES } from './variables';

/**
 * Secret values this repository publishes as examples (deploy/kubernetes/overlays/example/*.env.example;
 * published-secrets.test.ts fails when an example file holds one that is not listed here). Anyone can
 * read them, so production refuses to start with one, in a secret variable, in one of a comma-separated
 * list of keys, or as the password of a URL (issue 31, finding 7).
 */
export const PUBLISHED_EXAMPLE_SECRETS: ReadonlySet<string> = new Set([
  'Y2hhbmdlLW1lLWNoYW5nZS1tZS1jaGFuZ2UtbWUtMzI=',
  'change-me-to-12-or-more-characters',
  'change-me',
]);

const SECRET_NAMES = VARIABLES.filter((v) => v.options.secret !== undefined).map((v) => v.name);

// The parts of a value that could be a published secret: the whole, each listed key, a URL's password.
function partsOf(value: string): string[] {
  const parts = [value, ...value.split(',').map((part) => part.trim())];
  try {
    // A multi-host PostgreSQL URL (decision 045) carries its password once, in each host's URL alike.
    const password = new URL(/^postgres(ql)?:/i.test(value) ? parsePostgresUrl(value).hostUrls[0]! : value).password;
    if (password) parts.push(decodeURIComponent(password));
  } catch {
    // Not a URL: the value and its listed parts are all there is.
  }
  return parts;
}

/** One problem per secret variable set to a published example value, naming the variable, never the value. */
export function publishedSecretProblems(given: Readonly<Record<string, string>>): string[] {
  return SECRET_NAMES.filter(
    (name) => given[name] !== undefined && partsOf(given[name]!).some((part) => PUBLISHED_EXAMPLE_SECRETS.has(part)),
  ).map((name) => `${name}: is an example value published in this repository; set one of your own`);
}
