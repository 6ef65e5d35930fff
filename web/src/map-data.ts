// The offline map's data files (built by scripts/map-data.mjs, served by aloft under hashed names):
// JSON holding gzip bytes in base64, unpacked with the browser's own gzip. The lines come as one
// binary block of varint deltas, already in Web Mercator, read here straight into typed arrays:
// the map draws them without parsing or projecting anything.

/** Set by scripts/build.mjs: the hashed URL of each file. */
declare const MAP_DATA: { lines: string, places: string }

/** A town: name, latitude, longitude, population (the file lists the biggest first). */
export type Place = [string, number, number, number]

export interface LineLayer {
  name: string
  /** Polygons are filled (all rings together, even-odd: holes stay open); lines are stroked. */
  kind: 'polygons' | 'lines'
  /** Part k's points are xy[2 * start[k]] … xy[2 * start[k + 1] − 1]. */
  start: Uint32Array
  /** Web Mercator x, y in [0, 1] of the whole world, interleaved. */
  xy: Float64Array
  /** Each part's box: minimum x, minimum y, maximum x, maximum y. */
  box: Float64Array
}

const B64 = new Uint8Array(128)
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) {
  B64[c.charCodeAt(0)] = i
}

/** Base64 to bytes (atob builds a string a char at a time; this is ~10× faster on a megabyte). */
function fromBase64 (s: string): Uint8Array<ArrayBuffer> {
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0
  const out = new Uint8Array((s.length / 4) * 3 - pad)
  let o = 0
  for (let i = 0; i < s.length; i += 4) {
    const n = (B64[s.charCodeAt(i)] << 18) | (B64[s.charCodeAt(i + 1)] << 12) |
      (B64[s.charCodeAt(i + 2)] << 6) | B64[s.charCodeAt(i + 3)]
    out[o++] = n >> 16
    if (o < out.length) out[o++] = (n >> 8) & 255
    if (o < out.length) out[o++] = n & 255
  }
  return out
}

async function unpack (url: string, what: string, content: string): Promise<Response> {
  const res = await fetch(url)
  if (!res.ok) throw new Error(`the map's ${what} did not load (HTTP ${res.status})`)
  const packed = await res.json() as { content: string, encoding: string, data: string }
  if (packed.encoding !== 'gzip+base64' || packed.content !== content) {
    throw new Error(`the map's ${what} come in an unknown form`)
  }
  const stream = new Blob([fromBase64(packed.data)]).stream().pipeThrough(new DecompressionStream('gzip'))
  return new Response(stream)
}

export async function loadPlaces (): Promise<Place[]> {
  return await (await unpack(MAP_DATA.places, 'place names', 'json')).json() as Place[]
}

export async function loadLines (): Promise<LineLayer[]> {
  const bytes = new Uint8Array(await (await unpack(MAP_DATA.lines, 'coastlines and borders', 'aloft-map-lines'))
    .arrayBuffer())
  const headerLength = new DataView(bytes.buffer).getUint32(0, true)
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + headerLength))) as {
    world: number, layers: Array<{ name: string, kind: LineLayer['kind'], parts: number, points: number }>
  }
  let at = 4 + headerLength
  /** The next zigzag varint (every value in the file is below 2^28, so 32-bit arithmetic holds). */
  const next = (): number => {
    let z = 0
    let shift = 0
    let b: number
    do {
      b = bytes[at++]
      z |= (b & 0x7f) << shift
      shift += 7
    } while (b >= 0x80)
    return (z >>> 1) ^ -(z & 1)
  }
  const unit = 1 / header.world
  let x = 0
  let y = 0
  const out: LineLayer[] = []
  for (const { name, kind, parts, points } of header.layers) {
    const start = new Uint32Array(parts + 1)
    for (let k = 0; k < parts; k++) start[k + 1] = start[k] + next()
    const xy = new Float64Array(points * 2)
    for (let i = 0; i < 2 * points; i += 2) {
      x += next()
      y += next()
      xy[i] = x * unit
      xy[i + 1] = y * unit
    }
    out.push({ name, kind, start, xy, box: boxes(start, xy) })
  }
  return out
}

function boxes (start: Uint32Array, xy: Float64Array): Float64Array {
  const box = new Float64Array((start.length - 1) * 4)
  for (let k = 0; k + 1 < start.length; k++) {
    let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity]
    for (let i = start[k]; i < start[k + 1]; i++) {
      const x = xy[2 * i]
      const y = xy[2 * i + 1]
      if (x < x0) x0 = x
      if (x > x1) x1 = x
      if (y < y0) y0 = y
      if (y > y1) y1 = y
    }
    box.set([x0, y0, x1, y1], 4 * k)
  }
  return box
}
