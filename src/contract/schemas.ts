// Every record of the interface (docs/INTERFACE.md §2), once, as TypeBox: each declaration is both the JSON
// Schema (Ajv validation, /openapi.json) and the static type handlers use.
import { Type, type Static, type TSchema, type SchemaOptions } from '@sinclair/typebox'
import { ALTITUDE_REFERENCES, LIMITS } from './limits.js'
import { SampleUnit, SamplesRequest, SamplesResponse } from './samples.js'
import { EnsembleRequest, TrajectoryRequest, TrajectoryResponse } from './trajectory.js'
import { METHOD_FIELDS } from './methods.js'
import { PROBLEM_CODE_NAMES } from './codes.js'

const DateTime = (description: string) => Type.String({ format: 'date-time', description })
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
/** A string enum as `enum` (not `anyOf` of consts), so a wrong value gives one clear error. */
const StringEnum = <T extends string>(values: readonly T[], options: SchemaOptions = {}) =>
  Type.Unsafe<T>({ ...options, type: 'string', enum: [...values] })
/** A nullable number with bounds as one `type: [number, null]` schema, for one clear error. */
const NullableNumber = (options: { minimum: number, maximum: number, description?: string }) =>
  Type.Unsafe<number | null>({ ...options, type: ['number', 'null'] })

export { ALTITUDE_REFERENCES }
export const QUALITY_OPTIONS = ['best_available', 'immediate'] as const

// 2.1
export const AtmosphereRequest = Type.Object({
  latitude: Type.Number({ minimum: LIMITS.latitude.min, maximum: LIMITS.latitude.max, description: 'degrees north' }),
  longitude: Type.Number({ minimum: LIMITS.longitude.min, maximum: LIMITS.longitude.max, description: 'degrees east' }),
  time: DateTime('RFC 3339 timestamp with a timezone (Z or ±HH:MM); no leap seconds'),
  altitudes_m: Type.Array(Type.Number(), {
    minItems: LIMITS.altitudesPerRequest.min,
    maxItems: LIMITS.altitudesPerRequest.max,
    uniqueItems: true,
    description: 'unique heights in metres, answered in this order'
  }),
  altitude_reference: StringEnum(ALTITUDE_REFERENCES),
  ground_elevation_m_msl: Type.Optional(NullableNumber({
    minimum: LIMITS.groundElevation.min,
    maximum: LIMITS.groundElevation.max,
    description: 'metres above sea level; null or absent: the model terrain'
  })),
  quality: Type.Optional(StringEnum(QUALITY_OPTIONS, { default: 'best_available' }))
}, { additionalProperties: false, $id: 'AtmosphereRequest' })
export type AtmosphereRequest = Static<typeof AtmosphereRequest>

// 2.4
export const VerticalCoverage = Type.Object({
  minimum_msl_m: Type.Number(),
  maximum_msl_m: Type.Number(),
  minimum_agl_m: Type.Number(),
  maximum_agl_m: Type.Number()
}, { additionalProperties: false, $id: 'VerticalCoverage' })
export type VerticalCoverage = Static<typeof VerticalCoverage>

// 2.3
export const AtmosphereLevel = Type.Object({
  altitude_agl_m: Type.Number(),
  altitude_msl_m: Type.Number(),
  wind_u_ms: Type.Number(),
  wind_v_ms: Type.Number(),
  wind_speed_ms: Type.Number({ minimum: 0 }),
  wind_direction_deg: Type.Number({ minimum: 0, exclusiveMaximum: 360 }),
  temperature_k: Type.Number({ exclusiveMinimum: 0 }),
  pressure_pa: Type.Number({ exclusiveMinimum: 0 }),
  specific_humidity_kg_kg: Type.Number({ minimum: 0, exclusiveMaximum: 1 }),
  relative_humidity_pct: Type.Number({ minimum: 0 }),
  density_kg_m3: Type.Number({ exclusiveMinimum: 0 })
}, { additionalProperties: false, $id: 'AtmosphereLevel' })
export type AtmosphereLevel = Static<typeof AtmosphereLevel>

