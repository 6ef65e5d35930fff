// What decoding a samples request gives, whichever encoding it came in (JSON body, or Arrow table
// and query): the points and options, or the errors — located in the body and worded alike.
import { SAMPLE_FIELDS, type SamplesRequest, type ValidationErrorItem } from '../contract/index.js'
import type { SampleOptions, SamplePoints } from './points.js'

export type PointsOrErrors = { ok: true, points: SamplePoints, options: SampleOptions }
  | { ok: false, errors: ValidationErrorItem[] }

/** An error at a place in the body (a property or column, and an item), with its context or input. */
export function bodyIssue (
  loc: Array<string | number>, msg: string, type: string, extra?: Pick<ValidationErrorItem, 'ctx' | 'input'>
): ValidationErrorItem {
  return { loc: ['body', ...loc], msg, type, ...extra }
}

/** The refusal of more points than a request may have. */
export function tooManyPoints (maxPoints: number): string {
  return `At most ${maxPoints} points per request`
}

/** The options of a request (the JSON body's, or the Arrow query's once checked). */
export function optionsOf (body: Pick<SamplesRequest, 'altitude_reference' | 'interpolation' | 'out_of_column' |
  'fields' | 'surface_layer'>): SampleOptions {
  return {
    interpolation: body.interpolation ?? 'linear',
    altitudeReference: body.altitude_reference,
    clamp: body.out_of_column === 'nearest_level',
    fields: body.fields ?? [...SAMPLE_FIELDS],
    ...(body.surface_layer === true ? { surfaceLayer: true } : {})
  }
}
