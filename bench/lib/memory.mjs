// In-memory comparisons: both screenshots already decoded to RGBA, so only the compare is timed.
//
// Every tool gets the same options: threshold 0.1 and anti-aliasing detection on, with AA
// pixels not counted (pixelmatch `includeAA: false`). Two modes: counting only, and also
// writing the diff image; the anchors write into one output buffer allocated up front, ours
// returns a fresh Buffer because that is what its API does.

import { diff as blazediff } from '@blazediff/core';
import pixelmatch from 'pixelmatch';

export const THRESHOLD = 0.1;

/** The floor: one pass over two identical RGBA buffers (Buffer.compare is a native memcmp). */
export function floorTool(images) {
  return {
    name: 'floor: Buffer.compare (memcmp)',
    kind: 'floor',
    // The floor does not depend on the case (it always reads two identical buffers), so it is
    // timed once per group, interleaved with the identical case.
    cases: ['identical'],
    run: () => {
      if (Buffer.compare(images.base.data, images.identical.data) !== 0) {
        throw new Error('base and identical renders differ byte-wise, so memcmp is not a full pass');
      }
      return { count: null };
    },
  };
}

function anchorTools(output) {
  const options = { threshold: THRESHOLD, includeAA: false };
  return [
    {
      name: 'pixelmatch',
      kind: 'reference',
      run: ({ a, b, width, height }) => ({ count: pixelmatch(a, b, output, width, height, options) }),
    },
    {
      name: '@blazediff/core',
      kind: 'anchor',
      // Its default fastBufferCheck (a Buffer.compare before any work) is part of what makes it
      // fast on identical images; left on, as users get it.
      run: ({ a, b, width, height }) => ({ count: blazediff(a, b, output, width, height, options) }),
    },
  ];
}

function ourTools(addon, withImage) {
  const tools = [
    {
      name: 'sightline addon comparePixelsSync',
      kind: 'ours',
      run: ({ a, b, width, height }) => {
        const result = addon.comparePixelsSync(a, b, width, height, {
          threshold: THRESHOLD,
          includeAa: false,
          diffImage: withImage,
        });
        if (withImage && !result.diffImage) throw new Error('comparePixelsSync returned no diffImage');
        return { count: result.diffPixels };
      },
    },
  ];
  // Full evidence (regions, shift, shape) is only timed in the counting mode: the spec's
  // "≤ 100 ms on the banner shift" target is about computing it, not about drawing it.
  if (!withImage && typeof addon.compareImagesSync === 'function') {
    tools.push({
      name: 'sightline addon compareImagesSync (full evidence)',
      kind: 'ours-evidence',
      run: ({ a, b, width, height }) => {
        const result = addon.compareImagesSync({ data: a, width, height }, { data: b, width, height }, {
          threshold: THRESHOLD,
          includeAa: false,
        });
        // The addon wraps the core's evidence as `{ evidence, diffImage? }`.
        const evidence = result.evidence ?? result;
        return { count: evidence.diffPixels ?? null, note: describeEvidence(evidence) };
      },
    });
  }
  return tools;
}

/** A short summary of the evidence, printed so a wrong shift or shape is visible in the table. */
function describeEvidence(evidence) {
  const parts = [];
  if (Array.isArray(evidence.regions)) parts.push(`${evidence.regions.length} regions`);
  if (evidence.shift) parts.push(`shift ${JSON.stringify(evidence.shift)}`);
  if (evidence.shape) parts.push(`shape ${typeof evidence.shape === 'string' ? evidence.shape : JSON.stringify(evidence.shape)}`);
  return parts.join(', ');
}

/**
 * The in-memory groups. `images` holds decoded screenshots; `ours` is `{ addon }` or
 * `{ missing }`. The shift case compares the first PAGE_HEIGHT rows of the taller shot, a
 * zero-copy view, for every tool alike.
 */
export function memoryGroups(images, ours, height) {
  const { width } = images.base;
  const rows = (image) => image.data.subarray(0, width * height * 4);
  const cases = [
    { name: 'identical', a: images.base.data, b: images.identical.data, width, height },
    { name: 'recolour', a: images.base.data, b: images.recolour.data, width, height },
    { name: 'shift', a: images.base.data, b: rows(images.shift), width, height },
  ];
  const output = new Uint8Array(width * height * 4);
  const floor = floorTool(images);
  const group = (title, key, tools) => ({ title, key, cases, tools: [floor, ...tools] });
  return [
    group('in-memory compare, count only (no diff image)', 'memory-count',
      [...anchorTools(null), ...(ours.addon ? ourTools(ours.addon, false) : [])]),
    group('in-memory compare, also writing the diff image (anchors: into one preallocated buffer)', 'memory-image',
      [...anchorTools(output), ...(ours.addon ? ourTools(ours.addon, true) : [])]),
  ];
}
