// GFS naming: runs, steps, NOAA's object keys and file names, the fields a profile needs, and
// the global 0.25° grid. Pure functions; the golden URL tests pin these.
import { SURFACE_FIELDS, type SurfaceVariable } from '../atmosphere/index.js'
import type { GribField, LatLonGrid } from '../grib/index.js'

export const HOUR_MS = 3_600_000

/** One (run, step) pair: `run` is the model run time in epoch ms (00/06/12/18 UTC). */
export interface RunStep {
  run: number
  step: number
}

export function validTime (rs: RunStep): number {
  return rs.run + rs.step * HOUR_MS
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0')

/** 'YYYYMMDD' of a UTC instant. */
export function dayText (ms: number): string {
  const d = new Date(ms)
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1, 2)}${pad(d.getUTCDate(), 2)}`
}

/** 'HH' of a run. */
export function cycleText (run: number): string {
  return pad(new Date(run).getUTCHours(), 2)
}

/** 'YYYYMMDDHH', the run id used in unit keys and NOAA's `d=` inventory field. */
export function runText (run: number): string {
  return dayText(run) + cycleText(run)
}

/** Epoch ms of 'YYYYMMDD' + hour; NaN when not a date. */
export function runFromText (day: string, hour: number): number {
  if (!/^\d{8}$/.test(day) || !(hour >= 0 && hour < 24)) return NaN
  const ms = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8)), hour)
  return dayText(ms) === day ? ms : NaN
}

/** `gfs.tCCz.pgrb2.0p25.fFFF` */
export function fileName (rs: RunStep): string {
  return `gfs.t${cycleText(rs.run)}z.pgrb2.0p25.f${pad(rs.step, 3)}`
}

export const FILE_NAME = /^gfs\.t(\d\d)z\.pgrb2\.0p25\.f(\d{3,4})$/

/** The directory of a run in both NOAA layouts: `gfs.YYYYMMDD/CC/atmos`. */
export function runDirectory (run: number): string {
  return `gfs.${dayText(run)}/${cycleText(run)}/atmos`
}

/** Object key in the bucket layout: `gfs.YYYYMMDD/CC/atmos/gfs.tCCz.pgrb2.0p25.fFFF`. */
export function bucketKey (rs: RunStep): string {
  return `${runDirectory(rs.run)}/${fileName(rs)}`
}

/** (run, step) of a bucket key, or null for any other object. */
export function parseBucketKey (key: string): RunStep | null {
  const m = /^gfs\.(\d{8})\/(\d\d)\/atmos\/(gfs\.t\d\dz\.pgrb2\.0p25\.f\d{3,4})$/.exec(key)
  if (m === null) return null
  const f = FILE_NAME.exec(m[3]) as RegExpExecArray
  if (f[1] !== m[2]) return null
  const run = runFromText(m[1], Number(m[2]))
  return Number.isNaN(run) || Number(m[2]) % 6 !== 0 ? null : { run, step: Number(f[2]) }
}

/** The variables a profile reads on isobaric levels; SPFH or RH gives the humidity. */
export const PROFILE_VARIABLES = ['HGT', 'TMP', 'UGRD', 'VGRD'] as const
export const HUMIDITY_VARIABLES = ['SPFH', 'RH'] as const

/** GRIB2 level types (code table 4.5) of a unit's fields. */
export const LEVEL_SURFACE = 1
export const LEVEL_ISOBARIC = 100
export const LEVEL_ABOVE_GROUND = 103

const SURFACE_LAYER_NAMES: Readonly<Record<SurfaceVariable, string>> = {
  pressure: 'PRES',
  temperature: 'TMP',
  specific_humidity: 'SPFH',
  relative_humidity: 'RH',
  wind_u: 'UGRD',
  wind_v: 'VGRD'
}

/** A near-ground field of the surface layer as GFS files hold it. */
export interface SurfaceLayerRecord {
  name: string
  /** LEVEL_SURFACE (pressure at the surface) or LEVEL_ABOVE_GROUND. */
  type: number
  /** Metres above ground; 0 at the surface. */
  value: number
  /** The level as a NOAA `.idx` line names it. */
  idxLevel: string
}

/**
 * The GRIB2 record of each near-ground field of the surface layer (docs/DESIGN.md §8), in
 * SURFACE_FIELDS' order: every unit carries them beside the pressure levels (RH at 2 m only
 * where SPFH at 2 m is absent), whether or not a request asks for the layer.
 */
export const SURFACE_LAYER_RECORDS: readonly SurfaceLayerRecord[] = SURFACE_FIELDS.map(([variable, h]) => ({
  name: SURFACE_LAYER_NAMES[variable],
  type: h === 0 ? LEVEL_SURFACE : LEVEL_ABOVE_GROUND,
  value: h,
  idxLevel: h === 0 ? 'surface' : `${h} m above ground`
}))

/** The heights (m) above ground of the surface layer's fields, ascending: the grib filter's levels. */
const ABOVE_GROUND_HEIGHTS = [...new Set(SURFACE_LAYER_RECORDS.filter((r) => r.value > 0).map((r) => r.value))]
  .sort((a, b) => a - b)

/**
 * Which SURFACE_LAYER_RECORDS entry a field is, or −1. A single level only (a layer has a second
 * surface); a surface's level value is missing in GFS files, so its type alone says it.
 */
export function surfaceLayerIndex (f: GribField): number {
  if (f.level2 !== null && f.level2.type !== 255) return -1
  return SURFACE_LAYER_RECORDS.findIndex((r) => r.name === f.name && r.type === f.level.type &&
    (r.type === LEVEL_SURFACE || r.value === f.level.value))
}

/**
 * Isobaric levels (hPa) asked of the grib filter: the 41 levels of current GFS, which include
 * all 34 of GFS v15. The filter ignores levels a file does not have.
 */
export const FILTER_LEVELS_HPA = [
  0.01, 0.02, 0.04, 0.07, 0.1, 0.2, 0.4, 0.7, 1, 2, 3, 5, 7, 10, 15, 20, 30, 40, 50, 70, 100, 150, 200,
  250, 300, 350, 400, 450, 500, 550, 600, 650, 700, 750, 800, 850, 900, 925, 950, 975, 1000
] as const

/** The global GFS 0.25° grid as the bucket and NOMADS hold it (north to south, 0..359.75 E). */
export const GLOBAL_0P25: LatLonGrid = {
  template: 0,
  ni: 1440,
  nj: 721,
  numberOfPoints: 1440 * 721,
  la1: 90,
  lo1: 0,
  la2: -90,
  lo2: 359.75,
  di: 0.25,
  dj: 0.25,
  scanningMode: 0,
  shapeOfEarth: 6,
  earthRadius: 6371229,
  south: -90,
  north: 90,
  west: 0,
  east: 359.75,
  global: true
}

/** A grib-filter tile: `size` grid points square, indexed from the global grid's SW corner. */
export interface Tile {
  size: number // points per side
  tj: number
  ti: number
  bottomlat: number
  toplat: number
  leftlon: number
  rightlon: number
}

/** The tile holding global grid point (i, j); tiles never straddle 0° E nor leave the grid. */
export function tileOf (i: number, j: number, size: number): Tile {
  const g = GLOBAL_0P25
  const tj = Math.floor(j / size)
  const ti = Math.floor(i / size)
  const bottomlat = g.south + tj * size * g.dj
  const leftlon = ti * size * g.di
  return {
    size,
    tj,
    ti,
    bottomlat,
    toplat: Math.min(g.north, bottomlat + (size - 1) * g.dj),
    leftlon,
    rightlon: Math.min(g.east, leftlon + (size - 1) * g.di)
  }
}

/**
 * The NOMADS grib-filter query for one (run, step, tile): the profile's variables (both SPFH
 * and RH, since GFS v15 lacks isobaric SPFH), every isobaric level, the surface (for HGT), and the
 * tile box. Parameter order is fixed so URLs are stable (golden tests pin it).
 */
export function filterQuery (rs: RunStep, tile: Tile): string {
  const parts = [`dir=${encodeURIComponent('/' + runDirectory(rs.run))}`, `file=${fileName(rs)}`]
  const names = new Set<string>([...PROFILE_VARIABLES, ...HUMIDITY_VARIABLES,
    ...SURFACE_LAYER_RECORDS.map((r) => r.name)])
  for (const v of [...names].sort()) parts.push(`var_${v}=on`)
  for (const hpa of FILTER_LEVELS_HPA) parts.push(`lev_${hpa}_mb=on`)
  parts.push('lev_surface=on')
  // the filter takes every chosen variable at every chosen level where the file has it: the
  // near-ground heights bring the surface layer's fields (and RH at 2 m beside SPFH, a tile's worth)
  for (const h of ABOVE_GROUND_HEIGHTS) {
    parts.push(`lev_${h}_m_above_ground=on`)
  }
  parts.push('subregion=', `leftlon=${tile.leftlon}`, `rightlon=${tile.rightlon}`, `toplat=${tile.toplat}`,
    `bottomlat=${tile.bottomlat}`)
  return parts.join('&')
}

/** Unit keys double as cache paths: only [A-Za-z0-9._/-]. */
/** Unit keys formatted so far, by run + step (a run is a whole number of hours in ms, a step < 1000 h). */
const UNIT_KEY_MEMO_LIMIT = 4096
const unitKeyMemo = new Map<number, string>()

export function fileUnitKey (rs: RunStep): string {
  const id = rs.run + rs.step
  let key = unitKeyMemo.get(id)
  if (key === undefined) {
    key = `gfs/${runText(rs.run)}/f${pad(rs.step, 3)}`
    if (unitKeyMemo.size >= UNIT_KEY_MEMO_LIMIT) unitKeyMemo.clear()
    unitKeyMemo.set(id, key)
  }
  return key
}

export function tileUnitKey (rs: RunStep, tile: Tile): string {
  return `${fileUnitKey(rs)}/tile${tile.size}/${tile.tj}_${tile.ti}`
}
