// visual_verify measured: over a set of varied pages (served from 127.0.0.1 and shot by the real
// worker in real Chromium, through the built `sightline mcp` and the SDK client), a solver that
// reads only the tool's JSON — quoted text, common counts, "yes", "black", "top left", three tries
// — is never trusted, and a solver that answers from the page's DOM at capture time always is. A
// page with too little text is refused as not verifiable.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { withMcp } from './support/mcp.mjs';
import { sightedAnswers } from './support/sighted.mjs';

const repo = new URL('..', import.meta.url).pathname;
const chromiumPath = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
const skip = !existsSync(chromiumPath) && `Chromium not found at ${chromiumPath} (set SIGHTLINE_CHROMIUM)`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);
const env = { ...process.env, SIGHTLINE_WORKER: path.join(repo, 'playwright-fixtures', 'worker.js') };

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAYAAABytg0kAAAAFklEQVR4nGNgYGD4z8DAwMDAwMDAAAANAAEBAAEbXpcAAAAASUVORK5CYII=', 'base64');
const page = (title, body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body { margin: 0; font: 16px/1.5 sans-serif; color: #111; } main { padding: 24px; } .cta { background: #0a7d4f; color: #fff; border: 0; padding: 10px 18px; }</style>
</head><body>${body}</body></html>`;

// Pages of different shapes: a shop, an article, a pricing table, documentation, a form, a thin page.
const pages = {
  '/shop': page('Northwind Outfitters', `<main>
<h1>Trail gear for every season</h1>
<p>Waterproof shells, merino layers and boots tested on three continents by our field team.</p>
<img src="/pic.png" width="320" height="120" alt="">
<img src="/pic.png" width="320" height="120" alt="">
<h2>Best sellers</h2>
<ul><li>Ridge shell jacket</li><li>Alpine merino crew</li><li>Granite hiking boots</li><li>Summit daypack</li></ul>
<button class="cta">Shop the range</button> <button>Gift cards</button>
<h2>Why customers stay</h2>
<p>Repairs are free for life, and every order ships within two working days.</p>
</main>`),
  '/article': page('Blog — Notes from the workshop', `<main>
<h1>Why we rebuilt our kiln</h1>
<p>After eleven years of firing stoneware, the old kiln finally cracked along its rear wall last winter.</p>
<h2>Choosing the bricks</h2>
<p>Insulating firebrick halves the fuel bill, but it chips easily when loading heavy pieces.</p>
<h2>The first firing</h2>
<p>Cone ten came up two hours faster than before, and the glazes matured more evenly.</p>
<p><a href="/shop">Read the previous post</a> or <a href="/docs">see the build notes</a>.</p>
</main>`),
  '/pricing': page('Pricing', `<main>
<h1>Plans that grow with your studio</h1>
<section><h2>Starter</h2><p>For a single potter selling online.</p><ul><li>One shop page</li><li>Fifty listings</li></ul><button class="cta">Choose Starter</button></section>
<section><h2>Workshop</h2><p>For teams sharing one kiln schedule.</p><ul><li>Five seats</li><li>Unlimited listings</li></ul><button class="cta">Choose Workshop</button></section>
<section><h2>Guild</h2><p>For cooperatives with their own gallery.</p><ul><li>Twenty seats</li><li>Gallery events</li></ul><button class="cta">Talk to us</button></section>
</main>`),
  '/docs': page('Reference — kilnctl', `<nav style="padding:8px 24px;background:#eef"><a href="/docs">Overview</a> · <a href="/docs#install">Install</a> · <a href="/docs#schedule">Schedules</a></nav><main>
<h1>kilnctl schedule files</h1>
<p>A schedule file lists ramp segments, each with a target temperature and a rate in degrees per hour.</p>
<h2 id="install">Installing the controller</h2>
<p>Copy the binary to the controller board and restart it while holding the mode switch.</p>
<h3>Checking the thermocouple</h3>
<p>The display shows the measured temperature beside the target during every segment.</p>
<ol><li>Open the lid vent</li><li>Start the bisque program</li><li>Watch the first ramp</li></ol>
</main>`),
  '/form': page('Create your account', `<main>
<h1>Join the glaze library</h1>
<p>Members share tested recipes, firing notes and photographs of every test tile.</p>
<form><label>Email <input type="email"></label><br><label>Studio name <input type="text"></label><br>
<label>Kiln type <select><option>Electric</option><option>Gas</option></select></label><br>
<button class="cta" type="submit">Send my invitation</button></form>
<h2>What members get</h2><ul><li>Recipe search by cone</li><li>Monthly firing clinic</li></ul>
</main>`),
  '/thin': page('Thin', `<main><h1>Hello</h1><button>Go</button></main>`),
};

let site;
before(async () => {
  if (skip) return;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/pic.png' || url.pathname === '/favicon.ico') {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(PNG);
    }
    const body = pages[url.pathname];
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  site = { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
});
after(async () => site && site.close());

async function verify(client, args) {
  const result = await client.callTool({ name: 'visual_verify', arguments: args });
  return { isError: result.isError, text: result.content[0].text };
}

async function submit(client, sessionId, answers) {
  const result = await client.callTool({
    name: 'submit_visual_response',
    arguments: { session_id: sessionId, challenge_answers: answers, query_answer: 'n/a' },
  });
  assert.ok(!result.isError, result.content[0].text);
  return JSON.parse(result.content[0].text);
}

/** Answers from the tool's JSON alone: what a model that never opened the screenshot can do. */
function blindAnswers(session, attempt) {
  const json = JSON.stringify(session);
  const quoted = [...json.matchAll(/\\"([^\\]+)\\"/g)].map((m) => m[1]);
  return Object.fromEntries(
    session.challenges.map((c) => {
      const answer = {
        text: quoted[attempt % Math.max(quoted.length, 1)] ?? 'Welcome',
        number: ['1', '2', '3'][attempt],
        'yes or no': 'yes',
        'colour as #rrggbb': 'black',
      }[c.format] ?? 'top left';
      return [c.id, answer];
    }),
  );
}

test('visual_verify: a blind solver is never trusted and a sighted one always is, across varied pages', { skip }, async () => {
  // Each solver has a server of its own: a page's questions take three responses in all, so the
  // sighted solver would find the blind one's tries used up on the same server.
  await withMcp({ root: repo, env, name: 'sightline-verify-test' }, (sighted) => withMcp({ root: repo, env, name: 'sightline-verify-test' }, async (client) => {
    for (const pathname of ['/shop', '/article', '/pricing', '/docs', '/form']) {
      const url = site.origin + pathname;
      const query = 'Does the page look finished?';
      const blind = await verify(client, { url, query });
      assert.ok(!blind.isError, `${pathname}: ${blind.text}`);
      const session = JSON.parse(blind.text);
      // The prompt carries no address or site name.
      assert.ok(!session.prompt.includes(site.origin) && !JSON.stringify(session).includes('127.0.0.1'), session.prompt);
      assert.ok(session.challenges.filter((c) => c.format === 'text').length >= 3, `${pathname}: ${blind.text}`);
      for (let attempt = 0; attempt < 3; attempt++) {
        const verdict = await submit(client, session.sessionId, blindAnswers(session, attempt));
        assert.equal(verdict.trusted, false, `${pathname}, blind attempt ${attempt}: ${verdict.summary}`);
      }
      const fresh = JSON.parse((await verify(sighted, { url, query })).text);
      const verdict = await submit(sighted, fresh.sessionId, await sightedAnswers(url, fresh));
      assert.equal(verdict.trusted, true, `${pathname}: ${verdict.summary}\n${JSON.stringify(fresh.challenges, null, 1)}`);
      assert.equal(verdict.passed, verdict.total, `${pathname}: ${verdict.summary}`);
    }
  }));
});

test('visual_verify: a page with too little text says verification is not possible', { skip }, async () => {
  await withMcp({ root: repo, env, name: 'sightline-verify-test' }, async (client) => {
    const thin = await verify(client, { url: `${site.origin}/thin`, query: 'Is it done?' });
    assert.equal(thin.isError, true, thin.text);
    assert.match(thin.text, /^verification is not possible here: the screenshot shows too little readable text to ask about \(1 text challenge found, 3 needed/);
  });
});

test("visual_verify: Ghostlight's shapes — criteria with a type, answers as a list", { skip }, async () => {
  await withMcp({ root: repo, env, name: 'sightline-verify-test' }, async (client) => {
    const url = `${site.origin}/pricing`;
    const session = JSON.parse((await verify(client, { url, query: 'Which plan is cheapest?', criteria: [{ question: 'Does the layout look balanced?', type: 'boolean' }] })).text);
    const last = session.challenges[session.challenges.length - 1];
    assert.deepEqual(last, { id: last.id, question: 'Does the layout look balanced?', format: 'yes or no' });
    const sighted = await sightedAnswers(url, { challenges: session.challenges.slice(0, -1) });
    const list = [...Object.entries(sighted).map(([id, answer]) => ({ id, answer })), { id: last.id, answer: 'yes, evenly' }];
    const verdict = await submit(client, session.sessionId, list);
    assert.equal(verdict.trusted, true, verdict.summary);
    assert.deepEqual(verdict.unscored, [{ id: last.id, question: 'Does the layout look balanced?', answer: 'yes, evenly' }]);
  });
});
