// A PNG reader for the motion tests: enough of the format (8-bit RGB or RGBA, not interlaced,
// which is what Chromium's screenshots are) to read a frame's size and the colour at a pixel,
// so a test can say exactly what a captured frame shows.
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';

/** { width, height, pixel(x, y) → [r, g, b], rgba(x, y) → [r, g, b, a] } of the PNG at `file`. */
export function readPng(file) {
  const bytes = readFileSync(file);
  if (bytes.subarray(1, 4).toString('latin1') !== 'PNG') throw new Error(`${file} is not a PNG`);
  let width, height, channels;
  const data = [];
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.subarray(at + 4, at + 8).toString('latin1');
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      const [depth, colour, , , interlace] = body.subarray(8, 13);
      channels = { 2: 3, 6: 4 }[colour];
      if (depth !== 8 || !channels || interlace !== 0) throw new Error(`${file}: only 8-bit RGB(A) without interlace is read here`);
    } else if (type === 'IDAT') {
      data.push(body);
    }
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  // Undo each row's filter (PNG spec §9): none, sub, up, average, Paeth.
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i];
      const a = i >= channels ? pixels[y * stride + i - channels] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + i] : 0;
      const c = i >= channels && y > 0 ? pixels[(y - 1) * stride + i - channels] : 0;
      const paeth = () => {
        const p = a + b - c;
        const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      };
      const predicted = [0, a, b, (a + b) >> 1, filter === 4 ? paeth() : 0][filter];
      pixels[y * stride + i] = (x + predicted) & 0xff;
    }
  }
  return {
    width,
    height,
    pixel: (x, y) => [...pixels.subarray(y * stride + x * channels, y * stride + x * channels + 3)],
    rgba: (x, y) => (channels === 4 ? [...pixels.subarray(y * stride + x * 4, y * stride + x * 4 + 4)] : [...pixels.subarray(y * stride + x * 3, y * stride + x * 3 + 3), 255]),
  };
}
