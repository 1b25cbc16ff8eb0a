import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { haveBrowser, launchBrowser } from '../browser';
import { generate, startWorld, type TestWorld } from '../harness';
import { buildAccount, type TestAccount } from '../factories';

/**
 * Bull Board as an operator sees it, in a real browser (Debian's chromium, driven by playwright-core):
 * a COMPLETE job under Completed with its terminal object, a FAILED one under Failed with its own,
 * nothing loaded from another origin. Screenshots go to test-artifacts/board/.
 */
const PASSWORD = 'correct horse battery';
const SHOTS = join(__dirname, '..', '..', 'test-artifacts', 'board');
(haveBrowser('operator board browser check') ? describe : describe.skip)('Bull Board in a real browser', () => {
  let world: TestWorld;
  let account: TestAccount;
  let browser: Browser;
  let page: Page;
  let origin: string;
  const foreign: string[] = [];
  const cspViolations: string[] = [];
  let completeId: string;
  let failedId: string;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    world = await startWorld({ env: { OPERATOR_PASSWORD: PASSWORD } });
    account = await buildAccount(world.db, { credits: 10_000 });
    // Pages well over a second apart, as a real upstream's: progress is written at most once a second per job, and
    // each page's leads are one committed slice even when the first page's verification is slow (decision 037).
    const complete = await generate(
      world,
      account,
      { category: 'bakery', state: 'FR', maxResults: 12, keyword: 'sandbox:delay=2000' },
      { Prefer: 'wait=20' },
    );
    const failed = await generate(world, account, { category: 'bakery', state: 'FR', maxResults: 5, keyword: 'sandbox:fail' });
    expect(complete.body.status).toBe('COMPLETE');
    expect(failed.body.status).toBe('FAILED');
    completeId = complete.body.jobId as string;
    failedId = failed.body.jobId as string;
    // The entry ends just after the settlement: wait until both have.
    const queue = world.api.deps.producer.queues().find((q) => q.name === 'google_maps')!;
    for (const [id, state] of [
      [completeId, 'completed'],
      [failedId, 'failed'],
    ] as const) {
      const until = Date.now() + 10_000;
      while ((await queue.getJobState(id)) !== state && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    }
    origin = `http://127.0.0.1:${world.api.port}`;
    browser = await launchBrowser();
    const context = await browser.newContext({
      httpCredentials: { username: 'operator', password: PASSWORD },
      viewport: { width: 1400, height: 1000 },
    });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('request', (request) => {
      if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) foreign.push(request.url());
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await world?.close();
  });

  it('when the operator opens the board, then it lists the three queues, read-only, and the browser stays on this origin', async () => {
    await page.goto(`${origin}/admin/queues`, { waitUntil: 'networkidle' });
    for (const name of ['google_maps', 'linkedin', 'shopify']) await page.getByText(name, { exact: true }).first().waitFor();
    await page.screenshot({ path: join(SHOTS, '1-overview.png'), fullPage: true });
    // google_maps' card: one failed of two jobs
    expect(await page.locator('main').innerText()).toMatch(/google_maps\s+FAILED\s*1\s+2 Jobs/);
  });

  it('when the operator opens Failed, then the FAILED job is there with its terminal object', async () => {
    await page.goto(`${origin}/admin/queues/queue/google_maps?status=failed`, { waitUntil: 'networkidle' });
    const card = page.locator(`text=${failedId}`).first();
    await card.waitFor();
    const body = await page.locator('main').innerText();
    expect(body).toContain('FAILED provider_error');
    expect(body).toContain('"stopReason":"provider_error"');
    expect(body).not.toContain(completeId);
    // read-only: no retry or clean buttons
    expect(await page.getByRole('button', { name: /retry|clean|remove/i }).count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, '2-failed.png'), fullPage: true });
  });

  it('when the operator opens Completed, then the COMPLETE job shows its terminal object, progress and page logs', async () => {
    await page.goto(`${origin}/admin/queues/queue/google_maps?status=completed`, { waitUntil: 'networkidle' });
    await page.locator(`text=${completeId}`).first().waitFor();
    const main = page.locator('main');
    expect(await main.innerText()).not.toContain(failedId);
    await page.screenshot({ path: join(SHOTS, '3-completed.png'), fullPage: true });
    const text = await main.innerText();
    expect(text).toMatch(/"?status"?:\s*"COMPLETE"/);
    expect(text).toMatch(/"?deliveredCount"?:\s*12/);
    await page.getByText('Progress', { exact: true }).first().click();
    await page.getByText('deliveredCount').first().waitFor();
    expect(await main.innerText()).toMatch(/deliveredCount"?:\s*12/);
    await page.screenshot({ path: join(SHOTS, '4-completed-progress.png'), fullPage: true });
    await page.getByText('Logs', { exact: true }).first().click();
    await page.getByText('slice 2: 2 lead(s) committed, 12/12 delivered').waitFor();
    await page.screenshot({ path: join(SHOTS, '5-completed-logs.png'), fullPage: true });
  });

  it('when all pages were seen, then no request left this origin and no content was blocked', () => {
    expect(foreign).toEqual([]);
    expect(cspViolations).toEqual([]);
  });
});
