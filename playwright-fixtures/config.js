// `.sightline/config.json`: every key optional, unknown keys and wrong types are a clear error
// naming the key (01-product.md, config table). Matcher options override it per call.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** key → [type check, description of the expected value, default] */
const KEYS = {
  reportDir: [(v) => typeof v === 'string' && v.length > 0, 'a folder path string', 'visual-report'],
  threshold: [(v) => typeof v === 'number' && v >= 0 && v <= 1, 'a number from 0 to 1', 0.1],
  antialiasing: [(v) => typeof v === 'boolean', 'true or false', true],
  maxDiffPixels: [(v) => Number.isInteger(v) && v >= 0, 'a whole number ≥ 0', undefined],
  maxDiffPixelRatio: [(v) => typeof v === 'number' && v >= 0 && v <= 1, 'a number from 0 to 1', undefined],
  noiseAutoPass: [(v) => typeof v === 'boolean', 'true or false', false],
  fullPage: [(v) => typeof v === 'boolean', 'true or false', true],
  mask: [(v) => Array.isArray(v) && v.every((s) => typeof s === 'string'), 'an array of CSS selector strings', []],
  ignoreSelectors: [(v) => Array.isArray(v) && v.every((s) => typeof s === 'string'), 'an array of CSS selector strings', []],
  mcpApprovalPrompt: [(v) => typeof v === 'boolean', 'true or false', true],
  styleProperties: [(v) => Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string'), 'a non-empty array of CSS longhand names', undefined],
  writeMissingBaselines: [(v) => typeof v === 'boolean', 'true or false', false],
  shardMode: [(v) => v === 'compare' || v === 'capture-only', '"compare" or "capture-only"', 'compare'],
};

/** Checks one settings object (config file or matcher options) and returns it. */
function validate(settings, where, allowed = Object.keys(KEYS)) {
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) {
    throw new Error(`${where}: expected a JSON object of settings, e.g. {"threshold": 0.1}`);
  }
  for (const [key, value] of Object.entries(settings)) {
    if (!allowed.includes(key)) {
      throw new Error(`${where}: unknown key "${key}"; known keys are ${allowed.join(', ')}`);
    }
    const [check, expected] = KEYS[key] ?? [() => true];
    if (value !== undefined && !check(value)) {
      throw new Error(`${where}: "${key}" must be ${expected}, got ${JSON.stringify(value)}`);
    }
  }
  return settings;
}

/** Reads `<root>/.sightline/config.json` (missing file = all defaults) merged over the defaults. */
function loadConfig(root) {
  const file = path.join(root, '.sightline', 'config.json');
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (e.code !== 'ENOENT') throw new Error(`${file}: cannot read it (${e.message})`);
  }
  let settings = {};
  if (text !== undefined) {
    try {
      settings = JSON.parse(text);
    } catch (e) {
      throw new Error(`${file}: not valid JSON (${e.message}); fix the file or delete it to use the defaults`);
    }
    validate(settings, file);
  }
  const defaults = Object.fromEntries(Object.entries(KEYS).map(([k, [, , d]]) => [k, d]));
  return { ...defaults, ...settings };
}

module.exports = { loadConfig, validate, KEYS };
