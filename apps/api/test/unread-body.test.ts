import type { AddressInfo, Socket } from 'node:net';
import { Pool } from 'undici';
import { startWorld, type TestWorld } from '../../../test/harness';
import { buildAccount, type TestAccount } from '../../../test/factories';
import { LINGER_MS } from '../src/http/unread-body';

// Issue 31, finding 3 (the bench's "100k-entry uploads" row): an upload refused before its body is read (no key, the
// rate limit spent) still cost the API its whole body, as Node reads an unread body to its end to keep the connection.
// Now such an answer closes the connection after a lingering close: the client gets the answer, the API reads little.
const BODY = JSON.stringify({ emails: Array.from({ length: 100_000 }, (_, i) => `person.${i}@unread-body.example.com`) });

let world: TestWorld;
let pool: Pool;
let account: TestAccount;
const sockets: Socket[] = [];

beforeAll(async () => {
  world = await startWorld({ worker: false });
  world.api.server.on('connection', (socket: Socket) => sockets.push(socket));
  pool = new Pool(`http://127.0.0.1:${(world.api.server.address() as AddressInfo).port}`, { connections: 1 });
  account = await buildAccount(world.db, { credits: 0 });
});
afterAll(async () => {
  await pool?.close();
  await world?.close();
});

const put = async (headers: Record<string, string>, body: string) => {
  const res = await pool.request({
    method: 'PUT',
    path: '/api/v1/suppressions',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.statusCode, connection: res.headers.connection, body: await res.body.text() };
};
const closed = (socket: Socket) => (socket.destroyed ? Promise.resolve() : new Promise((resolve) => socket.once('close', resolve)));

describe('a large body answered before it is read', () => {
  it(
    'when a 3.9 MB upload is refused before its body is read, then the client gets the answer and the API reads a fraction of it',
    async () => {
      expect(BODY.length).toBeGreaterThan(3_500_000);
      sockets.length = 0;
      const answers = [];
      for (let i = 0; i < 3; i += 1) answers.push(await put({}, BODY));
      expect(answers.map((a) => [a.status, a.connection])).toEqual(Array(3).fill([401, 'close']));
      expect(JSON.parse(answers[0]!.body)).toMatchObject({ status: 401 });
      // Each answer closed its connection (lingering at most LINGER_MS), having read far less than the body.
      expect(sockets).toHaveLength(3);
      await Promise.all(sockets.map(closed));
      for (const socket of sockets) expect(socket.bytesRead).toBeLessThan(BODY.length / 4);
    },
    LINGER_MS * 3 + 20_000,
  );

  it('when a small body is answered, then the connection is kept', async () => {
    sockets.length = 0;
    const first = await put(account.auth, JSON.stringify({ emails: ['kept@unread-body.example.com'] }));
    const second = await put(account.auth, JSON.stringify({ emails: ['kept2@unread-body.example.com'] }));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.connection).not.toBe('close');
    expect(sockets).toHaveLength(1);
  });
});
