// The design and motion MCP tools over stdio with the SDK client, on the design fixtures
// (pages rendered in Chromium, then altered): scores, findings, images, the allowed roots.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { toolFailure as failure, withMcp } from './support/mcp.mjs';
import { readPng } from './video/png.mjs';

const repo = new URL('..', import.meta.url).pathname;
const fixtures = path.join(repo, 'crates', 'core', 'tests', 'fixtures', 'design');
const work = mkdtempSync(path.join(tmpdir(), 'sightline-design-'));

after(() => rmSync(work, { recursive: true, force: true }));

const withClient = (env, fn) => withMcp({ root: fixtures, env: { ...process.env, ...env }, name: 'sightline-design-test' }, fn);

async function designs(client, args) {
  const result = await client.callTool({ name: 'compare_designs', arguments: args });
  assert.ok(!result.isError, result.content?.[0]?.text);
  return { json: JSON.parse(result.content[0].text), content: result.content };
}

/** The JSON result alone (no diagnostic images). */
async function scores(client, args) {
  return (await designs(client, { returnVisuals: false, ...args })).json;
}


/** Each dimension as [status, score, weight]. */
const byDimension = (json) => Object.fromEntries(Object.entries(json.dimensions).map(([name, d]) => [name, [d.status, d.score, d.weight]]));

/** The weighted geometric mean of the dimension scores (floored at 1), as the spec defines overall. */
const geometricMean = (json) =>
  Math.exp(Object.values(json.dimensions).reduce((sum, d) => sum + d.weight * Math.log(Math.max(d.score ?? 1, 1)), 0));

/** SHA-256 of "design-review-v1" and "design-review-v2": review protocols named by their text's hash. */
const PROTOCOL_V1 = createHash('sha256').update('design-review-v1').digest('hex');
const PROTOCOL_V2 = createHash('sha256').update('design-review-v2').digest('hex');

/** A fixture's decoded RGBA bytes, rows top to bottom. */
function readPixels(name) {
  const png = readPng(path.join(fixtures, name));
  const out = Buffer.alloc(png.width * png.height * 4);
  for (let y = 0; y < png.height; y++) for (let x = 0; x < png.width; x++) out.set(png.rgba(x, y), (y * png.width + x) * 4);
  return out;
}

const DEFAULT_WEIGHTS = { layout: 0.35, color: 0.2, content: 0.15, typography: 0.15, spacing: 0.15 };

test('design: identical inputs score 100 and come with four labelled images', async () => {
  await withClient({}, async (client) => {
    const { json, content } = await designs(client, { reference: 'reference.png', candidate: 'reference.png' });
    assert.equal(json.overall, 100);
    assert.deepEqual(byDimension(json), {
      layout: ['scored', 100, 0.35], color: ['scored', 100, 0.2], content: ['scored', 100, 0.15], typography: ['scored', 100, 0.15], spacing: ['scored', 100, 0.15],
    });
    assert.deepEqual(json.findings, []);
    // A label, then its image, for each of the four.
    assert.deepEqual(content.map((block) => block.type), ['text', 'text', 'image', 'text', 'image', 'text', 'image', 'text', 'image']);
    // On the 768 px canonical canvas (640 × 480 inputs scaled by 1.2); side by side has a gutter.
    const labels = content.filter((block) => block.type === 'text').slice(1).map((block) => block.text);
    assert.deepEqual(labels, ['overlay.png (768×576)', 'heat-map.png (768×576)', 'content-regions.png (768×576)', 'side-by-side.png (1544×576)']);
    const sizes = content.filter((block) => block.type === 'image').map((block) => {
      const png = Buffer.from(block.data, 'base64');
      return `${block.mimeType} ${png.readUInt32BE(16)}×${png.readUInt32BE(20)}`;
    });
    assert.deepEqual(sizes, ['image/png 768×576', 'image/png 768×576', 'image/png 768×576', 'image/png 1544×576']);
  });
});

