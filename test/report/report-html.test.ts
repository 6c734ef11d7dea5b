import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, expect, test } from 'vitest';
import { ROOT, runCli } from '../suite/run-cli.ts';

// report.html as a certifier opens it: in a real browser (the system Chromium, no download), with
// the network closed. The verdict must be the first thing on the page, and a failure's evidence
// must be there behind one click. The screenshots it saves (reports/certificate.png, the top of the
// page, and reports/report.png, the evidence) are copied by hand to docs/, which README shows: a test
// that rewrote a tracked file would leave every checkout dirty.

const CHROMIUM = process.env.DSSC_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let context: BrowserContext | undefined;
let profileDir: string | undefined;
afterAll(async () => {
  await context?.close();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
});

test('report.html in headless Chromium: the verdict, the failure list and its links, a failure\'s evidence after expanding it, no request made', async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: install the system package (apt-get install chromium; .ci/run does) or set DSSC_CHROMIUM`).toBe(true);
  const run = await runCli(['run', '--seed', '20261122', '--num-runs', '3', '--fault', 'no-auth-url', '--implementation', 'DSS Reference (fault no-auth-url) 1.0']);
  expect(run.code, run.stderr).toBe(1);
  const file = join(run.reports, 'report.html');

  profileDir = mkdtempSync(join(tmpdir(), 'dssc-chromium-'));
  context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  const page = await context.newPage();
  await page.goto(pathToFileURL(file).href);

  expect(await page.getByTestId('verdict').innerText()).toMatch(/^NOT CONFORMANT/);
  expect(await page.title()).toMatch(/^NOT CONFORMANT/);
  expect(await page.getByTestId('score').innerText()).toMatch(/^MUST\t\d+\t1\t/m);
  expect(await page.getByTestId('capabilities').innerText()).toContain('crm (salesforce)');
  expect(await page.getByTestId('capabilities').innerText()).toMatch(/Webhook product name\s+DSS-Reference/);

  // The certificate: what was tested, with which kit and catalogue, and the stream's digest.
  const certificate = await page.getByTestId('certificate').innerText();
  expect(certificate).toMatch(/^Implementation\tDSS Reference \(fault no-auth-url\) 1\.0$/m);
  expect(certificate).toMatch(/^Requirement catalogue\tsha256:[0-9a-f]{12}$/m);
  expect(certificate).toMatch(/^Results stream\tresults\.ndjson sha256:[0-9a-f]{64}$/m);
  // The banner counts requirements, as the score does.
  expect(await page.getByTestId('verdict').innerText()).toMatch(/\d+ requirements: 2 failed, \d+ passed/);

  // The page opens with the failures, each a link to its row; the list comes before the certificate.
  const failures = page.getByTestId('failures');
  expect(await failures.locator('li').evaluateAll((items) => items.map((li) => li.getAttribute('data-failure')))).toEqual(['CONN-002', 'CONN-007']);
  const [listTop, certificateTop] = await Promise.all([failures.boundingBox(), page.getByTestId('certificate').boundingBox()]);
  expect(listTop!.y).toBeLessThan(certificateTop!.y);
  mkdirSync(join(ROOT, 'docs'), { recursive: true });
  const certificateBottom = certificateTop!.y + certificateTop!.height;
  await page.screenshot({ path: join(ROOT, 'reports', 'certificate.png'), clip: { x: 0, y: 0, width: 1280, height: Math.ceil(certificateBottom + 16) } });
  await failures.locator('a[href="#req-CONN-007"]').click();
  expect(new URL(page.url()).hash).toBe('#req-CONN-007');
  const target = page.locator('tr[data-requirement="CONN-007"]');
  expect(await target.evaluate((el) => el.matches(':target'))).toBe(true);
  const box = (await target.boundingBox())!;
  // Scrolled to: its top at the viewport's (to a pixel's rounding), not below it.
  expect(Math.abs(box.y)).toBeLessThan(2);
  // Each check shows its duration.
  expect(await page.locator('tr[data-requirement="AUTH-001"] td.time').innerText()).toMatch(/^\d+(\.\d)? (ms|s)/);

  const row = page.locator('tr[data-requirement="CONN-002"]');
  expect(await row.getAttribute('data-status')).toBe('fail');
  const evidence = page.locator('tr[data-evidence-for="CONN-002"] details.evidence').first();
  const exchange = evidence.locator('pre').first();
  expect(await exchange.isVisible()).toBe(false);
  await evidence.locator('summary').click();
  expect(await exchange.isVisible()).toBe(true);
  const text = await exchange.innerText();
  expect(text).toMatch(/^> POST http:\/\/127\.0\.0\.1:\d+\/api\/connections$/m);
  expect(text).toMatch(/^> authorization: Bearer \[REDACTED\]$/m);
  expect(text).toMatch(/^< 20\d /m);
  expect(await evidence.locator('pre.replay').innerText()).toBe('npx dss-conformance run --seed 20261122 --num-runs 3 --fault no-auth-url --only CONN-002 --reports reports/replay-CONN-002');
  // A passing requirement shows no evidence; the receiver's deliveries are listed.
  expect(await page.locator('tr[data-requirement="AUTH-001"]').getAttribute('data-status')).toBe('pass');
  expect(await page.locator('h2', { hasText: 'Webhook deliveries' }).count()).toBe(1);

  // Self-contained: the file itself is the only thing the page loaded.
  expect(requests).toEqual([pathToFileURL(file).href]);

  // The top of the page down to the opened evidence (README shows this as docs/report.png).
  const bottom = await evidence.evaluate((el) => el.getBoundingClientRect().bottom + (globalThis as unknown as { scrollY: number }).scrollY);
  mkdirSync(join(ROOT, 'reports'), { recursive: true });
  await page.screenshot({ path: join(ROOT, 'reports', 'report.png'), fullPage: true, clip: { x: 0, y: 0, width: 1280, height: Math.min(2400, Math.ceil(bottom + 24)) } });
  expect(existsSync(join(ROOT, 'reports', 'report.png'))).toBe(true);
});
