#!/usr/bin/env node
// Draws Breakwater's icons as PNGs with a tiny encoder (zlib + CRC32), no image libraries:
//   resources/tray-<level>.png, @2x   colour tray icons (Windows, Linux)
//   resources/tray-<level>Template.png, @2x   macOS menu-bar Template images (black + alpha)
//   resources/icon.png, build/icon.png (512x512 app icon; electron-builder derives .icns/.ico)
// Levels: ok (filled disc), degraded (half-filled ring), open (broken ring), stopped (thin ring).
// Shapes differ per level, so the state reads without colour too. Run: node scripts/make-icons.mjs
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** RGBA pixels (Uint8Array, width*height*4) → PNG bytes. */
export function encodePng(width, height, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // filter: none
    Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(
      raw,
      y * (width * 4 + 1) + 1,
    );
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Renders `coverage(x, y)` (0..1 in unit coordinates) with 4x4 supersampling. */
function render(size, color, coverage) {
  const px = new Uint8Array(size * size * 4);
  const S = 4;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let hit = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const u = (x + (sx + 0.5) / S) / size;
          const v = (y + (sy + 0.5) / S) / size;
          hit += coverage(u, v);
        }
      }
      const a = hit / (S * S);
      const [r, g, b] = color(x / size, y / size);
      const i = (y * size + x) * 4;
      px[i] = r;
      px[i + 1] = g;
      px[i + 2] = b;
      px[i + 3] = Math.round(a * 255);
    }
  }
  return encodePng(size, size, px);
}

const LEVELS = {
  ok: [0x2f, 0x9e, 0x6e],
  degraded: [0xd8, 0x96, 0x14],
  open: [0xd6, 0x45, 0x45],
  stopped: [0x8a, 0x96, 0xa6],
};

/** Tray glyphs in unit coordinates, centred, radius 0.42. */
const SHAPES = {
  ok: (u, v) => (Math.hypot(u - 0.5, v - 0.5) <= 0.42 ? 1 : 0),
  degraded: (u, v) => {
    const d = Math.hypot(u - 0.5, v - 0.5);
    if (d > 0.42) return 0;
    return d >= 0.3 || v >= 0.5 ? 1 : 0;
  },
  open: (u, v) => {
    const d = Math.hypot(u - 0.5, v - 0.5);
    if (d > 0.42 || d < 0.28) return 0;
    // A gap at the top right: the circuit is broken.
    const angle = Math.atan2(0.5 - v, u - 0.5);
    return angle > 0.35 && angle < 1.25 ? 0 : 1;
  },
  stopped: (u, v) => {
    const d = Math.hypot(u - 0.5, v - 0.5);
    return d <= 0.42 && d >= 0.33 ? 1 : 0;
  },
};

function roundedSquare(u, v, r) {
  const dx = Math.max(Math.abs(u - 0.5) - (0.5 - r - 0.04), 0);
  const dy = Math.max(Math.abs(v - 0.5) - (0.5 - r - 0.04), 0);
  return Math.hypot(dx, dy) <= r ? 1 : 0;
}

/** App icon: deep blue tile with three white waves breaking against a wall on the left. */
function appIcon(size) {
  const waveAt = (u, v) => {
    for (const [y0, amp] of [
      [0.36, 0.035],
      [0.52, 0.04],
      [0.68, 0.035],
    ]) {
      const y = y0 + amp * Math.sin((u - 0.2) * Math.PI * 4);
      if (u > 0.3 && u < 0.84 && Math.abs(v - y) < 0.035) return true;
    }
    return u > 0.18 && u < 0.26 && v > 0.24 && v < 0.78;
  };
  return render(
    size,
    (x, y) => {
      if (waveAt(x + 0.5 / size, y + 0.5 / size)) return [0xf4, 0xf8, 0xff];
      const t = y;
      return [
        Math.round(0x1d + 0x10 * t),
        Math.round(0x4e + 0x20 * t),
        Math.round(0x9c + 0x30 * t),
      ];
    },
    (u, v) => roundedSquare(u, v, 0.2),
  );
}

function write(file, bytes) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, bytes);
}

for (const [level, rgb] of Object.entries(LEVELS)) {
  const shape = SHAPES[level];
  for (const [suffix, size] of [
    ['', 16],
    ['@2x', 32],
  ]) {
    write(
      join(ROOT, 'resources', `tray-${level}${suffix}.png`),
      render(size, () => rgb, shape),
    );
    write(
      join(ROOT, 'resources', `tray-${level}Template${suffix}.png`),
      render(size, () => [0, 0, 0], shape),
    );
  }
}
const icon = appIcon(512);
write(join(ROOT, 'resources', 'icon.png'), icon);
write(join(ROOT, 'build', 'icon.png'), icon);
process.stdout.write('icons written to resources/ and build/\n');