test('design: a recoloured page lowers color most and names the colours', async () => {
  await withClient({}, async (client) => {
    const { json, content } = await designs(client, { reference: 'reference.png', candidate: 'recoloured.png', returnVisuals: false });
    assert.equal(content.length, 1, 'no images when returnVisuals is false');
    // Only colour moved: the blue accent became red, every other dimension is untouched.
    assert.deepEqual(byDimension(json), {
      layout: ['scored', 100, 0.35], color: ['scored', 46.73, 0.2], content: ['scored', 100, 0.15], typography: ['scored', 100, 0.15], spacing: ['scored', 100, 0.15],
    });
    assert.equal(json.overall, 85.89);
    assert.deepEqual(json.findings, [
      {
        dimension: 'color',
        kind: 'colorMoved',
        severity: 'high',
        message: '#dc3c3c where the reference has #2878dc (12.3 % of the view, OKLab distance 0.333)',
        suggestedFix: 'use #2878dc here as the reference does, where the candidate shows #dc3c3c',
        box: { x: 0, y: 0, width: 640, height: 400 },
      },
    ]);
    assert.deepEqual(json.diagnostics, { status: 'ok', reasons: [] });
  });
});

test('design: bad arguments and paths outside SIGHTLINE_ALLOWED_ROOTS are clear errors', async () => {
  await withClient({ SIGHTLINE_ALLOWED_ROOTS: work }, async (client) => {
    assert.deepEqual(await failure(client, 'compare_designs', { reference: 'reference.png', candidate: 'shifted.png' }), {
      toolError: `${path.join(fixtures, 'reference.png')}: outside the folders SIGHTLINE_ALLOWED_ROOTS allows (${work}); move it under one of them or add its folder to SIGHTLINE_ALLOWED_ROOTS`,
    });
    const pair = { reference: 'a.png', candidate: 'b.png' };
    assert.deepEqual(await failure(client, 'compare_designs', { ...pair, mode: 'page' }), {
      toolError: 'mode: "page" is not one of widget, screen',
    });
    assert.deepEqual(await failure(client, 'compare_designs', { ...pair, preset: 'light' }), {
      toolError: 'preset: "light" is not one of default, dark-ui',
    });
    assert.deepEqual(await failure(client, 'compare_designs', { ...pair, weights: { colour: 1 } }), {
      toolError: 'weights: unknown field `colour`, expected one of `layout`, `color`, `content`, `typography`, `spacing`; use numbers for layout, color, content, typography, spacing',
    });
  });
  // Weights and boxes that parse but cannot be used are refused by the core, before any image is read.
  await withClient({}, async (client) => {
    const pair = { reference: 'reference.png', candidate: 'recoloured.png' };
    assert.deepEqual(await failure(client, 'compare_designs', { ...pair, weights: { layout: -1 } }), {
      toolError: 'weights: layout is -1; each weight must be a number ≥ 0 (0 leaves the dimension out of overall)',
    });
    assert.deepEqual(await failure(client, 'compare_designs', { ...pair, weights: { layout: 0, color: 0, content: 0, typography: 0, spacing: 0 } }), {
      toolError: 'weights: every dimension weighs 0, so nothing counts towards overall; give at least one weight above 0, e.g. layout 0.5',
    });
    const context = (scopeId, protocolKey) => ({ ...pair, comparisonContext: { scopeId, protocolKey } });
    assert.deepEqual(await failure(client, 'compare_designs', context('checkout', 'design-review-v1')), {
      toolError: 'comparisonContext.protocolKey "design-review-v1" is not a lowercase hex SHA-256; give the 64-digit SHA-256 of your review protocol\'s text (e.g. `sha256sum protocol.md`)',
    });
    assert.deepEqual(await failure(client, 'compare_designs', context('x'.repeat(129), PROTOCOL_V1)), {
      toolError: 'comparisonContext.scopeId is 129 UTF-16 units long; give 1–128, e.g. "checkout/buy-button"',
    });
    assert.deepEqual(await failure(client, 'compare_designs', context('', PROTOCOL_V1)), {
      toolError: 'comparisonContext.scopeId is 0 UTF-16 units long; give 1–128, e.g. "checkout/buy-button"',
    });
    assert.deepEqual(await failure(client, 'compare_designs', { ...pair, ignoreRegions: [{ x: 1, y: 1, width: 0, height: 5 }] }), {
      toolError: 'ignore region 1,1,0,5 is empty; give x,y,width,height with width and height above 0',
    });
  });
});