// 2.5
export const AtmosphereProvenance = Type.Object({
  model_run_at: DateTime('start time of the model run used (UTC)'),
  forecast_hour: Type.Integer({ minimum: 0 }),
  quality: StringEnum(['forecast', 'analysis'] as const),
  retrieved_at: DateTime('when the source data was fetched (UTC)'),
  sampled_latitude: Type.Number(),
  sampled_longitude: Type.Number(),
  source_sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  specific_humidity_source: Type.Optional(StringEnum(['spfh', 'rh_inverted_ncep_upp'] as const)),
  model: Type.Optional(Type.String()),
  dataset: Type.Optional(Type.String()),
  grid_spacing_degrees: Type.Optional(Type.Number()),
  is_final: Type.Optional(Type.Boolean()),
  attribution: Type.Optional(Type.String()),
  licence_url: Type.Optional(Type.String()),
  source_url: Type.Optional(Type.String()),
  processing_version: Type.Optional(Type.String()),
  density_method: Type.Optional(Type.String()),
  height_convention: Type.Optional(Type.String()),
  humidity_convention: Type.Optional(Type.String()),
  spatial_interpolation: Type.Optional(Type.String()),
  temporal_interpolation: Type.Optional(Type.String()),
  vertical_interpolation: Type.Optional(Type.String())
}, { additionalProperties: false, $id: 'AtmosphereProvenance' })
export type AtmosphereProvenance = Static<typeof AtmosphereProvenance>

// 2.2
export const AtmosphereResponse = Type.Object({
  latitude: Type.Number(),
  longitude: Type.Number(),
  requested_time: DateTime('the requested instant, in UTC'),
  valid_time: DateTime('the model time used (UTC)'),
  altitude_reference: StringEnum(ALTITUDE_REFERENCES),
  ground_elevation_m_msl: Type.Number(),
  model_ground_elevation_m_msl: Type.Number(),
  supplied_ground_elevation_m_msl: Nullable(Type.Number()),
  ground_source: StringEnum(['caller', 'model'] as const),
  coverage: VerticalCoverage,
  levels: Type.Array(AtmosphereLevel),
  provenance: AtmosphereProvenance
}, { additionalProperties: false, $id: 'AtmosphereResponse' })
export type AtmosphereResponse = Static<typeof AtmosphereResponse>

// 2.6
export const BetaUsage = Type.Object({
  upstream_attempts: Type.Integer({ minimum: 0 }),
  limit: Type.Integer({ minimum: 0 }),
  remaining: Type.Integer({ minimum: 0 }),
  reset_after_seconds: Type.Integer({ minimum: 1 }),
  period: Type.Optional(Type.Literal('utc_day', { default: 'utc_day' })),
  billing_enabled: Type.Optional(Type.Literal(false, { default: false }))
}, { additionalProperties: false, $id: 'BetaUsage' })
export type BetaUsage = Static<typeof BetaUsage>

// 2.8: one validation failure
export const ValidationErrorItem = Type.Object({
  loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
  msg: Type.String(),
  type: Type.String(),
  input: Type.Optional(Type.Unknown()),
  ctx: Type.Optional(Type.Record(Type.String(), Type.Unknown()))
}, { additionalProperties: false, $id: 'ValidationErrorItem' })
export type ValidationErrorItem = Static<typeof ValidationErrorItem>

// 2.7, with the `errors` extension for validation failures (docs/DESIGN.md §3)
export const Problem = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer({ minimum: 400, maximum: 599 }),
  code: StringEnum(PROBLEM_CODE_NAMES),
  request_id: Type.String(),
  detail: Type.Optional(Nullable(Type.String())),
  coverage: Type.Optional(Nullable(VerticalCoverage)),
  errors: Type.Optional(Type.Array(ValidationErrorItem))
}, { additionalProperties: false, $id: 'Problem' })
export type Problem = Static<typeof Problem>

// 2.9
const KeyName = Type.String({
  minLength: LIMITS.keyNameLength.min,
  maxLength: LIMITS.keyNameLength.max,
  // No C0 controls nor DEL (docs/INTERFACE.md §2.9).
  pattern: '^[^\\u0000-\\u001F\\u007F]*$'
})

export const NewKey = Type.Object({ name: KeyName }, { additionalProperties: false, $id: 'NewKey' })
export type NewKey = Static<typeof NewKey>

export const NewAccount = Type.Object({ name: KeyName }, { additionalProperties: false, $id: 'NewAccount' })
export type NewAccount = Static<typeof NewAccount>

