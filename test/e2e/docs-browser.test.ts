import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { haveBrowser, launchBrowser } from '../browser';
import { openApiDocument } from '../../apps/api/src/openapi/openapi-document';
import { buildAccount, type TestAccount } from '../factories';
import { startWorld, type TestWorld } from '../harness';
import { startApiProcess, type ApiProcess } from '@leadgen/testing';

/**
 * The API reference at /docs as a consumer opens it, in a real browser (Debian's chromium, driven by
 * playwright-core), served by an API process alone: every operation of the document listed, a call
 * made from the page with an API key, nothing loaded from another origin, nothing blocked by the page's
 * content security policy. Screenshots go to test-artifacts/docs/.
 */
const SHOTS = join(__dirname, '..', '..', 'test-artifacts', 'docs');
(haveBrowser('API reference browser check') ? describe : describe.skip)('/docs in a real browser', () => {
  let world: TestWorld;
  let account: TestAccount;
  let api: ApiProcess;
  let browser: Browser;
  let page: Page;
  const foreign: string[] = [];
  const blocked: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    world = await startWorld({ worker: false });
    account = await buildAccount(world.db, { credits: 100 });
    api = await startApiProcess({
      DATABASE_URL: world.config.database.url,
      REDIS_URL: world.config.redis.url,
      QUEUE_PREFIX: world.config.redis.queuePrefix,
    });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 1000 } })).newPage();
    page.setDefaultTimeout(15_000);
    page.on('request', (request) => {
      if (!request.url().startsWith(api.origin) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await api?.stop();
    await world?.close();
  });

  it('when a consumer opens /docs, then every operation of the served document is listed', async () => {
    await page.goto(`${api.origin}/docs/`, { waitUntil: 'networkidle' });
    await page.locator('.opblock').first().waitFor();
    type Operations = Record<string, Record<string, { operationId?: string }>>;
    const document = openApiDocument() as { paths: Operations; webhooks?: Operations };
    const idsOf = (items: Operations) =>
      Object.values(items).flatMap((item) => Object.values(item).flatMap((op) => (op?.operationId ? [op.operationId] : [])));
    // Swagger UI lists the OpenAPI 3.1 `webhooks` (the events we send) as operations too.
    const operationIds = [...idsOf(document.paths), ...idsOf(document.webhooks ?? {})];
    expect(operationIds.length).toBeGreaterThan(15);
    expect(await page.locator('.opblock').count()).toBe(operationIds.length);
    for (const id of operationIds) expect([id, await page.locator(`[id$="-${id}"]`).count()]).toEqual([id, 1]);
    expect(await page.locator('.info .title').innerText()).toContain('leadgen API');
    await page.screenshot({ path: join(SHOTS, '1-reference.png'), fullPage: true });
  });

  it('when the consumer authorizes with a key and tries GET /api/v1/account, then the page shows the account', async () => {
    await page.locator('.auth-wrapper button.authorize').click();
    await page.locator('.modal-ux input').fill(account.apiKey);
    await page.locator('.modal-ux button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();
    const operation = page.locator('[id$="-getAccount"]');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const response = operation.locator('.live-responses-table .response');
    await response.locator('.response-col_status').filter({ hasText: '200' }).waitFor();
    expect(await response.innerText()).toContain(account.accountId);
    await page.screenshot({ path: join(SHOTS, '2-try-account.png'), fullPage: true });
  });

  it('when all of it was seen, then no request left the process’s origin, nothing was blocked, no script failed', () => {
    expect(foreign).toEqual([]);
    expect(blocked).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