test('design: preset dark-ui weighs layout .6, typography .3, color .1 and recomputes overall', async () => {
  await withClient({}, async (client) => {
    const pair = { reference: 'dark.png', candidate: 'dark-recoloured.png' };
    const plain = await scores(client, pair);
    const dark = await scores(client, { ...pair, preset: 'dark-ui' });
    assert.equal(plain.preset, 'default');
    assert.deepEqual(plain.weights, DEFAULT_WEIGHTS);
    assert.equal(plain.overall, 85.83);
    assert.equal(dark.preset, 'dark-ui');
    assert.deepEqual(dark.weights, { layout: 0.6, color: 0.1, content: 0, typography: 0.3, spacing: 0 });
    // The same measurements, weighed differently: colour (46.57) counts for less.
    assert.deepEqual(byDimension(dark), {
      layout: ['scored', 100, 0.6], color: ['scored', 46.57, 0.1], content: ['scored', 100, 0], typography: ['scored', 100, 0.3], spacing: ['scored', 100, 0],
    });
    assert.equal(dark.overall, 92.64);
    assert.equal(Math.round(geometricMean(dark) * 100) / 100, dark.overall);
    assert.deepEqual(dark.findings, plain.findings);
    // The weights are part of the question asked.
    assert.notEqual(dark.comparisonKey, plain.comparisonKey);
  });
});

test('design: weights given for some dimensions keep the preset for the rest', async () => {
  await withClient({}, async (client) => {
    const pair = { reference: 'reference.png', candidate: 'recoloured.png' };
    // color 0.8 over the default preset: 0.35 + 0.8 + 0.15 + 0.15 + 0.15 = 1.6.
    const colour = await scores(client, { ...pair, weights: { color: 0.8 } });
    assert.equal(colour.preset, 'default');
    assert.deepEqual(colour.weights, { layout: 0.2188, color: 0.5, content: 0.0938, typography: 0.0938, spacing: 0.0938 });
    // Half of the weight on a colour score of 46.73, half on 100: √(100 × 46.73) = 68.36.
    assert.equal(colour.overall, 68.36);
    // Over dark-ui, one weight given: the others are dark-ui's, and 0 leaves a dimension out.
    const dark = await scores(client, { ...pair, preset: 'dark-ui', weights: { color: 0.4, typography: 0 } });
    assert.equal(dark.preset, 'dark-ui');
    assert.deepEqual(dark.weights, { layout: 0.6, color: 0.4, content: 0, typography: 0, spacing: 0 });
    // Every weight given: the preset gives none.
    const colourOnly = await scores(client, { ...pair, weights: { layout: 0, color: 2, content: 0, typography: 0, spacing: 0 } });
    assert.deepEqual(colourOnly.weights, { layout: 0, color: 1, content: 0, typography: 0, spacing: 0 }, 'renormalised');
    assert.equal(colourOnly.overall, 46.73);
  });
});

test('design: a blank pair, or one whose ignore regions cover everything, is inconclusive with no overall', async () => {
  await withClient({}, async (client) => {
    // blank.png: the fixture page rendered with every element hidden.
    const blank = await scores(client, { reference: 'blank.png', candidate: 'blank.png' });
    assert.equal(blank.overall, null);
    assert.deepEqual(blank.diagnostics, {
      status: 'inconclusive',
      reasons: ['both images are a single colour where they are compared (#ffffff and #ffffff): there is no design to compare; check that both rendered'],
    });
    const nothingRendered = await scores(client, { reference: 'reference.png', candidate: 'blank.png' });
    assert.equal(nothingRendered.overall, null);
    assert.deepEqual(nothingRendered.diagnostics.reasons, ['the candidate is a single colour (#ffffff) where it is compared: it shows nothing to compare; check that it rendered']);
    const masked = await scores(client, {
      reference: 'reference.png', candidate: 'recoloured.png', ignoreRegions: [{ x: 0, y: 0, width: 640, height: 480 }],
    });
    assert.equal(masked.overall, null);
    assert.deepEqual(masked.diagnostics, {
      status: 'inconclusive',
      reasons: ['the ignore regions cover 100.0 % of the view, so nothing is left to compare; ignore less'],
    });
    // The fix list's rubric and the inputs' identities come with every result.
    assert.equal(masked.critiqueRubric.steps.length, 6);
    assert.deepEqual(Object.keys(masked.critiqueRubric.severity), ['high', 'medium', 'low']);
    assert.deepEqual(masked.provenance.reference, {
      pixelSha256: createHash('sha256').update(readPixels('reference.png')).digest('hex'), width: 640, height: 480,
    });
  });
});