export const CreatedKey = Type.Object({
  id: Type.String(),
  key: Type.String({
    description: 'the secret: returned only once; store it securely, never in a browser application'
  }),
  name: Type.String()
}, { additionalProperties: false, $id: 'CreatedKey' })
export type CreatedKey = Static<typeof CreatedKey>

export const KeyInfo = Type.Object({
  id: Type.String(),
  prefix: Type.String(),
  name: Type.String(),
  created_at: Type.Number({ description: 'Unix epoch seconds' }),
  revoked_at: Nullable(Type.Number({ description: 'Unix epoch seconds' }))
}, { additionalProperties: false, $id: 'KeyInfo' })
export type KeyInfo = Static<typeof KeyInfo>

export const KeyList = Type.Object({
  keys: Type.Array(KeyInfo, { description: 'newest first' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'pass as `cursor` for the next page; null on the last page'
  })
}, { additionalProperties: false, $id: 'KeyList' })
export type KeyList = Static<typeof KeyList>

/** Keys per page of GET /v1/keys (its `limit` query parameter's bounds and default). */
export const KEY_PAGE = { min: 1, max: 100, default: 100 } as const

export const KeyListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: KEY_PAGE.min, maximum: KEY_PAGE.max,
    description: `keys per page (default ${KEY_PAGE.default})` })),
  cursor: Type.Optional(Type.String({ maxLength: 64, description: 'the previous page\'s next_cursor' }))
}, { additionalProperties: false, $id: 'KeyListQuery' })
export type KeyListQuery = Static<typeof KeyListQuery>

export const AccountInfo = Type.Object({
  id: Type.String(),
  billing_enabled: Type.Boolean(),
  allowance_kind: Type.Literal('daily_upstream_attempts'),
  period: Type.Literal('utc_day'),
  upstream_attempts: Type.Integer({ minimum: 0 }),
  limit: Type.Integer({ minimum: 0 }),
  remaining: Type.Integer({ minimum: 0 }),
  reset_after_seconds: Type.Integer({ minimum: 1 })
}, { additionalProperties: false, $id: 'AccountInfo' })
export type AccountInfo = Static<typeof AccountInfo>

export const CreatedAccount = Type.Object({
  account: AccountInfo,
  key: CreatedKey
}, { additionalProperties: false, $id: 'CreatedAccount' })
export type CreatedAccount = Static<typeof CreatedAccount>

const Range = Type.Object({ min: Type.Number(), max: Type.Number() }, { additionalProperties: false })

const HourRange = Type.Object({
  first: Type.Integer({ minimum: 0 }),
  last: Type.Integer({ minimum: 0 }),
  every: Type.Integer({ minimum: 1 })
}, { additionalProperties: false, description: 'forecast hours first, first + every, …, last' })

/** A model run and the forecast hours the source holds of it (valid time = run + hour). */
export const ModelRun = Type.Object({
  run: DateTime('the model run (cycle) time'),
  forecast_hours: Type.Array(HourRange, { description: 'ranges of forecast hours; valid time = run + hour' })
}, { additionalProperties: false, $id: 'ModelRun' })
export type ModelRun = Static<typeof ModelRun>

