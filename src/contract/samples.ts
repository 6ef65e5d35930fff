// Bulk samples (docs/DESIGN.md §6): the JSON request and response of POST /v1/atmosphere/samples,
// the per-point statuses and the output fields, once, as TypeBox. The Arrow encoding carries the
// same columns under the same names.
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { ALTITUDE_REFERENCES, LIMITS } from './limits.js'
import { METHOD_FIELDS } from './methods.js'
import { Nullable, SurfaceLayerNodes, SurfaceLayerOption, SurfaceLayerProvenance } from './schema-parts.js'

/** The Arrow IPC stream media type, accepted in and answered out. */
export const ARROW_STREAM = 'application/vnd.apache.arrow.stream'

/** The profile's level fields a sample answers (longitudes and heights are the caller's own). */
export const SAMPLE_FIELDS = [
  'wind_u_ms', 'wind_v_ms', 'wind_speed_ms', 'wind_direction_deg', 'temperature_k', 'pressure_pa',
  'specific_humidity_kg_kg', 'relative_humidity_pct', 'density_kg_m3'
] as const
export type SampleField = typeof SAMPLE_FIELDS[number]

/** Per-point outcome; its index is the status code the engine stores (Uint8Array). */
export const SAMPLE_STATUSES = [
  'ok', 'outside_source_coverage', 'outside_vertical_range', 'unusable_source_column'
] as const
export type SampleStatus = typeof SAMPLE_STATUSES[number]

export const INTERPOLATIONS = ['linear', 'nearest'] as const
export type Interpolation = typeof INTERPOLATIONS[number]

const StringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description !== undefined ? { description } : {}) })
const DateTime = Type.String({ format: 'date-time' })
const Numbers = (options: { minimum?: number, maximum?: number, description: string }) =>
  Type.Array(Type.Number({ minimum: options.minimum, maximum: options.maximum }),
    { minItems: 1, description: options.description })
const Ground = Type.Number({ minimum: LIMITS.groundElevation.min, maximum: LIMITS.groundElevation.max })

export const SamplesRequest = Type.Object({
  latitude: Numbers({ minimum: LIMITS.latitude.min, maximum: LIMITS.latitude.max, description: 'degrees north, ' +
    'one per point (at most ALOFT_SAMPLES_MAX_POINTS, see capabilities)' }),
  longitude: Numbers({ description: 'degrees east, any finite value (taken modulo 360)' }),
  altitude_m: Numbers({ description: 'metres, in altitude_reference' }),
  time: Type.Union([DateTime, Type.Array(DateTime, { minItems: 1 })], {
    description: 'RFC 3339 with a timezone: one instant for every point, or one per point'
  }),
  altitude_reference: StringEnum(ALTITUDE_REFERENCES),
  ground_elevation_m_msl: Type.Optional(Type.Union([Type.Null(), Ground, Type.Array(Type.Union([Ground,
    Type.Null()]))], { description: 'metres above sea level: absent or null (model terrain), one for every ' +
    'point, or one per point (null: model terrain)' })),
  interpolation: Type.Optional(StringEnum(INTERPOLATIONS, 'linear (default): bilinear, time-blended; nearest: ' +
    'the profile route\'s own rules')),
  out_of_column: Type.Optional(Type.Union([Type.Null(), Type.Literal('nearest_level')], {
    description: 'null (default): a height outside a column is outside_vertical_range; nearest_level: the ' +
      'column\'s lowest or highest level answers'
  })),
  fields: Type.Optional(Type.Array(StringEnum(SAMPLE_FIELDS), { minItems: 1, uniqueItems: true,
    description: 'the output fields wanted (default all)' })),
  surface_layer: Type.Optional(SurfaceLayerOption)
}, { additionalProperties: false, $id: 'SamplesRequest' })
export type SamplesRequest = Static<typeof SamplesRequest>

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' })

export const SampleUnit = Type.Object({
  model_run_at: DateTime,
  forecast_hour: Type.Integer({ minimum: 0 }),
  valid_time: DateTime,
  source_sha256: Nullable(Sha256),
  retrieved_at: Nullable(DateTime),
  specific_humidity_source: Nullable(StringEnum(['spfh', 'rh_inverted_ncep_upp'] as const)),
  surface_layer: Type.Optional(Nullable(SurfaceLayerProvenance)),
  surface_layer_nodes: Type.Optional(SurfaceLayerNodes),
  sources: Type.Array(Type.Object({
    unit_key: Type.String({ description: 'the source piece (whole file, or a sub-region tile)' }),
    source_sha256: Sha256,
    retrieved_at: DateTime
  }, { additionalProperties: false }), { description: 'every source piece read for this unit' })
}, {
  additionalProperties: false,
  $id: 'SampleUnit',
  description: 'one model (run, forecast hour); source_sha256 and retrieved_at are those of its one source piece ' +
    '(null when several pieces or none were read: see sources)'
})
export type SampleUnit = Static<typeof SampleUnit>

const Column = (item: TSchema) => Type.Array(item)
const NumberOrNull = Nullable(Type.Number())
const IndexOrNull = Nullable(Type.Integer({ minimum: 0 }))

export const SamplesResponse = Type.Object({
  count: Type.Integer({ minimum: 1 }),
  interpolation: StringEnum(INTERPOLATIONS),
  altitude_reference: StringEnum(ALTITUDE_REFERENCES),
  out_of_column: Nullable(Type.Literal('nearest_level')),
  fields: Type.Array(StringEnum(SAMPLE_FIELDS)),
  units: Type.Array(SampleUnit),
  columns: Type.Object({
    status: Column(StringEnum(SAMPLE_STATUSES)),
    ...Object.fromEntries(SAMPLE_FIELDS.map((f) => [f, Type.Optional(Column(NumberOrNull))])),
    altitude_msl_m: Column(NumberOrNull),
    ground_elevation_m_msl: Column(NumberOrNull),
    unit_before: Column(IndexOrNull),
    unit_after: Column(IndexOrNull),
    time_weight: Column(NumberOrNull)
  }, { additionalProperties: false }),
  provenance: Type.Object({
    model: Type.String(),
    dataset: Type.String(),
    grid_spacing_degrees: Type.Number(),
    attribution: Type.String(),
    licence_url: Type.String(),
    source_url: Type.String(),
    processing_version: Type.String(),
    ...METHOD_FIELDS
  }, { additionalProperties: false })
}, { additionalProperties: false, $id: 'SamplesResponse' })
export type SamplesResponse = Static<typeof SamplesResponse>
