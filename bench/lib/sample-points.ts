// The random points every bulk-samples benchmark sends, and the two bodies that carry them: the
// bundled region (48–56° N, 13–25° E), 0–20 000 m AGL, whole seconds of 2020-08-04 12Z–00Z.
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Table, Timestamp, TimeUnit, makeVector, tableToIPC, vectorFromArray } from 'apache-arrow'
import { SAMPLE } from './paths.js'
import { LOAD_ENV } from './server-child.js'
import { random } from './random.js'

export const START = Date.parse('2020-08-04T12:00:00Z')

export interface Points { lat: Float64Array, lon: Float64Array, alt: Float64Array, time: Float64Array }

export function randomPoints (n: number, seed: number): Points {
  const next = random(seed)
  const p: Points = { lat: new Float64Array(n), lon: new Float64Array(n), alt: new Float64Array(n),
    time: new Float64Array(n) }
  for (let k = 0; k < n; k++) {
    p.lat[k] = 48 + 8 * next()
    p.lon[k] = 13 + 12 * next()
    p.alt[k] = 20_000 * next()
    p.time[k] = START + Math.floor(12 * 3600 * next()) * 1000
  }
  return p
}

export function jsonBody (p: Points): string {
  return JSON.stringify({ latitude: [...p.lat], longitude: [...p.lon], altitude_m: [...p.alt],
    time: [...p.time].map((t) => new Date(t).toISOString()), altitude_reference: 'agl' })
}

export function arrowBody (p: Points): Uint8Array {
  return tableToIPC(new Table({
    latitude: makeVector(p.lat), longitude: makeVector(p.lon), altitude_m: makeVector(p.alt),
    time: vectorFromArray([...p.time].map((t) => new Date(t)), new Timestamp(TimeUnit.MILLISECOND, 'UTC'))
  }), 'stream')
}

/**
 * For a benchmark running the service in its own process: the load environment, the sample data,
 * two workers, `points` allowed a request, a fresh cache folder (returned), no Redis.
 */
export async function useSampleEnvironment (points: number, prefix: string): Promise<string> {
  const cacheDir = await mkdtemp(join(tmpdir(), prefix))
  for (const [k, v] of Object.entries(LOAD_ENV)) process.env[k] = v
  Object.assign(process.env, { ALOFT_SOURCE: `mirror:${SAMPLE}`, ALOFT_WORKERS: '2', ALOFT_CACHE_DIR: cacheDir,
    ALOFT_SAMPLES_MAX_POINTS: String(points) })
  delete process.env.REDIS_URL
  return cacheDir
}