test('design: an ignore region over the removed button leaves nothing to find', async () => {
  await withClient({}, async (client) => {
    const pair = { reference: 'reference.png', candidate: 'button-removed.png' };
    const seen = await scores(client, pair);
    assert.deepEqual(byDimension(seen), {
      layout: ['scored', 98.56, 0.35], color: ['scored', 99.72, 0.2], content: ['scored', 93.33, 0.15], typography: ['scored', 98.49, 0.15], spacing: ['scored', 100, 0.15],
    });
    assert.equal(seen.overall, 98.19);
    assert.deepEqual(seen.findings.map((f) => [f.kind, f.box]), [
      ['structureChanged', { x: 160, y: 346, width: 134, height: 54 }],
      ['blockMissing', { x: 159, y: 359, width: 122, height: 42 }],
    ]);
    assert.deepEqual(seen.ignoreRegions, []);
    // The button's box (reference pixels) with a margin: every dimension is back at 100.
    const button = { x: 150, y: 340, width: 150, height: 70 };
    const masked = await scores(client, { ...pair, ignoreRegions: [button] });
    assert.deepEqual(byDimension(masked), {
      layout: ['scored', 100, 0.35], color: ['scored', 100, 0.2], content: ['scored', 100, 0.15], typography: ['scored', 100, 0.15], spacing: ['scored', 100, 0.15],
    });
    assert.equal(masked.overall, 100);
    assert.deepEqual(masked.findings, []);
    assert.deepEqual(masked.ignoreRegions, [button]);
  });
});

test('design: comparisonContext is part of comparisonKey, the candidate only of runKey', async () => {
  await withClient({}, async (client) => {
    const context = { scopeId: 'checkout/buy-button', protocolKey: PROTOCOL_V1 };
    const bare = await scores(client, { reference: 'reference.png', candidate: 'button-removed.png' });
    const removed = await scores(client, { reference: 'reference.png', candidate: 'button-removed.png', comparisonContext: context });
    const recoloured = await scores(client, { reference: 'reference.png', candidate: 'recoloured.png', comparisonContext: context });
    const otherProtocol = await scores(client, {
      reference: 'reference.png', candidate: 'button-removed.png', comparisonContext: { ...context, protocolKey: PROTOCOL_V2 },
    });
    // Keys are hashes of pixels and settings: pinned, so a change that would make old keys compare
    // unlike things shows here (and must bump the core's ALGORITHM_VERSION).
    assert.deepEqual([bare.comparisonKey, bare.runKey], ['ec0b69c2d701fad54ad1eb724a4e842b', '7b4c6584ee1d1946f24745cea0f1b858']);
    assert.deepEqual([removed.comparisonKey, removed.runKey], ['f66d6e5b4c95506b8bdd11c62af68dc7', '51c670d6697bf786dfd1b8af0598a9e3']);
    // Same reference and context: the same question, another answer.
    assert.equal(recoloured.comparisonKey, removed.comparisonKey);
    assert.notEqual(recoloured.runKey, removed.runKey);
    assert.equal(otherProtocol.comparisonKey, '1d355057f1d5413ef57ea0f4bce95ba7');
    // The context changes the keys only, never the scores.
    assert.deepEqual(byDimension(removed), byDimension(bare));
    assert.equal(removed.overall, bare.overall);
  });
});

/** Copies the named fixtures into a new folder of `frame-<i>.png` files; returns its path. */
function sequence(name, fixtureNames) {
  const dir = path.join(work, name);
  mkdirSync(dir);
  fixtureNames.forEach((fixture, i) => copyFileSync(path.join(fixtures, fixture), path.join(dir, `frame-${i}.png`)));
  return dir;
}

