// Scenario pages for tests/live.test.mjs, served from 127.0.0.1 on a random port. Each bug page
// plants known problems on elements with ids, so a test can check that the tools name them; the
// clean page must yield no issue at all. Under /debian/<name>/ the server also serves whole
// documentation sites Debian ships as packages (DEBIAN_DOCS): real pages no one here wrote.
import { existsSync, readFile, realpathSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

/**
 * Documentation sites from Debian packages (scripts/setup.sh installs them), by the name they are
 * served under: the package and the folder its HTML is installed in.
 */
export const DEBIAN_DOCS = {
  python3: { package: 'python3-doc', dir: '/usr/share/doc/python3/html' },
  'debian-reference': { package: 'debian-reference-en', dir: '/usr/share/debian-reference' },
};
const TYPES = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.png': 'image/png', '.svg': 'image/svg+xml', '.gif': 'image/gif', '.jpg': 'image/jpeg' };

// A 2×2 opaque PNG, so the clean page has an image that loads.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGNgYGD4z8DAwMDAwMDAAAANAAEBAAEbXpcAAAAASUVORK5CYII=',
  'base64',
);

const page = (title, body, head = '') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>body { margin: 0; font: 16px/1.5 sans-serif; color: #111; background: #fff; } main { padding: 16px; }</style>
${head}</head><body>${body}</body></html>`;

export const pages = {
  '/clean': page(
    'Clean page',
    `<main>
  <h1 id="title">Spring collection</h1>
  <p id="intro" style="position:relative">Light jackets and linen shirts for the warmer days ahead.<span class="sr-only"
    style="position:absolute;left:0;top:0;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap">(new season, twelve pieces)</span></p>
  <img id="logo" src="/logo.png" alt="Shop logo" width="64" height="64">
  <ul id="list"><li>Jackets</li><li>Shirts</li><li>Shoes</li></ul>
  <p><a id="more" href="/clean" style="display:inline-block;padding:12px 8px">See everything</a></p>
  <button id="buy" style="min-width:48px;min-height:48px;padding:8px 16px;color:#fff;background:#1a4d8f;border:0">Buy now</button>
  <button id="soldout" disabled style="min-width:48px;min-height:48px">Sold out</button>
  <div id="banner" style="position:relative;width:300px">
    <img id="photo" src="/logo.png" alt="" width="300" height="80" style="display:block">
    <h2 id="welcome" style="position:absolute;top:16px;left:16px;margin:0;color:#fff">Welcome</h2>
  </div>
</main>`,
  ),
  // The clean page with one button recoloured: nothing added, removed or moved.
  get '/recoloured'() {
    return this['/clean'].replace('background:#1a4d8f', 'background:#b91c1c');
  },
  '/changed': page(
    'Changed page',
    `<main>
  <h1 id="title" style="color:rgb(200, 0, 0)">Spring collection</h1>
  <p id="intro" style="position:relative">Light jackets and linen shirts for the warmer days ahead.<span class="sr-only"
    style="position:absolute;left:0;top:0;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap">(new season, twelve pieces)</span></p>
  <img id="logo" src="/logo.png" alt="Shop logo" width="64" height="64">
  <ul id="list"><li>Jackets</li><li>Shirts</li><li>Shoes</li><li>Hats</li></ul>
  <p><a id="more" href="/clean" style="display:inline-block;padding:12px 8px">See everything</a></p>
  <button id="buy" style="min-width:48px;min-height:48px;padding:8px 16px;color:#fff;background:#1a4d8f;border:0">Buy now</button>
</main>`,
  ),
  '/bugs': page(
    'Page with planted bugs',
    `<main>
  <h1 id="title" class="brand">Planted bugs</h1>
  <div id="wide" style="width:1600px;height:20px;background:#eee"></div>
  <div id="clipped" style="width:90px;overflow:hidden;white-space:nowrap">A label far too long for its box</div>
  <div id="stack" style="position:relative;height:40px">
    <span id="under" style="position:absolute;left:0;top:0">First label here</span>
    <span id="over" style="position:absolute;left:12px;top:4px">Second label here</span>
  </div>
  <img id="broken" src="/missing.png" alt="missing" width="80" height="40">
  <p id="faint" style="color:#c8c8c8">Barely readable grey text</p>
  <button id="tiny" style="width:16px;height:16px;padding:0;font-size:10px">x</button><button id="tiny-next" style="width:16px;height:16px;padding:0;font-size:10px">+</button>
</main>
<script>console.error('planted: the cart failed to load');</script>`,
    `<style>@font-face { font-family: "Brand Sans"; src: url(/fonts/brand.woff2) format("woff2"); }
.brand { font-family: "Brand Sans", sans-serif; }</style>`,
  ),
  '/shift': page(
    'Late banner',
    `<div id="slot"></div>
<main id="content" style="min-height:500px"><h1 id="headline">News</h1><p id="story">The story text that gets pushed down by a late banner.</p></main>
<script>
  // Inserted in the second animation frame: the first frame has painted the story at the top,
  // so the move is a layout shift however long the page took to load (a timer could fire before
  // the first paint on a slow machine, and then nothing would have shifted).
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const banner = document.createElement('div');
    banner.id = 'banner';
    banner.style.cssText = 'height:240px;background:#fc0';
    banner.textContent = 'Late banner';
    document.getElementById('slot').appendChild(banner);
  }));
