// Drives the platform console in Debian's headless Chromium and screenshots every page.
//
// Usage: node drive.mjs BASE_URL TOKEN_FILE SHOTS_DIR SPIKE_DATE
//
// Chromium is started here with the flags this machine needs (headless, no sandbox as root, no
// background networking: the network is closed) and a fresh profile, then playwright-core
// attaches over the DevTools protocol (connectOverCDP): Playwright waits for elements and
// navigations by itself, so the steps read as a person's and do not race the page.
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [base, tokenFile, shots, spike] = process.argv.slice(2);
if (!base || !tokenFile || !shots || !spike) {
  console.error('usage: node drive.mjs BASE_URL TOKEN_FILE SHOTS_DIR SPIKE_DATE');
  process.exit(2);
}
const token = readFileSync(tokenFile, 'utf8').trim();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const profile = mkdtempSync(join(tmpdir(), 'console-chromium-'));
const browserProcess = spawn(process.env.CHROMIUM || 'chromium', [
  '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-quic', `--user-data-dir=${profile}`, '--remote-debugging-port=0',
  '--window-size=1280,800', 'about:blank',
], { stdio: ['ignore', 'ignore', 'pipe'] });
let chromiumLog = '';
browserProcess.stderr.on('data', (d) => { chromiumLog += d; });

const portFile = join(profile, 'DevToolsActivePort');
for (let i = 0; i < 300 && !existsSync(portFile); i++) await sleep(100);
if (!existsSync(portFile)) {
  console.error('chromium did not open its DevTools port:\n' + chromiumLog.slice(-2000));
  browserProcess.kill('SIGKILL');
  process.exit(2);
}
const port = readFileSync(portFile, 'utf8').split('\n')[0];
const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
const context = browser.contexts()[0];
const page = await context.newPage();
await page.setViewportSize({ width: 1280, height: 800 });
page.setDefaultTimeout(15000);
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(String(e)));
page.on('console', (m) => { if (m.type() === 'error') pageErrors.push(m.text()); });
const requested = [];
page.on('request', (r) => requested.push(r.url()));

