// An engine call's result over its plan's arrays, with the response's `units` — each (run, step)
// named, with the source pieces read for it — described when first read (a flight's many small
// calls mostly never read them). A (run, step) the upstream turned out not to hold at all is not
// listed: its points are outside the coverage after all and name no unit, as planning does.
import { type SampleUnit, rfc3339Kept } from '../contract/index.js'
import { VAR, type DecodedUnit } from '../field/index.js'
import { meetsSurfaceMinimum, surfaceLayerNodes } from '../atmosphere/index.js'
import { validTime } from '../source/index.js'
import type { Plan } from './plan.js'
import type { SampleOptions } from './points.js'
import { OUTSIDE_SOURCE, type SamplesResult } from './result.js'

/** A class, so the getter lives on the prototype and results stay plain fast objects. */
export class ComputedSamples implements SamplesResult {
  readonly n: number
  readonly status: Uint8Array
  readonly unitBefore: Int32Array
  readonly unitAfter: Int32Array
  readonly timeWeight: Float64Array
  #units: SampleUnit[] | undefined
  /** The plan's (run, step)s listed, by their index in `plan.runSteps`. */
  readonly #listed: number[]

  /** `pieceStatus`: each piece's failure once loaded (before any point is computed). */
  constructor (
    readonly plan: Plan, readonly options: SampleOptions, readonly pieces: ReadonlyArray<DecodedUnit | null>,
    pieceStatus: Uint8Array, readonly clamped: Uint8Array, readonly out: Float64Array
  ) {
    this.n = plan.n
    this.status = plan.status
    this.unitBefore = plan.unitBefore
    this.unitAfter = plan.unitAfter
    this.timeWeight = plan.timeWeight
    this.#listed = listedRunSteps(plan, pieceStatus)
  }

  get units (): SampleUnit[] {
    return (this.#units ??= describeUnits(this.plan, this.#listed, this.pieces, this.options.surfaceLayer === true))
  }
}

/**
 * The (run, step)s to list: all but those every piece of which the upstream turned out not to
 * hold. The points naming one of those name none (they are outside the coverage: the kernel reads
 * nothing for them), and the others' indices are renumbered; the plan's own tables keep theirs.
 */
function listedRunSteps (plan: Plan, pieceStatus: Uint8Array): number[] {
  const count = plan.runSteps.length
  const gone = new Uint8Array(count).fill(1)
  let any = false
  plan.pieces.forEach((piece, k) => {
    if (pieceStatus[k] !== OUTSIDE_SOURCE) gone[piece.runStep] = 0
    else any = true
  })
  const listed: number[] = []
  for (let k = 0; k < count; k++) if (gone[k] === 0 || !any) listed.push(k)
  if (listed.length === count) return listed
  const renumber = new Int32Array(count).fill(-1)
  listed.forEach((k, to) => { renumber[k] = to })
  const { unitBefore, unitAfter, timeWeight } = plan
  for (let p = 0; p < plan.n; p++) {
    if (unitBefore[p] < 0) continue
    const before = renumber[unitBefore[p]]
    const after = renumber[unitAfter[p]]
    unitBefore[p] = before < 0 || after < 0 ? -1 : before
    unitAfter[p] = before < 0 || after < 0 ? -1 : after
    if (unitBefore[p] < 0) timeWeight[p] = NaN
  }
  return listed
}

/** The response's `units`: each (run, step) listed, with the source pieces read for it. */
function describeUnits (
  plan: Plan, listed: readonly number[], pieces: ReadonlyArray<DecodedUnit | null>, surfaceLayer: boolean
): SampleUnit[] {
  return listed.map((k) => {
    const rs = plan.runSteps[k]
    const read = new Map<string, DecodedUnit>()
    plan.pieces.forEach((piece, p) => {
      const unit = pieces[p]
      if (piece.runStep === k && unit !== null && !read.has(unit.unitKey)) read.set(unit.unitKey, unit)
    })
    const sources = [...read.values()].map((u) => ({
      unit_key: u.unitKey, source_sha256: u.sha256, retrieved_at: rfc3339Kept(u.retrievedAt.getTime())
    }))
    const first = read.values().next().value
    return {
      model_run_at: rfc3339Kept(rs.run),
      forecast_hour: rs.step,
      valid_time: rfc3339Kept(validTime(rs)),
      source_sha256: sources.length === 1 ? sources[0].source_sha256 : null,
      retrieved_at: sources.length === 1 ? sources[0].retrieved_at : null,
      specific_humidity_source: first === undefined ? null
        : first.layout.present[VAR.SPFH] ? 'spfh' : 'rh_inverted_ncep_upp',
      ...(surfaceLayer ? surfaceLayerOf(first) : {}),
      sources
    }
  })
}

/**
 * Whether a unit's columns join the surface layer (it holds §8's minimum fields at their precision),
 * and then the heights of its nodes; null when no piece of the unit was read.
 */
function surfaceLayerOf (unit: DecodedUnit | undefined): Pick<SampleUnit, 'surface_layer' | 'surface_layer_nodes'> {
  if (unit === undefined) return { surface_layer: null }
  const used = unit.layout.surfacePresent
  return meetsSurfaceMinimum((k) => used[k])
    ? { surface_layer: 'gfs_height_above_ground', surface_layer_nodes: surfaceLayerNodes(used) }
    : { surface_layer: 'unavailable' }
}