</script>`,
  ),
  // A badge a CSS keyframe animation shows for 300 ms (from 400 to 700 ms after its start):
  // no script touches the DOM, only the animation flips its opacity.
  '/blink': page(
    'CSS blink',
    `<main><h1 id="headline">Offers</h1>
<div id="badge" style="opacity:0;padding:8px;background:#fd0;animation:blink 1000ms step-end 200ms 1 both">New!</div>
<p id="steady">Steady text.</p></main>`,
    '<style>@keyframes blink { 0% { opacity: 0 } 20% { opacity: 1 } 50% { opacity: 0 } 100% { opacity: 0 } }</style>',
  ),
  '/flash': page(
    'Flash of content',
    `<main><h1 id="headline">Dashboard</h1>
<div id="flash" hidden style="padding:20px;background:#fdd">Loading… please wait</div>
<p id="steady">Numbers appear here.</p></main>
<script>
  // Shown in one animation frame and hidden in the next: on screen for exactly one painted frame,
  // far under the 500 ms a flicker is judged by, however slow the machine (timers are not tied
  // to paints).
  const flash = document.getElementById('flash');
  requestAnimationFrame(() => {
    flash.hidden = false;
    requestAnimationFrame(() => { flash.style.display = 'none'; });
  });
</script>`,
  ),
  '/a11y': page(
    'Accessibility problems',
    `<main><h1>Form</h1>
<img id="nologo" src="/logo.png" width="32" height="32">
<button id="iconbutton" style="width:48px;height:48px"></button>
<section id="ok"><h2>Fine part</h2><p>Readable text.</p></section></main>`,
  ),
  '/slow': page('Slow', `<main><p id="wait">Waiting</p></main>`),
  // A phone page with what must not be reported — skip links parked off-screen or clipped to
  // 1 px, a disabled button and an aria-disabled link touching a 20 px button, a wide but short
  // <summary>, a drawer translated off-screen, a badge positioned over a neighbour — and one
  // planted bug: #card-b pulled 30 px up over #card-a by a negative margin, two boxes with no text.
  '/phone': page(
    'Phone page',
    `<a id="skip" href="#content" style="position:absolute;left:-9999px;top:8px;padding:4px">Skip to content</a>
<a id="skip-clipped" href="#footer-nav" style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap">Skip to links</a>
<nav id="drawer" style="position:fixed;top:0;left:0;width:280px;height:100%;transform:translateX(-100%);background:#fff;font-size:12px">
  <a href="/phone" style="display:block">Home</a><a href="/phone" style="display:block">Shop</a><a href="/phone" style="display:block">Cart</a>
