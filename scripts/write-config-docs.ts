// `npm run docs:config`: writes the README's configuration table from the declaration of every
// variable (packages/config/src/variables.ts). packages/config's test fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withConfigTable } from '@leadgen/config';

const readmePath = path.resolve(__dirname, '../README.md');
const readme = readFileSync(readmePath, 'utf8');
const written = withConfigTable(readme);
if (written === readme) {
  console.log('README.md: the configuration table is up to date');
} else {
  writeFileSync(readmePath, written);
  console.log('README.md: configuration table written');
}
