// Serves the example shop on 127.0.0.1 (PORT, default 4173). EXAMPLE_VARIANT=changed serves the
// planted changes.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { render } from './site/pages.mjs';

const variant = process.env.EXAMPLE_VARIANT ?? 'original';
const css = readFileSync(new URL('./site/styles.css', import.meta.url));
const port = Number(process.env.PORT ?? 4173);

createServer((req, res) => {
  const path = new URL(req.url, 'http://localhost').pathname;
  if (path === '/styles.css') return res.writeHead(200, { 'content-type': 'text/css' }).end(css);
  const html = render(path, variant);
  if (html === undefined) return res.writeHead(404).end('not found');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
}).listen(port, '127.0.0.1', () => console.log(`example shop (${variant}) on http://127.0.0.1:${port}`));
