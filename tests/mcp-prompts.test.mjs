// The MCP server's prompts (prompts/list, prompts/get) through the SDK's real client against the
// built binary, in a project where nothing has run.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { tempRoot, withClient } from './golden/run.mjs';
import { APPROVAL_RULE, notRunYet, settle } from './support/mcp.mjs';

const temps = [];
function tempDir() {
  const dir = tempRoot('mcp-prompts');
  temps.push(dir);
  return dir;
}
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

test('mcp: prompts/list shows both prompts; triage arguments are optional', async () => {
  await withClient(tempDir(), [], async (client) => {
    assert.ok(client.getServerCapabilities()?.prompts, 'prompts capability declared');
    const { prompts } = await client.listPrompts();
    const byName = Object.fromEntries(prompts.map((p) => [p.name, p]));
    assert.deepEqual(Object.keys(byName).sort(), ['review-visual-changes', 'triage-visual-diff']);
    assert.equal(byName['review-visual-changes'].arguments, undefined);
    const args = byName['triage-visual-diff'].arguments;
    assert.deepEqual(args.map((a) => [a.name, a.required]), [['intent', false], ['snapshot', false]]);
  });
});

test('mcp: prompts/get returns one user message with the rules', async () => {
  await withClient(tempDir(), [], async (client) => {
    const textOf = (result) => {
      assert.equal(result.messages.length, 1);
      assert.equal(result.messages[0].role, 'user');
      return result.messages[0].content.text;
    };
    const review = textOf(await client.getPrompt({ name: 'review-visual-changes' }));
    for (const phrase of [
      'get_visual_results',
      'explain_snapshot for each change',
      'always when styles were not compared',
      'approve, investigate, or likely noise',
      '"Likely noise" only for identical DOM with styles compared and matching and a small scattered diff',
      'A concentrated diff or one over 1% gets its own verdict',
      'the user says so and the client calls approve_snapshot',
    ]) {
      assert.ok(review.includes(phrase), `review prompt lacks "${phrase}"`);
    }

    const all = textOf(await client.getPrompt({ name: 'triage-visual-diff' }));
    for (const phrase of [
      'every changed/new snapshot and every missing baseline',
      'glitch',
      'intended change',
      'possible bug',
      'confidence',
      'Changed DOM or `styleCheck: mismatch` is never a glitch.',
      'Identical DOM with styles not compared is decided by the images, not the DOM.',
      'Noise is small and scattered',
      'A missing baseline is never a glitch',
      'With no intent stated anywhere, a real change is a possible bug.',
      'Never call an approve tool',
    ]) {
      assert.ok(all.includes(phrase), `triage prompt lacks "${phrase}"`);
    }

    const one = textOf(
      await client.getPrompt({ name: 'triage-visual-diff', arguments: { snapshot: 'home', intent: 'rebrand to red' } }),
    );
    assert.match(one, /snapshot "home"/);
    assert.match(one, /rebrand to red/);
    assert.ok(!one.includes('every changed/new snapshot and every missing baseline'));

    await assert.rejects(client.getPrompt({ name: 'triage-visual-diff', arguments: { snapshot: '../x' } }), {
      code: -32602,
      message: `MCP error -32602: snapshot: snapshot name "../x" contains '..'; use letters, digits, '-', '_' and '.', with '/' between folders, e.g. "checkout-page" or "cards/lamp"`,
    });
    assert.deepEqual(await settle(client.callTool({ name: 'get_visual_results', arguments: {} })), { isError: true, text: `${notRunYet}\n\n${APPROVAL_RULE}` }, 'still serving');
  });
});