</nav>
<header id="top" style="padding:16px"><h1 style="margin:0;font-size:20px">Phone page</h1></header>
<main id="content">
  <p id="lead">Tap a button below.</p>
  <div id="actions"><button id="save" aria-label="Save" style="width:20px;height:20px;padding:0">+</button><button id="delete" aria-label="Delete" disabled style="width:20px;height:20px;padding:0">x</button><a id="archive" href="/phone" aria-label="Archive" aria-disabled="true" style="display:inline-block;width:20px;height:20px">v</a></div>
  <details id="faq" style="margin:16px 0"><summary id="question" style="font-size:14px;line-height:20px">Why is this page so small?</summary><p>Because it is a test.</p></details>
  <div id="card-a" style="position:relative;height:80px;background:#dbeafe;border-radius:8px">
    <span id="badge" style="position:absolute;right:-6px;bottom:-36px;width:20px;height:20px;border-radius:50%;background:#b91c1c"></span>
  </div>
  <div id="card-b" style="height:80px;margin:-30px 0 0 40px;background:#fde68a;border-radius:8px"></div>
</main>
<footer id="site-footer" style="padding:16px"><nav id="footer-nav"><a href="/phone" style="display:inline-block;padding:12px">About</a> <a href="/phone" style="display:inline-block;padding:12px">Help</a></nav></footer>`,
  ),
  // /phone with its disabled controls enabled: #save and #delete then fail WCAG 2.5.8 together.
  get '/phone-enabled'() {
    return this['/phone'].replace(' disabled style', ' style').replace(' aria-disabled="true"', '');
  },
  // Never finishes loading: the script spins forever.
  '/hang': page('Hang', `<main><p>Spinning</p></main><script>for (;;) {}</script>`),
};

/**
 * Starts the server; resolves to { origin, requested(pathname), close() }. `requested` resolves
 * when the browser next asks for that path: a test waits on it to know the worker has the call.
 */
export function serve() {
  const waiting = new Map(); // pathname → resolvers of requested()
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    for (const resolve of waiting.get(url.pathname) ?? []) resolve();
    waiting.delete(url.pathname);
    // The favicon too: Chromium asks for it at a moment of its own, and a 404 would add a console
    // entry to some calls and not others.
    if (url.pathname === '/logo.png' || url.pathname === '/favicon.ico') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(PNG);
      return;
    }
    const docs = url.pathname.match(/^\/debian\/([^/]+)(\/.*)$/);
    if (docs && DEBIAN_DOCS[docs[1]]) {
      serveFile(res, DEBIAN_DOCS[docs[1]].dir, decodeURIComponent(docs[2]));
      return;
    }
    const body = pages[url.pathname];
    if (!body) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      const requested = (pathname) =>
        new Promise((r) => waiting.set(pathname, [...(waiting.get(pathname) ?? []), r]));
      resolve({ origin: `http://127.0.0.1:${port}`, requested, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** A file under `root` (symlinks followed, as Debian's packages link shared scripts in), or 404. */
function serveFile(res, root, file) {
  const target = path.join(root, path.normalize(file));
  let found = null;
  try {
    found = realpathSync(target);
    if (!target.startsWith(root + path.sep) || !statSync(found).isFile()) found = null;
  } catch (_) {
    found = null;
  }
  if (!found) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
    return;
  }
  readFile(found, (error, data) => {
    res.writeHead(error ? 500 : 200, { 'content-type': TYPES[path.extname(found)] || 'application/octet-stream' });
    res.end(error ? String(error) : data);
  });
}

/**
 * The Debian documentation site `name` as `{ skip: false }`, or `{ skip }` with the reason when
 * its package is not installed (node:test's `{ skip }`). Throws under `CI`, which must have it.
 */
export function debianDocs(name) {
  const { package: pkg, dir } = DEBIAN_DOCS[name];
  if (existsSync(dir)) return { skip: false };
  const reason = `${dir} is missing: apt-get install --no-install-recommends ${pkg} (scripts/setup.sh does)`;
  if (process.env.CI) throw new Error(`${reason}; CI must have it`);
  return { skip: reason };
}