let passed = 0;
let failed = 0;
function check(condition, what) {
  if (!condition) throw new Error(what);
}
async function step(name, body) {
  const started = Date.now();
  try {
    await body();
    passed += 1;
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${name}: ${e.message.split('\n')[0]}`);
    await page.screenshot({ path: join(shots, `failed-${name.replace(/\W+/g, '-')}.png`) }).catch(() => {});
  }
}
async function shot(name) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}
// The top of the page down to the end of `last` (the pictures the README shows).
async function shotDownTo(name, last) {
  const box = await last.boundingBox();
  const scrolled = await page.evaluate(() => window.scrollY);
  const height = Math.ceil(scrolled + box.y + box.height + 16);
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true, clip: { x: 0, y: 0, width: 1280, height } });
}
const main = page.locator('#main');
const api = async (path, init = {}) => {
  const res = await fetch(base + path, { ...init, headers: { Authorization: `Bearer ${token}`, ...(init.headers || {}) } });
  return res.json();
};

const header = page.locator('header.top');
// Signed out, the header offers "Sign in" and no "Sign out"; signed in, the other way round.
async function headerSays(signedIn) {
  const signIn = await header.getByRole('link', { name: 'Sign in' }).isVisible();
  const signOut = await header.getByRole('button', { name: 'Sign out' }).isVisible();
  check(signIn === !signedIn, `"Sign in" ${signIn ? 'shown' : 'hidden'} while signed ${signedIn ? 'in' : 'out'}`);
  check(signOut === signedIn, `"Sign out" ${signOut ? 'shown' : 'hidden'} while signed ${signedIn ? 'in' : 'out'}`);
}

await step('sign-in form without a token, then sign in', async () => {
  await page.goto(`${base}/console`);
  await page.getByLabel('Token').waitFor();
  await headerSays(false);
  await shot('signin');
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await main.getByRole('heading', { name: 'Objects' }).waitFor();
  await main.getByRole('link', { name: 'NBP', exact: true }).waitFor();
  check(await page.evaluate(() => sessionStorage.getItem('platform.console.token')) === token, 'token kept in sessionStorage');
  check(await page.getByLabel('Token').inputValue() === '', 'token field emptied');
  await headerSays(true);
});

await step('objects: auto-complete and search', async () => {
  await page.getByLabel('Search').pressSequentially('Nati', { delay: 40 });
  await page.waitForFunction(() => document.querySelectorAll('#q-suggestions option').length > 0);
  const suggested = await page.locator('#q-suggestions option').first().getAttribute('value');
  check(suggested === 'NBP', `suggestion ${suggested}`);
  await page.getByLabel('Search').fill('balancing');
  await page.getByRole('button', { name: 'Find' }).click();
  await page.waitForURL(/q=balancing/);
  await main.getByRole('link', { name: 'NBP', exact: true }).waitFor();
  check(await main.locator('tbody tr').count() === 1, 'one object found');
  await shot('objects');
});

await step('object: fields, data, versions, diff', async () => {
  await main.getByRole('link', { name: 'NBP', exact: true }).click();
  await main.getByRole('heading', { name: 'NBP', level: 1 }).waitFor();
  await main.getByRole('heading', { name: 'Versions', exact: true }).waitFor();
  await main.getByRole('button', { name: 'Compare' }).waitFor();
  await page.getByLabel('From version').fill('1');
  await page.getByLabel('To version').fill('3');
  await main.getByRole('button', { name: 'Compare' }).click();
  await main.getByText('Fields that differ between versions 1 and 3').waitFor();
  await shot('object');
});

await step('series: chart, presets, overlay, failed point, CSV', async () => {
  await main.getByRole('link', { name: 'SPOT' }).first().click();
  await main.getByRole('heading', { name: 'NBP:SPOT' }).waitFor();
  const title = await main.locator('figure svg title').first().textContent();
  check(title === 'NBP:SPOT (GBP/therm)', `chart title ${title}`);
  check(await main.locator(`tr.failed th:text-is("${spike}")`).count() === 1, 'the spike is a failed row');
  await main.getByRole('link', { name: '3 months' }).click();
  await page.waitForURL(/preset=3M/);
  await page.getByLabel('Overlay version').selectOption('2');
  await main.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(/compare=2/);
  const caption = await main.locator('figure figcaption').first().textContent();
  check(caption.includes('Overlaid: version 2'), `caption ${caption}`);
  check(caption.includes('failed point'), `caption ${caption}`);
  await shotDownTo('readme-series', main.locator('figure').first());
  const download = page.waitForEvent('download');
  await main.getByRole('link', { name: 'Download CSV' }).click();
  const file = await download;
  const csv = readFileSync(await file.path(), 'utf8');
  check(csv.split('\n')[0].includes('time'), `CSV header ${csv.split('\n')[0]}`);
  await shot('series');
});

await step('series on a phone', async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  // The narrow chart replaces the wide one, its text as large.
  await main.locator('figure .narrow svg').first().waitFor();
  check(!(await main.locator('figure .wide svg').first().isVisible()), 'the wide chart hidden');
  await main.locator('figure').first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shots, 'series-phone.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
});

await step('series in local time: the repeated autumn hour is two rows and two ticks', async () => {
  await page.goto(`${base}/console/series/private/DE%3APOWER`);
  await main.getByRole('heading', { name: 'DE:POWER' }).waitFor();
  await main.getByRole('columnheader', { name: 'Time (Europe/Berlin)' }).waitFor();
  // Newest first: winter time's 02:00 above summer time's, each with its own value.
  const rows = await main.locator('table.obs tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].slice(0, 2).map((c) => c.textContent.trim()).join(' ')));
  const second = rows.indexOf('2024-10-27T02:00:00+01:00 55.4');
  const first = rows.indexOf('2024-10-27T02:00:00+02:00 58.0');
  check(second >= 0 && first === second + 1, `rows ${rows.join('; ')}`);
  const ticks = (await main.locator('figure .wide svg text').allTextContents()).map((t) => t.trim());
  for (const tick of ['10-27 02:00+02:00', '10-27 02:00+01:00']) {
    check(ticks.includes(tick), `tick ${tick} among ${ticks.join(', ')}`);
  }
  await shot('series-local-time');
});

await step('series scaled to EFA blocks: the choice, the table, the URL, the CSV, a refusal', async () => {
  await page.goto(`${base}/console/series/private/GB%3APOWER`);
  await main.getByRole('heading', { name: 'GB:POWER' }).waitFor();
  // As stored, Observed and Block do not apply: the script turns them off.
  check(await page.getByLabel('Observed').isDisabled(), 'Observed off while as stored');
  await page.getByLabel('Scale to').selectOption('EFA');
  check(await page.getByLabel('Observed').isEnabled(), 'Observed on once scaled');
  await main.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(/scale=EFA(&|$)/);
  await main.getByRole('heading', { name: 'Scaled to EFA blocks (EFA), averaged' }).waitFor();
  const rows = await main.locator('table.obs tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].slice(0, 3).map((c) => c.textContent.trim()).join(' ')));
  const want = [
    '2025-03-30T19:00:00+01:00 EFA6 of 2025-03-30 41.5',
    '2025-03-30T15:00:00+01:00 EFA5 of 2025-03-30 33.5',
    '2025-03-30T11:00:00+01:00 EFA4 of 2025-03-30 25.5',
    '2025-03-30T07:00:00+01:00 EFA3 of 2025-03-30 17.5',
    '2025-03-30T03:00:00+01:00 EFA2 of 2025-03-30 9.5',
    '2025-03-29T23:00:00+00:00 EFA1 of 2025-03-30 2.5',
    '2025-03-29T19:00:00+00:00 EFA6 of 2025-03-29 100.0',
  ];
  check(rows.join('; ') === want.join('; '), `rows ${rows.join('; ')}`);
  const caption = await main.locator('figure figcaption').first().textContent();
  check(caption.includes('7 observations'), `caption ${caption}`);
  // EFA6 of the 29th has 1 of its 8 half-hours: said in the caption, marked in the table.
  check(caption.includes('1 partial point'), `caption ${caption}`);
  check(await main.locator('tr.partial').count() === 1, 'one partial row');
  // The time axis' labels as this browser draws them: none overlaps the next.
  const boxes = await main.locator('figure .wide svg').first().evaluate((svg) => {
    const height = Number(svg.getAttribute('height'));
    return [...svg.querySelectorAll('text[text-anchor="middle"][dy="0.76em"]')]
      .filter((t) => Number(t.getAttribute('y')) > height / 2)
      .map((t) => { const b = t.getBBox(); return [b.x, b.x + b.width, t.textContent.trim()]; })
      .sort((a, b) => a[0] - b[0]);
  });
  check(boxes.length >= 2, `axis labels ${JSON.stringify(boxes)}`);
  for (let i = 1; i < boxes.length; i++) {
    check(boxes[i][0] > boxes[i - 1][1], `labels overlap: ${JSON.stringify(boxes)}`);
  }
  await shot('series-efa');
  const download = page.waitForEvent('download');
  await main.getByRole('link', { name: 'Download CSV' }).click();
  const csv = readFileSync(await (await download).path(), 'utf8');
  check(csv.includes('2025-03-29T23:00:00Z,2.5,') && csv.trim().split('\n').length === 8, `CSV ${csv}`);
  // The URL shows the same view when opened again.
  await page.reload();
  await main.getByRole('heading', { name: 'Scaled to EFA blocks (EFA), averaged' }).waitFor();
  check(await page.getByLabel('Scale to').inputValue() === 'EFA', 'the choice kept in the URL');
  // A view the API refuses: its message on the page, the form kept to change it.
  const before = pageErrors.length;
  await page.getByLabel('Scale to').selectOption('HALFHOURLY');
  await main.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(/scale=HALFHOURLY/);
  await main.locator('.notice.refused').getByText('_observed needs a _calendar coarser').waitFor();
  await page.locator('#console-status.error').getByText('INVALID_PARAMETER').waitFor();
  check(await main.locator('table.obs').count() === 0, 'no table under a refusal');
  await shot('series-refused');
  // The browser reports the page's 400 as a failed load; it is the answer asked for here.
  pageErrors.splice(before, pageErrors.length - before,
    ...pageErrors.slice(before).filter((e) => !/status of 400/.test(e)));
});

await step('curve: ondate, overlay, tenor history', async () => {
  await page.goto(`${base}/console/curve/private/TTF%3AFWD`);
  await main.getByRole('heading', { name: 'TTF:FWD' }).waitFor();
  const ondates = await page.getByLabel('Ondate', { exact: true }).locator('option').allTextContents();
  check(ondates.length === 2, `ondates ${ondates}`);
  await page.getByLabel('Overlay ondate').selectOption(ondates[1]);
  await page.getByLabel('Tenor history').selectOption('M01');
  await main.getByRole('button', { name: 'Show' }).click();
  await main.getByRole('heading', { name: 'History of M01' }).waitFor();
  check(await main.locator('figure .wide svg').count() === 2, 'two charts');
  const caption = await main.locator('figure figcaption').first().textContent();
  check(caption.includes(`Overlaid: ondate ${ondates[1]}`), `caption ${caption}`);
  await shot('curve');
});

await step('curve: the monthly toggle', async () => {
  await page.goto(`${base}/console/curve/private/TTF%3AFWD`);
  await main.getByRole('heading', { name: 'TTF:FWD' }).waitFor();
  check(!(await page.getByLabel('Monthly (shaped)').isChecked()), 'the toggle starts off');
  await page.getByLabel('Monthly (shaped)').check();
  await main.getByRole('button', { name: 'Show' }).click();
  await main.getByRole('heading', { name: /^Months on .*, shaped by hours$/ }).waitFor();
  check(await page.getByLabel('Monthly (shaped)').isChecked(), 'the toggle stays on');
  // The sample's year holds twelve months; each row names the contract that fixed it.
  const rows = await main.locator('table.list tbody tr').count();
  check(rows >= 12, `months ${rows}`);
  const from = await main.locator('table.list tbody tr td:nth-child(3)').allTextContents();
  check(from.every((f) => /^\d{4}(M|Q|Y)/.test(f)), `from ${from}`);
  const caption = await main.locator('figure figcaption').first().textContent();
  check(caption.includes('Curve shaped into'), `caption ${caption}`);
  await shot('curve-monthly');
});

await step('validation dashboard', async () => {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Validation' }).click();
  await main.getByRole('heading', { name: 'Validation', level: 1 }).waitFor();
  await main.getByRole('heading', { name: 'Failing records by day' }).waitFor();
  check(await main.locator('figure .wide svg').count() === 1, 'the failures chart');
  await main.getByRole('link', { name: `NBP:SPOT:${spike}` }).first().waitFor();
  await shot('validation');
  await shotDownTo('readme-validation', main.locator('section', { has: page.getByRole('heading', { name: 'Oldest open issues' }) }));
});

await step('validation record: override from the page', async () => {
  await main.getByRole('link', { name: `NBP:SPOT:${spike}` }).first().click();
  await main.getByRole('heading', { name: `Record NBP:SPOT:${spike}` }).waitFor();
  await page.getByLabel('Reason for the override').fill('exchange outage, confirmed by the desk');
  await main.getByRole('button', { name: 'Override', exact: true }).click();
  await page.locator('#console-status').getByText('now overridden').waitFor();
  await main.locator('dl.record .badge', { hasText: 'overridden' }).waitFor();
  const record = await api(`/validation/v1/${encodeURIComponent(`NBP:SPOT:${spike}`)}`);
  check(record.status === 'overridden', `record status ${record.status}`);
  check(record.override.reason === 'exchange outage, confirmed by the desk', 'override reason');
  await page.getByLabel('Comment').fill('checked with the exchange');
  await main.getByRole('button', { name: 'Comment', exact: true }).click();
  await main.getByRole('cell', { name: 'checked with the exchange' }).waitFor();
  await shot('record');
});

await step('automations: list, log, mail outbox', async () => {
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Automations' }).click();
  await main.getByRole('heading', { name: 'Automations', level: 1 }).waitFor();
  await main.getByRole('heading', { name: /^Mail outbox \([1-9]/ }).waitFor();
  await main.getByText('Data failed validation').first().waitFor();
  await shot('automations');
});

await step('keyboard: the skip link comes first and leads to the main area', async () => {
  await page.goto(`${base}/console/validation`);
  await main.getByRole('heading', { name: 'Validation', level: 1 }).waitFor();
  await page.keyboard.press('Tab');
  check(await page.evaluate(() => document.activeElement.textContent) === 'Skip to content', 'skip link focused');
  await page.keyboard.press('Enter');
  check(await page.evaluate(() => document.activeElement.id) === 'main', 'main focused');
});

await step('sign out forgets the token; the token was never in a URL', async () => {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Token').waitFor();
  check(await page.evaluate(() => sessionStorage.getItem('platform.console.token')) === null, 'token removed');
  await headerSays(false);
  const leaked = requested.filter((u) => u.includes(token));
  check(leaked.length === 0, `token in URLs: ${leaked}`);
  check(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`);
});