/** compare_motion's JSON, after checking the answer carries the signature chart. */
async function motion(client, args) {
  const result = await client.callTool({ name: 'compare_motion', arguments: args });
  assert.ok(!result.isError, result.content?.[0]?.text);
  assert.deepEqual(result.content.map((block) => block.type), ['text', 'text', 'image'], 'the JSON, the chart label, the chart');
  return JSON.parse(result.content[0].text);
}

test('motion: a moving sequence against a still one, and two equal moving sequences', async () => {
  const frames = ['reference.png', 'shifted.png', 'reference.png', 'shifted.png'];
  const still = sequence('still', frames.map(() => 'reference.png'));
  const moving = sequence('moving', frames);
  await withClient({}, async (client) => {
    const oneMoves = await motion(client, { reference: moving, candidate: still });
    assert.equal(oneMoves.motionStatus, 'compared');
    assert.equal(oneMoves.score, 0);
    assert.deepEqual([oneMoves.reference.moves, oneMoves.candidate.moves], [true, false]);
    assert.deepEqual([oneMoves.reference.frames, oneMoves.candidate.frames], [4, 4]);
    // Each step between reference.png and shifted.png changes the same share of the view.
    assert.deepEqual(oneMoves.reference.signature, [0.04829, 0.04829, 0.04829]);
    assert.deepEqual(oneMoves.candidate.signature, [0, 0, 0]);
    assert.equal(oneMoves.summary, 'only the reference moves (energy 0.048290 against 0.000000), score 0');
    // A folder and a list of the same files are the same sequence.
    const same = await motion(client, { reference: moving, candidate: frames.map((name) => path.join(fixtures, name)) });
    assert.equal(same.score, 100);
    assert.deepEqual(same.candidate.signature, same.reference.signature);
    const neither = await motion(client, { reference: still, candidate: still });
    assert.equal(neither.motionStatus, 'static');
    assert.equal(neither.score, null);
    // Whether the rhythm could be judged, and the earlier tool's names beside ours.
    assert.deepEqual(oneMoves.timing, { status: 'cannotJudge', reasons: ["the candidate does not move, so there is no rhythm to set against the other's"] });
    assert.deepEqual(neither.timing, { status: 'cannotJudge', reasons: ['neither sequence moves, so there is no timing to judge'] });
    assert.deepEqual(
      [oneMoves.motion_score, oneMoves.motion_status, oneMoves.energy_ratio, oneMoves.ref_energy, oneMoves.cand_energy, oneMoves.ref_moving, oneMoves.cand_moving, oneMoves.temporal_corr],
      [0, 'compared', 0, 0.04829, 0, true, false, null],
    );
    // Without the chart when returnVisuals is false.
    const bare = await client.callTool({ name: 'compare_motion', arguments: { reference: moving, candidate: still, returnVisuals: false } });
    assert.deepEqual(bare.content.map((block) => block.type), ['text']);
  });
});

test('motion: maxFrames reads only the first frames of each sequence', async () => {
  // Still for two frames, then moving: within maxFrames 2 nothing moves.
  const late = sequence('late', ['reference.png', 'reference.png', 'shifted.png', 'reference.png']);
  await withClient({}, async (client) => {
    const whole = await motion(client, { reference: late, candidate: late });
    assert.deepEqual([whole.motionStatus, whole.score, whole.reference.frames, whole.reference.framesAvailable], ['compared', 100, 4, 4]);
    const first = await motion(client, { reference: late, candidate: late, maxFrames: 2 });
    assert.deepEqual([first.motionStatus, first.score], ['static', null]);
    for (const side of [first.reference, first.candidate]) {
      assert.deepEqual([side.frames, side.framesAvailable, side.signature, side.moves], [2, 4, [0], false]);
    }
    assert.deepEqual(await failure(client, 'compare_motion', { reference: late, candidate: late, maxFrames: 1 }), {
      toolError: 'maxFrames 1 is outside 2..1000; use e.g. 120',
    });
  });
});
