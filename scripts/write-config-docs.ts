// `npm run docs:config`: writes docs/configuration.md's table from the declaration of every variable
// (packages/config/src/variables.ts). packages/config's test fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withConfigTable } from '@leadgen/config';

const pagePath = path.resolve(__dirname, '../docs/configuration.md');
const page = readFileSync(pagePath, 'utf8');
const written = withConfigTable(page);
if (written === page) {
  console.log('docs/configuration.md: the configuration table is up to date');
} else {
  writeFileSync(pagePath, written);
  console.log('docs/configuration.md: configuration table written');
}
