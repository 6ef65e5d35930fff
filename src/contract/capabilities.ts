// GET /v1/atmosphere/capabilities: what an instance serves, its source and runs, limits and options.
import { Type, type Static } from '@sinclair/typebox'
import { ALTITUDE_REFERENCES } from './limits.js'
import { METHOD_FIELDS } from './methods.js'
import { QUALITY_OPTIONS } from './profile.js'
import { DateTime, Nullable, StringEnum } from './schema-parts.js'

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
    warnings: Type.Array(Type.String()),
    outcomes: Type.Array(Type.String(), { description: 'how a flight may end (the answer\'s outcome)' })
  }, { additionalProperties: false, description: 'POST and GET /v1/atmosphere/trajectory' }),
  tawhiri: Type.Object({
    paths: Type.Array(Type.String(), { description: 'Tawhiri\'s paths, for the clients that speak it' }),
    key_in_path: Type.String({ description: 'the same paths with a key for clients that cannot send a header' }),
    burst_wait_ms: Type.Integer({ minimum: 0, description: 'how long a request waits its turn for a rate token or ' +
      'an in-flight slot before a 429' }),
    max_waiting: Type.Integer({ minimum: 0, description: 'requests waiting their turn on one instance at most ' +
      '(each caller: at most its burst); beyond, an immediate 429' }),
    public: Nullable(Type.Object({
      rate_per_second: Type.Number({ description: 'per client address (IPv6: per /64)' }),
      rate_burst: Type.Integer({ description: 'per client address' }),
      daily_upstream_attempts: Type.Integer({ description: 'shared by every caller without a key' }),
      daily_upstream_attempts_per_client: Type.Integer({ description: 'each client address\'s own share of them' }),
      in_flight_share: Type.Number({ description: 'the part of an instance\'s requests at once callers without a key ' +
        'may hold together' })
    }, { additionalProperties: false, description: 'callers without a key (null: a key is needed)' }))
  }, { additionalProperties: false, description: 'docs/DESIGN.md §9, §10: a drop-in Tawhiri' }),
  altitude_references: Type.Array(StringEnum(ALTITUDE_REFERENCES)),
  quality_options: Type.Array(StringEnum(QUALITY_OPTIONS)),
  default_quality: Type.Literal('best_available'),
  surface_layer: Type.Object({
    option: Type.Literal('surface_layer', { description: 'the request field (query parameter on GET and Arrow ' +
      'requests); false by default, and the answers are then the pressure-level column alone' }),
    routes: Type.Array(Type.String()),
    fields: Type.Array(Type.Object({
      variable: Type.String(),
      heights_m_agl: Type.Array(Type.Number(), { description: 'metres above the model ground (0: the surface)' }),
      tolerance: Type.Number({ description: 'the coarsest packing step a field of this variable may have and be ' +
        'used' }),
      unit: Type.String({ description: 'of the tolerance' })
    }, { additionalProperties: false }), { description: 'the model\'s near-ground fields a column joins, ' +
      'each where the unit holds it at the precision rule\'s tolerance' }),
    precision_rule: Type.String({ description: 'which fields are used as nodes' }),
    wind_below_m_agl: Type.Number({ description: 'below this height wind follows the 1/7 power law, 0 at the ground' }),
    dataset: Type.String(),
    vertical_interpolation: Type.String()
  }, { additionalProperties: false, description: 'docs/DESIGN.md §8: the column from the model ground up' }),
  methods: Type.Object(METHOD_FIELDS, { additionalProperties: false })
}, { additionalProperties: false, $id: 'Capabilities' })
export type Capabilities = Static<typeof Capabilities>
