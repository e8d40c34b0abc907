// What the live-tool suites share: the built `sightline mcp` with its browser worker (one server
// for the suite, or one of a test's own), the scenario site it checks (tests/live/pages.mjs),
// and how a call's answer or refusal is read.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serve } from '../live/pages.mjs';
import { binary, toolFailure, withMcp } from './mcp.mjs';

export const repo = new URL('../..', import.meta.url).pathname;
export const worker = path.join(repo, 'playwright-fixtures', 'worker.js');
const chromium = process.env.SIGHTLINE_CHROMIUM || '/usr/bin/chromium';
export const skip = !existsSync(chromium) && `Chromium not found at ${chromium} (set SIGHTLINE_CHROMIUM)`;
if (skip && process.env.CI) throw new Error(`${skip}; CI must have it (npm test installs it)`);

// The worker is found from SIGHTLINE_WORKER, as the npm shim sets it. Verification sessions keep
// their default 5 minute TTL; a test that needs expiry starts a server of its own (TTL 0).
export const env = { ...process.env, SIGHTLINE_WORKER: worker };

/**
 * Starts the scenario site and one MCP client for the calling file (before its tests, closed
 * after them) and returns how its tests reach them.
 */
export function liveSuite() {
  let site;
  let client;
  before(async () => {
    if (skip) return;
    assert.ok(existsSync(binary), `${binary} is missing: cargo build --release -p sightline-cli (or set SIGHTLINE_BIN)`);
    site = await serve();
    const transport = new StdioClientTransport({ command: binary, args: ['--root', repo, 'mcp'], env, stderr: 'pipe' });
    client = new Client({ name: 'sightline-live-test', version: '1.0.0' });
    await client.connect(transport);
  });
  after(async () => {
    if (client) await client.close();
    if (site) await site.close();
  });
  /** A tool's answer (JSON), asserting it succeeded. */
  async function call(name, args = {}, on = client) {
    const result = await on.callTool({ name, arguments: args });
    assert.ok(!result.isError, `${name} failed: ${result.content?.[0]?.text}`);
    return JSON.parse(result.content[0].text);
  }
  return {
    call,
    failure: (name, args, on = client) => toolFailure(on, name, args),
    /** A server of its own (own worker, own browser) with extra environment, closed after `fn`. */
    withServer: (extraEnv, fn, root = repo) => withMcp({ root, env: { ...env, ...extraEnv }, name: 'sightline-live-own-server' }, fn),
    url: (p) => site.origin + p,
    site: () => site,
    client: () => client,
  };
}
