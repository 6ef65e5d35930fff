// `aloft grib inspect FILE` and `aloft grib value FILE --lat X --lon Y`, with `--json` on both:
// a person's view of what the decoder reads (one line per field, like grib_ls).
import { readFile } from 'node:fs/promises'
import { decodeField, GribError, gridPointIndex, initGrib, PACKING_NAMES, scanMessages } from '../grib/index.js'
import type { GribField } from '../grib/index.js'
import { wantsHelp } from './help.js'
import { EXIT_CODES } from './exit-codes.js'

export interface Io { out: (text: string) => void, err: (text: string) => void }
const stdio: Io = { out: (s) => { process.stdout.write(s) }, err: (s) => { process.stderr.write(s) } }
// `aloft grib inspect big.grib2 | head` closes the pipe early; that is not an error
function quietEpipe (err: NodeJS.ErrnoException): void { if (err.code === 'EPIPE') process.exit(0); else throw err }

const USAGE = `usage: aloft grib inspect FILE [--json]
       aloft grib value FILE --lat X --lon Y [--json]

inspect  one line per field: index, name, level, step, reference time, grid, packing
value    each field's value at the grid point nearest (X, Y) by index rounding, and that point
--json   print a JSON array instead, one record per field. The level is level_type (GRIB2 code
         table 4.5) with level_pa on isobaric levels (type 100, in Pa) and level_value on every
         other level (in the level's own unit; null when it has none).
         inspect: index, name, discipline, category, number, level_type, level_pa | level_value,
           level_name, step_hours, step_end_hours, reference_time, grid (template, ni, nj, south,
           north, west, east, dlat, dlon, scanning_mode), packing, bits_per_value, bitmap,
           message_offset, message_length
         value: name, level_type, level_pa | level_value, step_hours, reference_time, latitude,
           longitude, value (latitude, longitude and value null outside the grid; value null
           where missing)
--help   this text`

class UsageError extends Error {}

interface Options { command: 'inspect' | 'value', file: string, json: boolean, lat: number, lon: number }

