// The JSON samples answer (docs/DESIGN.md §6): the columnar body written in schema order as
// pieces, each column formatted from the typed arrays (columns.ts).
import { fieldIndex, OUT_ALTITUDE_MSL, OUT_GROUND, type SamplesResult } from '../result.js'
import { indexBytes, numbers, statusBytes } from './columns.js'
import { samplesProvenance } from '../provenance.js'

/** A piece of a JSON answer: text, or bytes of ASCII text formatted on a pool worker. */
export type JsonPart = string | Uint8Array

/**
 * The JSON answer, as pieces of text to be written in order (joined, a 100 000-point answer would
 * be one more copy of some 20 MB). `format` turns a column of numbers into its JSON array; given one that
 * runs on the worker pool, the columns of a large answer are formatted in parallel (formatting
 * doubles is most of the cost of a JSON answer).
 */
export async function samplesJson (
  result: SamplesResult, format: (values: Float64Array) => JsonPart | Promise<JsonPart> = numbers
): Promise<JsonPart[]> {
  const { n, options, out } = result
  const columns = [...options.fields.map(fieldIndex), OUT_ALTITUDE_MSL, OUT_GROUND]
  // every column settled before a failure is thrown: pool workers write into the request's memory,
  // which goes back for reuse once the request fails
  const settled = await Promise.allSettled([
    ...columns.map(async (c) => await format(out.subarray(c * n, (c + 1) * n))),
    Promise.resolve(format(result.timeWeight))
  ])
  const failed = settled.find((r) => r.status === 'rejected')
  if (failed !== undefined) throw failed.reason
  const texts = settled.map((r) => (r as PromiseFulfilledResult<JsonPart>).value)
  const formatted = new Map(columns.map((c, k) => [c, texts[k]]))
  const column = (c: number): JsonPart => formatted.get(c) as JsonPart
  const parts: JsonPart[] = [
    `{"count":${n},"interpolation":${JSON.stringify(options.interpolation)}`,
    `,"altitude_reference":${JSON.stringify(options.altitudeReference)}`,
    `,"out_of_column":${options.clamp ? '"nearest_level"' : 'null'}`,
    `,"fields":${JSON.stringify(options.fields)}`,
    `,"units":${JSON.stringify(result.units)}`,
    ',"columns":{"status":', statusBytes(result.status)
  ]
  // a formatted column is a part of its own (bytes from a worker are written as they are)
  for (const f of options.fields) parts.push(`,${JSON.stringify(f)}:`, column(fieldIndex(f)))
  parts.push(',"altitude_msl_m":', column(OUT_ALTITUDE_MSL), ',"ground_elevation_m_msl":', column(OUT_GROUND),
    ',"unit_before":', indexBytes(result.unitBefore), ',"unit_after":', indexBytes(result.unitAfter),
    ',"time_weight":', texts[texts.length - 1],
    `},"provenance":${JSON.stringify(samplesProvenance(options))}}`)
  return parts
}
