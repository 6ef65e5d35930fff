// Template 5.41 beyond the one real fixture (16-bit gray, Sub and Paeth rows): PNG images built
// here with every row filter, 1 to 4 bytes a pixel, one or several IDAT chunks, checked against
// the pixels they were made from and against fast-png; then the ways a stream can be broken.
import { deflateSync } from 'node:zlib'
import t from 'tap'
import { decode as fastPng } from 'fast-png'
import { decode } from '../../src/grib/png.js'
import type { DataParams } from '../../src/grib/index.js'
import { prng } from './helpers.js'

const rnd = prng(541)
const int = (k: number): number => Math.floor(rnd() * k)

function params (bitsPerValue: number): DataParams {
  return {
    template: 41, numberOfValues: 0, reference: 0, binaryScale: 0, decimalScale: 0, bitsPerValue,
    missingManagement: 0, groups: 0, groupWidthReference: 0, groupWidthBits: 0, groupLengthReference: 0,
    groupLengthIncrement: 0, lastGroupLength: 0, groupLengthBits: 0, spatialOrder: 0, extraOctets: 0
  }
}

function chunk (type: string, body: Uint8Array): Uint8Array {
  const c = new Uint8Array(12 + body.length) // the CRC stays 0: neither decoder checks it
  new DataView(c.buffer).setUint32(0, body.length)
  c.set(Buffer.from(type, 'latin1'), 4)
  c.set(body, 8)
  return c
}

/** The filtered row (PNG spec §9) of `row` under `type`, given the row above (zeros for the first). */
function filter (type: number, row: Uint8Array, above: Uint8Array, bpp: number): Uint8Array {
  const f = new Uint8Array(row.length)
  for (let i = 0; i < row.length; i++) {
    const a = i >= bpp ? row[i - bpp] : 0; const b = above[i]; const c = i >= bpp ? above[i - bpp] : 0
    const p = a + b - c
    const pred = [0, a, b, (a + b) >> 1,
      Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a
        : Math.abs(p - b) <= Math.abs(p - c) ? b : c][type]
    f[i] = (row[i] - pred) & 0xff
  }
  return f
}

interface Image { png: Uint8Array, pixels: Uint8Array, width: number, height: number, bpp: number }

function makePng (width: number, height: number, depth: number, colourType: number, rowFilters: number[],
  idatPieces: number, interlace = 0): Image {
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[colourType] as number
  const bpp = depth * channels / 8
  // smooth-ish pixels, so the Paeth predictor picks each of its three neighbours
  const pixels = new Uint8Array(width * height * bpp)
  for (let i = 0; i < pixels.length; i++) {
    pixels[i] = i >= bpp * width && rnd() < 0.7 ? pixels[i - bpp * width] + int(5) : int(256)
  }
  const raw: number[] = []
  for (let y = 0; y < height; y++) {
    const row = pixels.subarray(y * width * bpp, (y + 1) * width * bpp)
    const above = y === 0 ? new Uint8Array(row.length) : pixels.subarray((y - 1) * width * bpp, y * width * bpp)
    const type = rowFilters[y % rowFilters.length]
    raw.push(type, ...filter(type, row, above, bpp))
  }
  const z = deflateSync(Uint8Array.from(raw))
  const ihdr = new Uint8Array(13)
  const dv = new DataView(ihdr.buffer)
  dv.setUint32(0, width); dv.setUint32(4, height)
  ihdr.set([depth, colourType, 0, 0, interlace], 8)
  const parts = [Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), chunk('IHDR', ihdr)]
  if (colourType === 3) parts.push(chunk('PLTE', new Uint8Array(3 * 256)))
  const step = Math.ceil(z.length / idatPieces)
  for (let o = 0; o < z.length; o += step) parts.push(chunk('IDAT', z.subarray(o, o + step)))
  parts.push(chunk('IEND', new Uint8Array(0)))
  return { png: new Uint8Array(Buffer.concat(parts)), pixels, width, height, bpp } // not a Buffer: slice() copies
}

/** The big-endian value of each pixel, as float32. */
function expected (img: Image): Float32Array {
  const out = new Float32Array(img.width * img.height)
  for (let i = 0; i < out.length; i++) {
    let x = 0
    for (let k = 0; k < img.bpp; k++) x = x * 256 + img.pixels[i * img.bpp + k]
    out[i] = x
  }
  return out
}

function decoded (img: Image, bitsPerValue: number): Float32Array {
  const out = new Float32Array(img.width * img.height)
  decode(params(bitsPerValue), img.png, out)
  return out
}