function parse (args: string[]): Options {
  const [command, ...rest] = args
  if (command !== 'inspect' && command !== 'value') {
    throw new UsageError(command === undefined ? 'missing command' : `unknown command '${command}'`)
  }
  let file: string | undefined
  let json = false
  let lat = NaN; let lon = NaN
  for (let k = 0; k < rest.length; k++) {
    const a = rest[k]
    if (a === '--json') json = true
    else if (a === '--lat' || a === '--lon') {
      const v = rest[++k]
      const x = v === undefined || v.trim() === '' ? NaN : Number(v)
      if (!Number.isFinite(x)) throw new UsageError(`${a} needs a number, got '${v ?? ''}'`)
      if (a === '--lat') lat = x; else lon = x
    } else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option '${a}'`)
    else if (file === undefined) file = a
    else throw new UsageError(`unexpected argument '${a}'`)
  }
  if (file === undefined) throw new UsageError('missing FILE')
  if (command === 'value') {
    if (Number.isNaN(lat) || Number.isNaN(lon)) throw new UsageError('value needs --lat and --lon')
    if (lat < -90 || lat > 90) throw new UsageError(`--lat ${lat} is outside -90..90`)
  } else if (!Number.isNaN(lat) || !Number.isNaN(lon)) throw new UsageError('--lat/--lon apply to value only')
  return { command, file, json, lat, lon }
}

function levelText (f: GribField): string {
  const v = f.level.value
  if (f.level.type === 100 && v !== null) return `${v / 100} hPa (${v} Pa)`
  return v === null || f.level.type === 1 ? f.level.name : `${f.level.name} ${v}`
}

function stepText (f: GribField): string {
  return f.stepEndHours === f.stepHours ? `${f.stepHours}h` : `${f.stepHours}-${f.stepEndHours}h`
}

function gridText (f: GribField): string {
  const g = f.grid
  return `regular_ll ${g.ni}x${g.nj} ${g.dj}x${g.di}deg lat ${g.south}..${g.north} lon ${g.west}..${g.east} scan ` +
    `${g.scanningMode}`
}

function packingText (f: GribField): string {
  return `${PACKING_NAMES[f.packing] ?? `5.${f.packing} (unsupported)`} ` +
    `${f.bitsPerValue ?? "?"}bit${f.bitmapIndicator === 255 ? '' : ' bitmap'}`
}

function levelJson (f: GribField): Record<string, unknown> {
  return { level_type: f.level.type,
    ...(f.level.type === 100 ? { level_pa: f.level.value } : { level_value: f.level.value }) }
}

function inspect (fields: GribField[], json: boolean, io: Io): void {
  if (json) {
    io.out(JSON.stringify(fields.map((f) => ({
      index: f.index,
      name: f.name,
      discipline: f.discipline,
      category: f.category,
      number: f.number,
      ...levelJson(f),
      level_name: f.level.name,
      step_hours: f.stepHours,
      step_end_hours: f.stepEndHours,
      reference_time: f.referenceTime,
      grid: { template: f.grid.template, ni: f.grid.ni, nj: f.grid.nj, south: f.grid.south, north: f.grid.north,
        west: f.grid.west, east: f.grid.east, dlat: f.grid.dj, dlon: f.grid.di, scanning_mode: f.grid.scanningMode },
      packing: f.packing,
      bits_per_value: f.bitsPerValue,
      bitmap: f.bitmapIndicator !== 255,
      message_offset: f.offset,
      message_length: f.length
    })), null, 1) + '\n')
    return
  }
  for (const f of fields) {
    io.out(`${String(f.index + 1).padStart(4)}  ${f.name.padEnd(6)} ${levelText(f).padEnd(28)} ` +
      `${stepText(f).padEnd(7)} ${f.referenceTime}  ${gridText(f)}  ${packingText(f)}\n`)
  }
}

async function value (bytes: Uint8Array, fields: GribField[], o: Options, io: Io): Promise<void> {
  await initGrib()
  const rows = []
  let out = new Float32Array(0)
  for (const f of fields) {
    if (out.length < f.grid.numberOfPoints) out = new Float32Array(f.grid.numberOfPoints)
    const p = gridPointIndex(f.grid, o.lat, o.lon)
    let v: number | null = null
    if (p !== null) {
      const x = decodeField(bytes, f, out)[p.index]
      v = Number.isNaN(x) ? null : x
    }
    rows.push({
      name: f.name,
      ...levelJson(f),
      step_hours: f.stepHours,
      reference_time: f.referenceTime,
      latitude: p?.latitude ?? null,
      longitude: p?.longitude ?? null,
      value: v,
      field: f
    })
  }
  if (o.json) {
    io.out(JSON.stringify(rows.map(({ field, ...r }) => r), null, 1) + '\n')
    return
  }
  for (const r of rows) {
    const at = r.latitude === null ? 'outside the grid' : `at ${r.latitude}, ${r.longitude}`
    io.out(`${String(r.field.index + 1).padStart(4)}  ${r.field.name.padEnd(6)} ${levelText(r.field).padEnd(28)} ` +
      `${stepText(r.field).padEnd(7)} ${String(r.value ?? 'missing').padEnd(14)} ${at}\n`)
  }
}

export async function run (args: string[], io: Io = stdio): Promise<number> {
  if (io === stdio) process.stdout.once('error', quietEpipe)
  if (wantsHelp(args)) {
    io.out(`${USAGE}\n`)
    return 0
  }
  let o: Options
  try {
    o = parse(args)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    io.err(`aloft grib: ${err.message}\n\n${USAGE}\n`)
    return 2
  }
  let bytes: Uint8Array
  try {
    bytes = new Uint8Array(await readFile(o.file))
  } catch (err) {
    // a file that is not there or not readable is the caller's argument to fix, not a bug (exit 1)
    io.err(`aloft grib: cannot read ${o.file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`)
    return EXIT_CODES.usage.code
  }
  try {
    const fields = scanMessages(bytes)
    if (o.command === 'inspect') inspect(fields, o.json, io)
    else await value(bytes, fields, o, io)
    return 0
  } catch (err) {
    if (!(err instanceof GribError)) throw err
    io.err(`aloft grib: ${o.file}: ${err.message} [${err.reason}]\n`)
    return 1
  }
}
