// `aloft trajectory --lat … --lon … --time …`: asks a running service for a balloon flight and
// prints its launch, burst (or float start) and how it ended; optionally writes the path as GeoJSON or KML.
import { writeFile } from 'node:fs/promises'
import {
  type ErrorItem, fieldPath, inWords, placeInWords, type Problem, type TrajectoryPoint, type TrajectoryRequest,
  type TrajectoryResponse
} from '../contract/index.js'
import { CLIENT_VARIABLES } from '../config/index.js'
import { east, ENSEMBLE_SPREAD_DEFAULTS, ensembleWords, flightMarks, geojson, kml } from '../trajectory/index.js'

export interface Io { out: (text: string) => void, err: (text: string) => void }
const stdio: Io = { out: (s) => { process.stdout.write(s) }, err: (s) => { process.stderr.write(s) } }

const SPREAD = ENSEMBLE_SPREAD_DEFAULTS
const DEFAULT_URL = CLIENT_VARIABLES.find((v) => v.name === 'ALOFT_URL')!.default

const USAGE = `usage: aloft trajectory --lat X --lon Y --time T [options]

  --lat, --lon, --time   launch place (degrees) and time (RFC 3339, e.g. 2020-08-04T12:00:00Z)
  --ascent R             ascent rate, m/s (default 5)
  --burst A              burst altitude, m MSL (default 30000)
  --descent R            descent rate at sea level, m/s (default 5)
  --float A --stop T     a float profile instead: float altitude (m MSL) until time T
  --launch-altitude A    m MSL (default: the model terrain)
  --surface-layer        air from the model ground up: the model's near-ground fields joined under the pressure
                         levels (docs/DESIGN.md §8), as the explorer flies by default
  --dataset RUN          pin a model run (RFC 3339)
  --members N            an ensemble of N members, spread by --ascent-sd (default ${SPREAD.ascent_rate_sd} m/s),
                         --burst-sd (${SPREAD.burst_altitude_sd} m), --descent-sd (${SPREAD.descent_rate_sd} m/s),
                         --seed
  --geojson FILE         write the path (and launch, burst, landing) as GeoJSON
  --kml FILE             write the path as KML
  --json                 print the service's whole answer
  --url URL              the service (default $ALOFT_URL or ${DEFAULT_URL})
  --key KEY              API key (default $ALOFT_API_KEY)`

class UsageError extends Error {}

const NUMBERS: Record<string, string> = {
  '--lat': 'launch_latitude',
  '--lon': 'launch_longitude',
  '--ascent': 'ascent_rate',
  '--burst': 'burst_altitude',
  '--descent': 'descent_rate',
  '--float': 'float_altitude',
  '--launch-altitude': 'launch_altitude',
  '--members': 'members',
  '--ascent-sd': 'ascent_rate_sd',
  '--burst-sd': 'burst_altitude_sd',
  '--descent-sd': 'descent_rate_sd',
  '--seed': 'seed'
}
const TEXTS: Record<string, string> = {
  '--time': 'launch_datetime', '--stop': 'stop_datetime', '--dataset': 'dataset', '--geojson': 'geojson',
  '--kml': 'kml', '--url': 'url', '--key': 'key'
}
const ENSEMBLE = new Set(['members', 'ascent_rate_sd', 'burst_altitude_sd', 'descent_rate_sd', 'seed'])

interface Options {
  request: TrajectoryRequest
  /** σ the ensemble took from ENSEMBLE_SPREAD_DEFAULTS (none given), said before the answer. */
  defaulted: string[]
  url: string
  key: string
  json: boolean
  geojson?: string
  kml?: string
}

function parse (args: string[], env: NodeJS.ProcessEnv): Options {
  const numbers: Record<string, number> = {}
  const texts: Record<string, string> = {}
  let json = false
  let surfaceLayer = false
  for (let k = 0; k < args.length; k++) {
    const a = args[k]
    if (a === '--json') { json = true; continue }
    if (a === '--surface-layer') { surfaceLayer = true; continue }
    const name = NUMBERS[a] ?? TEXTS[a]
    if (name === undefined) throw new UsageError(`unknown option '${a}'`)
    const v = args[++k]
    if (v === undefined) throw new UsageError(`${a} needs a value`)
    if (NUMBERS[a] !== undefined) {
      const x = v.trim() === '' ? NaN : Number(v)
      if (!Number.isFinite(x)) throw new UsageError(`${a} needs a number, got '${v}'`)
      numbers[name] = x
    } else {
      texts[name] = v
    }
  }
  for (const need of ['launch_latitude', 'launch_longitude']) {
    if (numbers[need] === undefined) throw new UsageError(`--${need === 'launch_latitude' ? 'lat' : 'lon'} is required`)
  }
  if (texts.launch_datetime === undefined) throw new UsageError('--time is required')
  const floating = numbers.float_altitude !== undefined || texts.stop_datetime !== undefined
  if (floating && (numbers.float_altitude === undefined || texts.stop_datetime === undefined)) {
    throw new UsageError('a float profile needs both --float and --stop')
  }
  const request: Record<string, unknown> = {
    launch_latitude: numbers.launch_latitude,
    launch_longitude: numbers.launch_longitude,
    launch_datetime: texts.launch_datetime,
    ascent_rate: numbers.ascent_rate ?? 5,
    ...(numbers.launch_altitude !== undefined ? { launch_altitude: numbers.launch_altitude } : {}),
    ...(texts.dataset !== undefined ? { dataset: texts.dataset } : {}),
    ...(floating
      ? { profile: 'float_profile', float_altitude: numbers.float_altitude, stop_datetime: texts.stop_datetime }
      : { burst_altitude: numbers.burst_altitude ?? 30_000, descent_rate: numbers.descent_rate ?? 5 }),
    ...(surfaceLayer ? { surface_layer: true } : {})
  }
  const ensemble = Object.fromEntries(Object.entries(numbers).filter(([n]) => ENSEMBLE.has(n)))
  const defaulted: string[] = []
  if (Object.keys(ensemble).length > 0) {
    if (ensemble.members === undefined) {
      throw new UsageError('--ascent-sd, --burst-sd, --descent-sd and --seed need --members')
    }
    // without any σ every member would be the nominal flight; a float profile has no burst or descent
    const sigmas = ['ascent_rate_sd', 'burst_altitude_sd', 'descent_rate_sd']
    if (ensemble.members > 1 && !sigmas.some((n) => n in ensemble)) {
      const spread = floating ? { ascent_rate_sd: SPREAD.ascent_rate_sd } : SPREAD
      Object.assign(ensemble, spread)
      defaulted.push(...Object.entries(spread).map(([n, v]) => `${n} ${v}`))
    }
    request.ensemble = ensemble
  }
  const key = texts.key ?? env.ALOFT_API_KEY
  if (key === undefined || key === '') throw new UsageError('an API key is needed: --key or ALOFT_API_KEY')
  return {
    request: request as TrajectoryRequest,
    defaulted,
    url: (texts.url ?? (env.ALOFT_URL || DEFAULT_URL)).replace(/\/+$/, ''),
    key,
    json,
    ...(texts.geojson !== undefined ? { geojson: texts.geojson } : {}),
    ...(texts.kml !== undefined ? { kml: texts.kml } : {})
  }
}

