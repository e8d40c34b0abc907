// What both option specs share: the run's variant, the folder of case roots, and `open`.
import path from 'node:path';

export const variant = process.env.SCENARIO_VARIANT ?? 'base';
export const base = process.env.OPTIONS_BASE;
if (!base) throw new Error('OPTIONS_BASE must name the folder holding one project root per case');

/** Serves `html` at a loopback URL no request leaves the browser for, with this test's root. */
export async function open(page, name, html) {
  process.env.SIGHTLINE_ROOT = path.join(base, name);
  await page.route('http://127.0.0.1:9/**', (route) => route.fulfill({ contentType: 'text/html', body: html }));
  await page.goto(`http://127.0.0.1:9/${name}`);
}
