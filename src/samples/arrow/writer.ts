// The Arrow samples answer (docs/DESIGN.md §6), with the apache-arrow package: the schema, then
// one record batch per computed slice, so the first rows leave before the last are computed.
import {
  Dictionary, Field, Float64, Int32, Int8, RecordBatch, RecordBatchStreamWriter, Schema, Struct, Utf8, makeData,
  vectorFromArray, type Data, type Vector
} from 'apache-arrow'
import type { Readable } from 'node:stream'
import { SAMPLE_STATUSES, type SampleField } from '../../contract/index.js'
import { samplesProvenance } from '../provenance.js'
import { fieldIndex, OK, OUT_ALTITUDE_MSL, OUT_GROUND, type SamplesResult } from '../result.js'

// Validity bitmaps of a slice [start, start + length) and their null counts: one loop per kind
// of test (a shared loop calling a test per value cost ~10 ms a 100 000-point answer)

function okBits (status: Uint8Array, start: number, length: number): [Uint8Array, number] {
  const bits = new Uint8Array((length + 7) >> 3)
  let nulls = 0
  for (let p = 0; p < length; p++) {
    if (status[start + p] === OK) bits[p >> 3] |= 1 << (p & 7)
    else nulls++
  }
  return [bits, nulls]
}

/** Unit indices: −1 is null. */
function indexBits (values: Int32Array, start: number, length: number): [Uint8Array, number] {
  const bits = new Uint8Array((length + 7) >> 3)
  let nulls = 0
  for (let p = 0; p < length; p++) {
    if (values[start + p] >= 0) bits[p >> 3] |= 1 << (p & 7)
    else nulls++
  }
  return [bits, nulls]
}

/** Numbers: NaN is null. */
function numberBits (values: Float64Array, start: number, length: number): [Uint8Array, number] {
  const bits = new Uint8Array((length + 7) >> 3)
  let nulls = 0
  for (let p = 0; p < length; p++) {
    const v = values[start + p]
    if (v === v) bits[p >> 3] |= 1 << (p & 7)
    else nulls++
  }
  return [bits, nulls]
}

const STATUS_TYPE = new Dictionary(new Utf8(), new Int8(), 0, false)
const STATUS_DICTIONARY: Vector = vectorFromArray([...SAMPLE_STATUSES], new Utf8())

/** Writes an Arrow answer: the schema (with `aloft:units` and `aloft:provenance`) then one batch per slice. */
export class ArrowSamplesWriter {
  readonly #writer = new RecordBatchStreamWriter()
  readonly stream: Readable
  #schema: Schema | null = null
  #fields: SampleField[] = []

  constructor () {
    this.stream = this.#writer.toNodeStream() as unknown as Readable
  }

  /** Writes points [start, end) of a result (its units must be known: after loading). */
  writeSlice (result: SamplesResult, start: number, end: number): void {
    this.#schema ??= this.#schemaOf(result)
    const n = result.n
    const length = end - start
    const [valid, invalid] = okBits(result.status, start, length)
    const float = (values: Float64Array, bitmap: Uint8Array = valid, nulls = invalid): Data => makeData({
      type: new Float64(), length, nullCount: nulls, nullBitmap: nulls === 0 ? null : bitmap, data: values
    })
    const column = (c: number): Data => float(result.out.subarray(c * n + start, c * n + end))
    const index = (values: Int32Array): Data => {
      const [bits, nulls] = indexBits(values, start, length)
      return makeData({ type: new Int32(), length, nullCount: nulls, nullBitmap: nulls === 0 ? null : bits,
        data: values.subarray(start, end) })
    }
    const [twBits, twNulls] = numberBits(result.timeWeight, start, length)
    const weights = result.timeWeight.subarray(start, end)
    const children: Data[] = [
      makeData({ type: STATUS_TYPE, length, data: new Int8Array(result.status.buffer, start, length),
        dictionary: STATUS_DICTIONARY }),
      ...this.#fields.map((f) => column(fieldIndex(f))),
      column(OUT_ALTITUDE_MSL),
      column(OUT_GROUND),
      index(result.unitBefore),
      index(result.unitAfter),
      float(weights, twBits, twNulls)
    ]
    const schema = this.#schema
    this.#writer.write(new RecordBatch(schema,
      makeData({ type: new Struct(schema.fields), length, nullCount: 0, children })))
  }

  end (): void {
    this.#writer.finish()
  }

  #schemaOf (result: SamplesResult): Schema {
    this.#fields = result.options.fields
    const fields = [
      new Field('status', STATUS_TYPE, false),
      ...this.#fields.map((f) => new Field(f, new Float64(), true)),
      new Field('altitude_msl_m', new Float64(), true),
      new Field('ground_elevation_m_msl', new Float64(), true),
      new Field('unit_before', new Int32(), true),
      new Field('unit_after', new Int32(), true),
      new Field('time_weight', new Float64(), true)
    ]
    return new Schema(fields, new Map([
      ['aloft:units', JSON.stringify(result.units)],
      ['aloft:provenance', JSON.stringify(samplesProvenance(result.options))]
    ]))
  }
}
