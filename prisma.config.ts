import path from 'node:path';
import { defineConfig } from 'prisma/config';

// Used by the Prisma CLI only (generate, and migrate where the schema engine exists).
// The services read DATABASE_URL through @leadgen/config.
export default defineConfig({
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/leadgen' },
});
