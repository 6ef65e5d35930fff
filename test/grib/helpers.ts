// Shared by the GRIB tests: fixture bytes and the committed ecCodes expectations, read from the
// repository's test/fixtures/grib (never an absolute path).
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { repoUrl } from '../helpers/paths.js'

export const FIXTURES = repoUrl('test/fixtures/grib/')

export function fixture (name: string): Uint8Array {
  const b = readFileSync(new URL(name, FIXTURES))
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
}

export interface ExpectedField {
  serial: number
  offset: number
  discipline: number
  parameterCategory: number
  parameterNumber: number
  shortName: string
  productDefinitionTemplateNumber: number
  typeOfFirstFixedSurface: number
  scaleFactorOfFirstFixedSurface?: number
  scaledValueOfFirstFixedSurface?: number
  typeOfLevel: string
  level: number
  dataDate: number
  dataTime: number
  startStep: number
  endStep: number
  dataRepresentationTemplateNumber: number
  bitsPerValue: number
  bitMapIndicator: number
  numberOfValues: number
  count: number
  nan: number
  min: number | null
  max: number | null
  sha256: string
  samples: Array<[number, number | null]>
  nearest: Array<number | null>
}

export interface ExpectedFile {
  file: string
  size: number
  grid: Record<string, number>
  nearest: Array<{ lat: number, lon: number, index: number, latitude: number, longitude: number }>
  fields: ExpectedField[]
}

export const expectations: { eccodes: string, files: ExpectedFile[] } =
  JSON.parse(readFileSync(new URL('expectations.json', FIXTURES), 'utf8'))

export function expectedFile (name: string): ExpectedFile {
  const f = expectations.files.find((x) => x.file === name)
  if (f === undefined) throw new Error(`no expectations for ${name}`)
  return f
}

/** sha256 of float32 little-endian values with every NaN as 0x7fc00000, as the script hashes them. */
export function sha256f32 (values: Float32Array): string {
  const u = new Uint32Array(values.length)
  const raw = new Uint32Array(values.buffer, values.byteOffset, values.length)
  for (let i = 0; i < values.length; i++) u[i] = Number.isNaN(values[i]) ? 0x7fc00000 : raw[i]
  return createHash('sha256').update(new Uint8Array(u.buffer)).digest('hex')
}

/** Deterministic PRNG (mulberry32) for the fuzz tests: the benchmarks' own. */
export { random as prng } from '../../bench/lib/random.js'
