import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { dropDatabase } from '../src';
import { scratchDatabaseUrls } from '../../../test/runtime-role';

/** A test file's own databases on the test server, `<prefix>_<random>` (owner URLs), dropped together by `dropAll`. */
export function scratchDatabases(prefix: string): { next(): string; dropAll(): Promise<void> } {
  const urls: string[] = [];
  return {
    next() {
      const { ownerUrl } = scratchDatabaseUrls(`${prefix}_${randomBytes(4).toString('hex')}`);
      urls.push(ownerUrl);
      return ownerUrl;
    },
    async dropAll() {
      for (const url of urls.splice(0)) await dropDatabase(url);
    },
  };
}

/** One statement on a connection of its own (a scratch database the test's pool does not reach). */
export async function queryOnce<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}