t.test('every row filter, 1 to 4 bytes a pixel, one or many IDAT chunks', async (t) => {
  const kinds: Array<[number, number, number]> = [ // depth, colour type, bits per value
    [8, 0, 8], [16, 0, 16], [8, 3, 7], [8, 4, 16], [8, 2, 24], [8, 6, 32], [16, 4, 32]
  ]
  for (const [depth, colourType, bits] of kinds) {
    for (const rowFilters of [[0], [1], [2], [3], [4], [3, 4, 2, 1, 0]]) {
      const img = makePng(5 + int(40), 1 + int(9), depth, colourType, rowFilters, 1 + int(3))
      const ours = decoded(img, bits)
      const what = `depth ${depth}, colour type ${colourType}, filters ${rowFilters.join('')}`
      t.same([...ours], [...expected(img)], what)
      const ref = fastPng(img.png) // the decoder used before, still used for interlaced images
      const base = 2 ** ref.depth
      const theirs = ours.map((_, i) => {
        let x = 0
        for (let c = 0; c < ref.channels; c++) x = x * base + ref.data[i * ref.channels + c]
        return x
      })
      t.same([...ours], [...theirs], `${what}: as fast-png`)
    }
  }
})

t.test('values are scaled like simple packing: (R + X·2^E)·10^-D', async (t) => {
  const img = makePng(7, 3, 16, 0, [4], 1)
  const p = { ...params(16), reference: 1.5, binaryScale: -3, decimalScale: 2 }
  const out = new Float32Array(21)
  decode(p, img.png, out)
  t.same([...out], [...expected(img)].map((x) => Math.fround((x * (1 / 2 / 2 / 2) + 1.5) * (1 / 10 / 10))))
})

t.test('an interlaced image goes through fast-png', async (t) => {
  // 1×1: Adam7's first pass holds the only pixel, so the stream is laid out as if not interlaced
  const img = makePng(1, 1, 16, 0, [0], 1, 1)
  t.same([...decoded(img, 16)], [...expected(img)])
})

t.test('a 0-bit field is R itself, whatever section 7 holds', async (t) => {
  const out = new Float32Array(3)
  decode({ ...params(0), reference: 7.25 }, new Uint8Array(0), out)
  t.same([...out], [7.25, 7.25, 7.25])
})

t.test('broken images are corrupt_section (or unsupported_packing), never another error', async (t) => {
  const good = makePng(20, 6, 16, 0, [1, 4], 3)
  const reason = (png: Uint8Array, bits = 16, n = 120): string => {
    try { decode(params(bits), png, new Float32Array(n)) } catch (err) { return (err as { reason: string }).reason }
    return 'decoded'
  }
  const edit = (at: number, ...bytes: number[]): Uint8Array => {
    const b = good.png.slice()
    b.set(bytes, at)
    return b
  }
  t.equal(reason(good.png), 'decoded')
  t.equal(reason(good.png, 16, 121), 'corrupt_section', 'image size is not the grid')
  t.equal(reason(edit(1, 0x51)), 'corrupt_section', 'signature')
  t.equal(reason(edit(25, 5)), 'corrupt_section', 'colour type 5')
  t.equal(reason(edit(24, 12)), 'corrupt_section', 'depth 12')
  t.equal(reason(edit(28, 2)), 'corrupt_section', 'interlace method 2')
  t.equal(reason(edit(11, 14)), 'corrupt_section', 'IHDR of 14 bytes')
  t.equal(reason(good.png, 24), 'unsupported_packing', '16-bit gray for 24-bit values')
  t.equal(reason(edit(24, 4), 4), 'unsupported_packing', '4-bit samples')
  t.equal(reason(good.png.subarray(0, good.png.length - 12)), 'corrupt_section', 'no IEND')
  t.equal(reason(edit(33, 0x7f)), 'corrupt_section', 'a chunk running past section 7')
  t.equal(reason(edit(41, 0, 0, 0, 0)), 'corrupt_section', 'zlib header broken')
  const short = makePng(20, 5, 16, 0, [0], 1).png.slice()
  new DataView(short.buffer).setUint32(20, 6) // says 6 rows, holds 5
  t.equal(reason(short), 'corrupt_section', 'fewer rows than the header says')
  const badFilter = makePng(20, 6, 16, 0, [0], 1)
  const raw = Buffer.alloc(6 * 41)
  raw[41] = 7 // row 1: filter type 7
  const z = deflateSync(raw)
  const png = Buffer.concat([badFilter.png.subarray(0, 33), chunk('IDAT', z), chunk('IEND', new Uint8Array(0))])
  t.equal(reason(png), 'corrupt_section', 'row filter 7')
})
