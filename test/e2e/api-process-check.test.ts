import { startApiProcess } from '@leadgen/testing';

// Tests that talk to an API process over the network (startApiProcess) are held to the OpenAPI
// document by the in-process harness's checker, preloaded into that process. Here, a stand-in whose
// answer leaves the document proves that such an answer fails the test that received it.
describe('the OpenAPI check of an API process', () => {
  it('when the process answers outside the document, then stopping it fails naming the answer', async () => {
    const api = await startApiProcess({}, 'test/e2e/fixtures/undocumented-api.ts');
    const account = await fetch(`${api.origin}/api/v1/account`);
    expect(await account.json()).toEqual({ accountId: 'acc_1' });
    await expect(api.stop()).rejects.toThrow(/GET \/api\/v1\/account 200: .*must have required property 'name'/);
  });

  it('when the process answers only inside the document, then stopping it reports how many requests were checked', async () => {
    const api = await startApiProcess({}, 'test/e2e/fixtures/undocumented-api.ts');
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${api.origin}/readyz`)).status).toBe(200);
    expect((await api.stop()).checked).toBeGreaterThanOrEqual(4); // the readiness poll's, and these three
  });
});
