/**
 * The depthwise plane path's band buffer (kernels/dw-plane.ts planeOf): for shapes around its limits, the buffer fits
 * its bytes, every word a pixel pair reads lies inside its row, the bands
 * cover the output rows, and a row too wide for one band of one output row leaves the layer to the row path. The
 * values the path computes are tested on the ISS and the host in conv-rows.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PLANE_BYTES, planeOf, planeRow } from '../../generator/kernels/dw-plane.js';

const out = (n: number, k: number, s: number, p: number): number => Math.floor((n + 2 * p - k) / s) + 1;

test('the band buffer holds every word its pairs read, rows on words, bands covering the map', () => {
  let shapes = 0;
  for (const W of [1, 2, 3, 4, 5, 7, 16, 31, 48, 60, 100, 160]) {
    for (const H of [1, 3, 6, 12, 48]) {
      for (const [KH, DY] of [[1, 1], [2, 1], [3, 1], [3, 2]]) {
        for (const SY of [1, 2]) {
          for (const SX of [1, 2]) {
            for (const P of [0, 1, 2]) {
              const HO = out(H, (KH - 1) * DY + 1, SY, Math.min(P, KH - 1));
              const WO = out(W, 3, SX, P);
              if (HO < 1 || WO < 1) continue;
              const p = planeOf({ N: 1, CO: 16, H, W, HO, WO, KH, SY, SX, DY, PT: Math.min(P, KH - 1), PL: P, cores: 8 });
              if (!p) {
                // Only when one output row's window rows do not fit.
                assert.ok(Math.ceil((P + W) / 4) * 4 * ((KH - 1) * DY + 1) > PLANE_BYTES - 3, `W ${W} KH ${KH}: refused though it fits`);
                continue;
              }
              shapes++;
              const at = `W ${W} H ${H} KH ${KH} DY ${DY} SY ${SY} SX ${SX} P ${P}`;
              assert.ok(p.words * 4 <= PLANE_BYTES, `${at}: ${p.words * 4} bytes`);
              assert.ok(p.off >= 0 && p.off < 4, `${at}: the rows' first byte within a word`);
              assert.is(p.BW % 4, 0, `${at}: rows of whole words`);
              assert.ok(P + W <= p.BW, `${at}: the input inside its row`);
              assert.is(p.BR, (p.R - 1) * SY + (KH - 1) * DY + 1, `${at}: a band's window rows`);
              assert.ok(p.off + p.BR * p.BW <= p.words * 4, `${at}: the rows inside the buffer`);
              // The words read: at stride 1 one at each pair's first column (pixel 1 takes it a lane down) and a lone
              // last pixel's; at stride 2 one at each pixel's column ox x SX.
              for (let ox = 0; ox < WO; ox += SX === 1 ? 2 : 1) assert.ok(ox * SX + 3 < p.BW, `${at}: pixel ${ox}'s word`);
              assert.ok(p.bands * p.R >= HO && (p.bands - 1) * p.R < HO, `${at}: ${p.bands} bands of ${p.R} for ${HO} rows`);
              assert.is(p.units, 16 * p.bands);
            }
          }
        }
      }
    }
  }
  assert.ok(shapes > 500, `${shapes} shapes`);
});

test('a row of pairs: all in the loop, a lone last pixel with one word and one dot product per window row', () => {
  assert.equal(planeRow(6, 1), { ix0: 0, ix1: 6, edge: 0, words: 3, dots: 6 });
  assert.equal(planeRow(7, 1), { ix0: 0, ix1: 6, edge: 0, words: 4, dots: 7 });
  assert.equal(planeRow(3, 2), { ix0: 0, ix1: 2, edge: 0, words: 3, dots: 3 });
  assert.equal(planeRow(1, 2), { ix0: 0, ix1: 0, edge: 0, words: 1, dots: 1 });
});

test('the rows aligned for the fewest words off a word: window words against the copies\' stores', () => {
  // Stride 1, pad 1, 16 wide: pairs at columns 0, 2, .. 14 read a word each (8 a window row). Column 0 on a word:
  // the pairs at 2, 6, 10, 14 off (4 a window row, 12 an output row); each copied row's 2 x 2 words go to column 1,
  // off a word. Any other alignment puts all 8 pairs' words off: 24 an output row.
  const p = planeOf({ N: 1, CO: 64, H: 16, W: 16, HO: 16, WO: 16, KH: 3, SY: 1, SX: 1, DY: 1, PT: 1, PL: 1, cores: 8 })!;
  assert.is(p.bands, 1);
  assert.is(p.off, 0);
  assert.is(p.misaligned.row, 12);
  // 64 channels x 16 rows copied once (one band) x 4 words stored off a word; the input rows start on words.
  assert.is(p.misaligned.fills, 64 * 16 * 4);
  // No padding, stride 1: column 0 is the input's first byte; aligned, every copy and the even pairs' words on words.
  const q = planeOf({ N: 1, CO: 1, H: 8, W: 8, HO: 6, WO: 6, KH: 3, SY: 1, SX: 1, DY: 1, PT: 0, PL: 0, cores: 8 })!;
  assert.is(q.off, 0);
  assert.is(q.misaligned.row, 3 * 1);
  assert.is(q.misaligned.fills, 0);
});

test('more bands while the cores would idle; one band where the channels keep them busy', () => {
  const few = planeOf({ N: 1, CO: 2, H: 12, W: 12, HO: 12, WO: 12, KH: 3, SY: 1, SX: 1, DY: 1, PT: 1, PL: 1, cores: 8 })!;
  assert.ok(few.units >= 8, `${few.units} units`);
  const many = planeOf({ N: 1, CO: 64, H: 6, W: 6, HO: 6, WO: 6, KH: 3, SY: 1, SX: 1, DY: 1, PT: 1, PL: 1, cores: 8 })!;
  assert.is(many.bands, 1);
  // One band: the padding's rows are never filled (the first zeroing stands); the input's six rows a channel are.
  assert.equal(many.fills, { rows: 64 * 6, words: 64 * 6 * 2 });
});

test.run();
