/**
 * The test database's two roles (decision 035): TEST_DATABASE_URL's, which migrates and owns the tables, and the
 * runtime role scripts/test-setup.ts grants, named after the database (roles are the cluster's, and each engineer's
 * test database has its own), as which every test process connects. Trust authentication: no password.
 */
export function testDatabaseUrls(testDatabaseUrl = 'postgresql://postgres@127.0.0.1:5432/leadgen_test'): {
  ownerUrl: string;
  runtimeUrl: string;
} {
  const runtime = new URL(testDatabaseUrl);
  runtime.username = `${decodeURIComponent(runtime.pathname.slice(1))}_runtime`;
  runtime.password = '';
  return { ownerUrl: testDatabaseUrl, runtimeUrl: runtime.toString() };
}

/**
 * Another database on the test server, for a test that needs one of its own: `ownerUrl` to migrate and drop it,
 * `runtimeUrl` (the suite's runtime role, granted there by `migrate(ownerUrl, { runtimeRole })`) for its processes.
 */
export function scratchDatabaseUrls(name: string): { ownerUrl: string; runtimeUrl: string; runtimeRole: { name: string; password: null } } {
  const owner = Object.assign(new URL(process.env.DATABASE_OWNER_URL!), { pathname: `/${name}` });
  const runtime = Object.assign(new URL(process.env.DATABASE_URL!), { pathname: `/${name}` });
  return {
    ownerUrl: owner.toString(),
    runtimeUrl: runtime.toString(),
    runtimeRole: { name: decodeURIComponent(runtime.username), password: null },
  };
}
