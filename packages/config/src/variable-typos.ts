import { distance } from 'fastest-levenshtein';
import { CONFIG_VARIABLES } from './variables';

// A misspelt variable is otherwise silently ignored (SYNC_WAIT_MSS=5 leaves the default in force):
// names in the environment that look like ours get one warning line each at start.

// First words of our names that other software uses for its own variables too.
const SHARED_PREFIXES = new Set(['NODE', 'LOG', 'PUBLIC', 'JOB', 'AUTH', 'GOOGLE']);
const OUR_PREFIXES = [...new Set(CONFIG_VARIABLES.filter((n) => n.includes('_')).map((n) => n.split('_')[0]!))].filter(
  (p) => !SHARED_PREFIXES.has(p),
);
const declared = new Set(CONFIG_VARIABLES);

/** The declared name closest to `name`, and how far it is. */
function closest(name: string, among: readonly string[]): { name: string; distance: number } {
  return among.map((candidate) => ({ name: candidate, distance: distance(name, candidate) })).sort((a, b) => a.distance - b.distance)[0]!;
}

/** One warning line per variable set that is not ours but looks like it: a near miss of a name, or one of our prefixes. */
export function unknownVariableWarnings(environment: NodeJS.ProcessEnv = process.env): string[] {
  const warnings: string[] = [];
  for (const name of Object.keys(environment).sort()) {
    if (declared.has(name)) continue;
    const near = closest(name, CONFIG_VARIABLES);
    // Two edits for a long name (a doubled or dropped letter, a swap), one for a short one.
    const misspelt = near.distance <= (name.length >= 8 ? 2 : 1);
    const prefix = OUR_PREFIXES.find((p) => name.startsWith(`${p}_`));
    if (!misspelt && !prefix) continue;
    const intended = misspelt
      ? near.name
      : closest(
          name,
          CONFIG_VARIABLES.filter((n) => n.startsWith(`${prefix}_`)),
        ).name;
    warnings.push(`warning: ${name} is not a leadgen variable and is ignored; did you mean ${intended}? (docs/configuration.md)`);
  }
  return warnings;
}