/** The option that sets each request field (the inverse of NUMBERS and TEXTS), and its unit. */
const OPTION_OF: Record<string, string> = {
  ...Object.fromEntries(Object.entries({ ...NUMBERS, ...TEXTS }).map(([option, field]) => [field, option])),
  surface_layer: '--surface-layer'
}
const UNITS: Record<string, string> = {
  launch_latitude: '°', launch_longitude: '°', ascent_rate: ' m/s', descent_rate: ' m/s', burst_altitude: ' m',
  float_altitude: ' m', launch_altitude: ' m', ascent_rate_sd: ' m/s', burst_altitude_sd: ' m', descent_rate_sd: ' m/s'
}

/** A 400's entry as a line: "--ascent: Must be more than 0 m/s (got -1)." */
function itemLine (item: ErrorItem): string {
  const path = fieldPath(item.loc)
  const field = String(path[path.length - 1] ?? '')
  const option = path.length > 0 ? OPTION_OF[field] : undefined
  const where = option ?? placeInWords(item.loc)
  const given = item.input === undefined || typeof item.input === 'object' ? '' : ` (got ${JSON.stringify(item.input)})`
  return `${where}: ${inWords(item, UNITS[field] ?? '').replace(/\.$/, '')}${given}.`
}

function describe (label: string, p: TrajectoryPoint): string {
  return `${label.padEnd(8)} ${p.datetime}  ${p.latitude.toFixed(5)}, ${east(p.longitude).toFixed(5)}  ` +
    `${p.altitude.toFixed(1)} m\n`
}

export async function run (args: string[], io: Io = stdio, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(`${USAGE}\n`)
    return 0
  }
  let options: Options
  try {
    options = parse(args, env)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    io.err(`aloft trajectory: ${err.message}\n\n${USAGE}\n`)
    return 2
  }
  if (options.defaulted.length > 0) {
    io.err('aloft trajectory: no σ given, the explorer\'s defaults spread the ensemble: ' +
      `${options.defaulted.join(', ')} (set --ascent-sd, --burst-sd, --descent-sd to choose)\n`)
  }
  let res: Response
  try {
    res = await fetch(`${options.url}/v1/atmosphere/trajectory`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': options.key },
      body: JSON.stringify(options.request)
    })
  } catch (err) {
    io.err(`aloft trajectory: cannot reach ${options.url}: ${(err as Error).message}\n`)
    return 1
  }
  const body = await res.json() as TrajectoryResponse & Partial<Problem>
  if (res.status !== 200) {
    io.err(`aloft trajectory: ${res.status} ${body.title ?? ''}: ${body.detail ?? ''}\n`)
    // each entry under the option that sets its field, in words, as the explorer says it at its input
    for (const item of body.errors ?? []) io.err(`  ${itemLine(item)}\n`)
    return 1
  }
  if (options.json) {
    io.out(`${JSON.stringify(body, null, 2)}\n`)
  } else {
    // the names every reader of a flight uses: the last point is a landing only when it landed
    for (const m of flightMarks(body)) io.out(describe(m.name, m.point))
    for (const [name, w] of Object.entries(body.warnings)) io.out(`warning  ${name} (${w.count}): ${w.description}\n`)
    if (body.ensemble !== undefined) {
      // every member's ending, and a spread only over enough landings to mean one (as the explorer says it)
      const words = ensembleWords(body.ensemble, (lat, lon) => `${lat.toFixed(5)}, ${east(lon).toFixed(5)}`)
      io.out(`ensemble ${words.outcomes} ${words.spread}\n`)
    }
  }
  if (options.geojson !== undefined) await writeFile(options.geojson, `${JSON.stringify(geojson(body))}\n`)
  if (options.kml !== undefined) await writeFile(options.kml, kml(body))
  return 0
}