export const Capabilities = Type.Object({
  service: Type.Literal('aloft'),
  interface_version: Type.String(),
  processing_version: Type.String(),
  source: Type.Object({
    configured: Type.Boolean({ description: 'false until a data source answers' }),
    kind: Type.String({ description: 'noaa, mirror or filter' }),
    status: Type.String(),
    model: Type.String(),
    dataset: Type.String(),
    grid_spacing_degrees: Type.Number(),
    pressure_levels_pa: Type.Array(Type.Number(),
      { description: 'isobaric levels the source holds (Pa); empty when not known yet' }),
    time_coverage: Type.Object({
      first_valid_time: Nullable(DateTime('earliest valid time the source holds')),
      last_valid_time: Nullable(DateTime('latest valid time the source holds')),
      max_time_offset_hours: Type.Number({ description: 'how far the nearest model time may lie from the requested ' +
        'time' }),
      runs: Type.Array(ModelRun, { description: 'the runs the source holds, newest first, with their forecast ' +
        'hours: every valid time a request can be answered at (within max_time_offset_hours). Lists the newest days ' +
        'holding data: a mirror\'s month, NOAA\'s or a grib filter\'s two days' }),
      runs_complete: Type.Boolean({ description: 'true when runs lists every run the source holds' })
    }, { additionalProperties: false }),
    licence_url: Type.String(),
    source_url: Type.String(),
    attribution: Type.String()
  }, { additionalProperties: false }),
  spatial_coverage: Type.Object({
    latitude: Range,
    longitude: Range
  }, { additionalProperties: false }),
  fields: Type.Array(Type.Object({
    name: Type.String(),
    unit: Type.String(),
    description: Type.String()
  }, { additionalProperties: false })),
  limits: Type.Object({
    altitudes_per_request: Range,
    latitude: Range,
    longitude: Range,
    ground_elevation_m_msl: Range,
    key_name_length: Range,
    max_body_bytes: Type.Integer(),
    allowance_kind: Type.Literal('daily_upstream_attempts'),
    period: Type.Literal('utc_day'),
    daily_upstream_attempts: Type.Integer({ minimum: 0 }),
    request_rate_per_second: Type.Number(),
    request_burst: Type.Integer({ minimum: 1 })
  }, { additionalProperties: false }),
  samples: Type.Object({
    max_points: Type.Integer({ minimum: 1 }),
    max_body_bytes: Type.Integer({ minimum: 1 }),
    max_units: Type.Integer({ minimum: 1, description: 'distinct source units one request may need' }),
    points_per_rate_token: Type.Integer({ minimum: 1 }),
    media_types: Type.Array(Type.String()),
    interpolations: Type.Array(Type.String()),
    out_of_column: Type.Array(Nullable(Type.String())),
    fields: Type.Array(Type.String()),
    statuses: Type.Array(Type.String())
  }, { additionalProperties: false, description: 'POST /v1/atmosphere/samples' }),
  trajectory: Type.Object({
    profiles: Type.Array(Type.String()),
    step_seconds: Type.Number(),
    max_members: Type.Integer({ minimum: 2 }),
    steps_per_rate_token: Type.Integer({ minimum: 1, description: 'a request takes one request-rate token per ' +
      'started block of this many 60 s steps (all members together; at most a burst)' }),
    max_steps: Type.Integer({ minimum: 1, description: 'the most 60 s steps, all members together, one request may ' +
      'fly (its upper bound is checked before flying)' }),
    max_answer_points: Type.Integer({ minimum: 1, description: 'the most trajectory points one answer may carry' }),
    descent_densities: Type.Array(Type.String()),
    warnings: Type.Array(Type.String())
  }, { additionalProperties: false, description: 'POST and GET /v1/atmosphere/trajectory' }),
  altitude_references: Type.Array(StringEnum(ALTITUDE_REFERENCES)),
  quality_options: Type.Array(StringEnum(QUALITY_OPTIONS)),
  default_quality: Type.Literal('best_available'),
  methods: Type.Object(METHOD_FIELDS, { additionalProperties: false })
}, { additionalProperties: false, $id: 'Capabilities' })
export type Capabilities = Static<typeof Capabilities>

export const Health = Type.Object({
  status: StringEnum(['ok', 'unavailable'] as const),
  checks: Type.Optional(Type.Record(Type.String(), StringEnum(['ok', 'unavailable'] as const), {
    description: 'readiness: account_store, source (can be listed), cache_dir (can be written), worker_pool (runs ' +
      'tasks)'
  })),
  reasons: Type.Optional(Type.Record(Type.String(), Type.String(), {
    description: 'why each check that is not ok is not (no hosts or secrets)'
  })),
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'what an operator should act on' }))
}, { additionalProperties: false, $id: 'Health' })
export type Health = Static<typeof Health>

/** Every named schema, for the OpenAPI components and the response validators in tests. */
export const SCHEMAS = {
  AtmosphereRequest, AtmosphereResponse, AtmosphereLevel, AtmosphereProvenance, VerticalCoverage,
  BetaUsage, Problem, ValidationErrorItem, NewKey, NewAccount, CreatedKey, KeyInfo, KeyList,
  AccountInfo, CreatedAccount, Capabilities, ModelRun, Health, SamplesRequest, SamplesResponse, SampleUnit,
  TrajectoryRequest, TrajectoryResponse, EnsembleRequest
} as const
export type SchemaName = keyof typeof SCHEMAS
