// The MCP client every end-to-end test drives the built binary with: the SDK's real client over
// stdio against `sightline --root <root> mcp`, and how a refused call is read.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
// SIGHTLINE_BIN: a binary built elsewhere (CARGO_TARGET_DIR); the default is the checkout's.
export const binary = process.env.SIGHTLINE_BIN || path.join(repo, 'target', 'release', 'sightline');

/**
 * Runs `fn(client)` with a client on `sightline --root root mcp ...flags`, then closes it. `env`,
 * when given, is the server's whole environment; without it the SDK passes only a safe few
 * variables (HOME, PATH, …), so the server finds the worker next to the binary.
 */
export async function withMcp({ root, flags = [], env, name = 'sightline-test' }, fn) {
  assert.ok(existsSync(binary), `${binary} is missing: cargo build --release -p sightline-cli (or set SIGHTLINE_BIN)`);
  const transport = new StdioClientTransport({ command: binary, args: ['--root', root, 'mcp', ...flags], env, stderr: 'pipe' });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/**
 * How a call that must fail failed: `{ toolError }` with the text of a result flagged isError
 * (bad arguments too), or `{ invalidParams }` with the thrown message of a JSON-RPC error (an
 * unknown tool only).
 */
export async function toolFailure(client, name, args) {
  const result = await client.callTool({ name, arguments: args }).catch((e) => ({ thrown: e.message }));
  if (result.thrown) return { invalidParams: result.thrown };
  assert.equal(result.isError, true, `${name} succeeded: ${result.content?.[0]?.text}`);
  return { toolError: result.content[0].text };
}

/** A tool call's outcome, whether the server answered with an error result or a JSON-RPC error. */
export function settle(promise) {
  return promise.then(
    (r) => ({ isError: r.isError, text: r.content?.[0]?.text }),
    (e) => ({ code: e.code, text: e.message }),
  );
}

/** What the results tools say in a project where the tests have not run. */
export const notRunYet =
  'No results at visual-report/results.json: the tests have not run here yet (no captures in .sightline/temp/). Run the Playwright tests with the sightline reporter (npx playwright test), then ask again.';

/** The approval rule every get_visual_results answer ends with. */
export const APPROVAL_RULE =
  'Approve only after a human confirms: call approve_snapshot (name, optional project) or approve_all only when the user has said to accept these changes; never approve on your own judgement.';