// An address with Basic credentials (user:token@host), as a bookmark or a link hands it out:
// the console signs in with them and the address shown loses them.
const withCredentials = (name, secret, path) => {
  const url = new URL(base + path);
  url.username = name;
  url.password = secret;
  return url.href;
};

await step('an address with Basic credentials signs in, and drops them from the address', async () => {
  const before = requested.length;
  await page.goto(withCredentials('admin', token, '/console/series/private/NBP%3ASPOT'));
  await main.getByRole('heading', { name: 'NBP:SPOT' }).waitFor();
  await headerSays(true);
  check(await page.locator('#whoami').textContent() === 'Signed in as admin', 'who is signed in');
  const shown = await page.evaluate(() => document.URL);
  check(!shown.includes(token) && !shown.includes('@'), `the address keeps the credentials: ${shown}`);
  // The page opened again at the address without them (the browser's own loads of the
  // address as given carry them; nothing after).
  const clean = `${base}/console/series/private/NBP%3ASPOT`;
  check(requested.slice(before).includes(clean), `no load of ${clean}`);
  const settled = requested.length;
  // Links go on signed in (with Basic credentials, never a token in a URL).
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Validation' }).click();
  await main.getByRole('heading', { name: 'Validation', level: 1 }).waitFor();
  const later = requested.slice(requested.indexOf(clean, before)).filter((u) => u.includes(token));
  check(later.length === 0, `token in later URLs: ${later}`);
  check(requested.length > settled, 'the link was followed with requests');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByLabel('Token').waitFor();
  await headerSays(false);
  check(await page.evaluate(() => sessionStorage.length) === 0, 'sign-out forgets the credentials');
});

await step('an address with a wrong token asks to sign in, saying why', async () => {
  await page.goto(withCredentials('admin', 'pt_0000', '/console/validation'));
  await page.getByLabel('Token').waitFor();
  await page.locator('#signin-error').getByText('NOT_AUTHENTICATED').waitFor();
  await headerSays(false);
  // The browser reports the page's 401 as a failed load; it is the answer asked for here.
  pageErrors.splice(0, pageErrors.length, ...pageErrors.filter((e) => !/status of 401/.test(e)));
  check(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`);
});

await browser.close().catch(() => {});
browserProcess.kill('SIGTERM');
await sleep(300);
if (browserProcess.exitCode === null) browserProcess.kill('SIGKILL');
rmSync(profile, { recursive: true, force: true });
console.log(`test result: ${failed === 0 ? 'ok' : 'FAILED'}. ${passed} passed; ${failed} failed; 0 ignored`);
process.exit(failed === 0 ? 0 : 1);
