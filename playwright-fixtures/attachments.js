// What a finished toMatchVisual call attaches, as toHaveScreenshot attaches: not copied, so the
// reporters print real paths. Shared with the bench, which times the matcher's steps one by one.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/**
 * The outcome's attachments as the test takes them, in their order: an inline body as it is, a
 * project file (the baseline) by its path, an output file (the actual image, the diff) written
 * into the test's output folder — all of them at once — and taken by that path. Started as soon
 * as the call is decided, the files are written while the page is put back; a file that could
 * not be written rejects the promise, which the call awaits.
 */
function writeAttachments(testInfo, attachments) {
  const written = Promise.all(attachments.map(async (attachment) => {
    const { name, contentType } = attachment;
    if (attachment.kind === 'inline') return { name, body: Buffer.from(attachment.body), contentType };
    if (attachment.kind === 'projectFile') return { name, path: attachment.path, contentType };
    return { name, path: await writeOutputFile(testInfo, name, attachment.body), contentType };
  }));
  // Awaited later by `attachOutcome`: not an unhandled rejection meanwhile.
  written.catch(() => {});
  return written;
}

/** Attaches the outcome's attachments to the test; `written`: their writes, if already started. */
async function attachOutcome(testInfo, attachments, written = writeAttachments(testInfo, attachments)) {
  testInfo.attachments.push(...(await written));
}

/** Writes `body` as `file` in the test's output folder; returns its path. */
async function writeOutputFile(testInfo, file, body) {
  const where = testInfo.outputPath(file);
  try {
    await fs.promises.mkdir(path.dirname(where), { recursive: true });
    await fs.promises.writeFile(where, body);
  } catch (err) {
    err.message = `could not write ${file} into the test's output folder (${where}): ${err.message}; `
      + 'make the folder writable, free space on its disk, or set another with `outputDir`';
    throw err;
  }
  return where;
}

module.exports = { attachOutcome, writeAttachments };
