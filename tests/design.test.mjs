// The design and motion MCP tools over stdio with the SDK client, on the design fixtures
// (pages rendered in Chromium, then altered): scores, findings, images, the allowed roots.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const repo = new URL('..', import.meta.url).pathname;
const binary = path.join(repo, 'target', 'release', 'sightline');
const fixtures = path.join(repo, 'crates', 'core', 'tests', 'fixtures', 'design');
const work = mkdtempSync(path.join(tmpdir(), 'sightline-design-'));

after(() => rmSync(work, { recursive: true, force: true }));

async function withClient(env, fn) {
  assert.ok(existsSync(binary), `${binary} is missing: cargo build --release -p sightline-cli`);
  const transport = new StdioClientTransport({ command: binary, args: ['--root', fixtures, 'mcp'], env: { ...process.env, ...env }, stderr: 'pipe' });
  const client = new Client({ name: 'sightline-design-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

async function designs(client, args) {
  const result = await client.callTool({ name: 'compare_designs', arguments: args });
  assert.ok(!result.isError, result.content?.[0]?.text);
  return { json: JSON.parse(result.content[0].text), content: result.content };
}

test('design: identical inputs score 100 and come with four labelled images', async () => {
  await withClient({}, async (client) => {
    const { json, content } = await designs(client, { reference: 'reference.png', candidate: 'reference.png' });
    assert.equal(json.overall, 100);
    const images = content.filter((block) => block.type === 'image');
    assert.equal(images.length, 4);
    const labels = content.filter((block) => block.type === 'text').slice(1).map((block) => block.text.split(' ')[0]);
    assert.deepEqual(labels, ['overlay.png', 'heat-map.png', 'content-regions.png', 'side-by-side.png']);
  });
});

test('design: a recoloured page lowers color most and names the colours', async () => {
  await withClient({}, async (client) => {
    const { json, content } = await designs(client, { reference: 'reference.png', candidate: 'recoloured.png', returnVisuals: false });
    assert.equal(content.length, 1, 'no images when returnVisuals is false');
    const scores = Object.entries(json.dimensions).filter(([, d]) => typeof d.score === 'number');
    const lowest = scores.reduce((a, b) => (b[1].score < a[1].score ? b : a));
    assert.equal(lowest[0], 'color', JSON.stringify(json.dimensions));
    assert.ok(json.findings.some((f) => /#[0-9a-f]{6}/.test(f.message)), JSON.stringify(json.findings));
    assert.ok(json.overall < 100);
  });
});

test('design: bad arguments and paths outside SIGHTLINE_ALLOWED_ROOTS are clear errors', async () => {
  await withClient({ SIGHTLINE_ALLOWED_ROOTS: work }, async (client) => {
    const outside = await client.callTool({ name: 'compare_designs', arguments: { reference: 'reference.png', candidate: 'shifted.png' } });
    assert.equal(outside.isError, true);
    assert.match(outside.content[0].text, /SIGHTLINE_ALLOWED_ROOTS/);
    const mode = await client.callTool({ name: 'compare_designs', arguments: { reference: 'a.png', candidate: 'b.png', mode: 'page' } }).then(
      (r) => r.content[0].text,
      (e) => e.message,
    );
    assert.match(mode, /mode: "page" is not one of widget, screen/);
  });
});

test('motion: a moving sequence against a still one, and two equal moving sequences', async () => {
  const still = path.join(work, 'still');
  const moving = path.join(work, 'moving');
  mkdirSync(still);
  mkdirSync(moving);
  const frames = ['reference.png', 'shifted.png', 'reference.png', 'shifted.png'];
  frames.forEach((name, i) => {
    copyFileSync(path.join(fixtures, 'reference.png'), path.join(still, `frame-${i}.png`));
    copyFileSync(path.join(fixtures, name), path.join(moving, `frame-${i}.png`));
  });
  await withClient({}, async (client) => {
    const call = async (reference, candidate) => {
      const result = await client.callTool({ name: 'compare_motion', arguments: { reference, candidate } });
      assert.ok(!result.isError, result.content?.[0]?.text);
      assert.equal(result.content.filter((block) => block.type === 'image').length, 1, 'the signature chart');
      return JSON.parse(result.content[0].text);
    };
    const oneMoves = await call(moving, still);
    assert.equal(oneMoves.motionStatus, 'compared');
    assert.equal(oneMoves.score, 0);
    const same = await call(moving, frames.map((name) => path.join(fixtures, name)));
    assert.equal(same.score, 100);
    const neither = await call(still, still);
    assert.equal(neither.motionStatus, 'static');
    assert.equal(neither.score, null);
  });
});
