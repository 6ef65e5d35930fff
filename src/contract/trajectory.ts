// POST (and GET) /v1/atmosphere/trajectory (docs/DESIGN.md §7): Tawhiri's request fields and
// response shape, plus aloft's ensembles and provenance. One source of truth for the schemas.
import { Type, type Static } from '@sinclair/typebox'
import { METHOD_FIELDS } from './methods.js'
import { SampleUnit } from './samples.js'
import { DateTime, Nullable, SurfaceLayerOption } from './schema-parts.js'

export const PROFILES = ['standard_profile', 'float_profile'] as const
export type Profile = typeof PROFILES[number]
export const STAGES = ['ascent', 'descent', 'float'] as const
export const DESCENT_DENSITIES = ['nasa', 'model'] as const

/** Warnings a prediction may carry, with what each means (Tawhiri's `warnings` shape). */
export const TRAJECTORY_WARNINGS = {
  altitude_outside_column: 'Wind evaluations at an altitude above or below the model column; its nearest level ' +
    'answered (out_of_column: nearest_level).',
  left_source_coverage: 'The flight left the source\'s coverage in place or time; it ends at the last state that ' +
    'could be evaluated.',
  unusable_source_column: 'The flight reached a source column that cannot be used; it ends at the last state that ' +
    'could be evaluated.',
  started_below_model_ground: 'The descent (or float) began at or below the model ground, so the flight ended ' +
    'where it was, at once: raise the burst (or float) altitude above the model terrain there (GET /api/ruaumoko/ ' +
    'answers it). In an ensemble each member says so itself (started_below_model_ground).'
} as const
export type TrajectoryWarning = keyof typeof TRAJECTORY_WARNINGS

/**
 * How a flight ended (docs/DESIGN.md §7): only `landed` ends on the ground and only `float_ended`
 * at the float's stop time; the other two end wherever the data ran out, which no reader may take
 * for a landing.
 */
export const FLIGHT_OUTCOMES = {
  landed: 'The flight came down to the model ground, or began its descent (or float) at or below it ' +
    '(warning started_below_model_ground); its last point is the landing.',
  float_ended: 'The float reached stop_datetime; its last point is where the float ended, aloft.',
  left_source_coverage: 'The flight left the source\'s data in place or time before it ended; its last point ' +
    'is where it left the data, not a landing.',
  unusable_source_column: 'The flight reached a source column that cannot be used; its last point is the last ' +
    'state that could be evaluated, not a landing.'
} as const
export type FlightOutcome = keyof typeof FLIGHT_OUTCOMES

export const TRAJECTORY_LIMITS = {
  maxMembers: 1000,
  altitude: { min: -1000, max: 60_000 },
  /** m/s; a rate beyond this is a typo, not a balloon. */
  maxRate: 100,
  seed: { min: 0, max: 4_294_967_295 },
  /** 60 s steps (all members together) per request-rate token: a request is priced by its work. */
  stepsPerToken: 10_000,
  /** The default of ALOFT_TRAJECTORY_MAX_STEPS: ~2.5 s of work on one core. */
  maxSteps: 500_000,
  /** Trajectory points one answer carries at most (~130 bytes each in JSON). */
  maxAnswerPoints: 250_000
} as const

const StringEnum = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...(description !== undefined ? { description } : {}) })
const Outcome = (description: string) => StringEnum(Object.keys(FLIGHT_OUTCOMES) as FlightOutcome[], description)
const Altitude = (description: string) => Type.Number({
  minimum: TRAJECTORY_LIMITS.altitude.min, maximum: TRAJECTORY_LIMITS.altitude.max, description
})
const Rate = (description: string) =>
  Type.Number({ exclusiveMinimum: 0, maximum: TRAJECTORY_LIMITS.maxRate, description })
const Sd = (description: string) => Type.Optional(Type.Number({ minimum: 0, description }))

export const EnsembleRequest = Type.Object({
  members: Type.Integer({ minimum: 2, maximum: TRAJECTORY_LIMITS.maxMembers,
    description: 'flights, member 0 the nominal one' }),
  ascent_rate_sd: Sd('standard deviation of the ascent rate (m/s; default 0)'),
  burst_altitude_sd: Sd('standard deviation of the burst altitude (m; default 0)'),
  descent_rate_sd: Sd('standard deviation of the sea-level descent rate (m/s; default 0)'),
  seed: Type.Optional(Type.Integer({ minimum: TRAJECTORY_LIMITS.seed.min, maximum: TRAJECTORY_LIMITS.seed.max,
    description: 'the same seed gives the same ' +
    'members (default 0)' }))
}, { additionalProperties: false, $id: 'EnsembleRequest' })
export type EnsembleRequest = Static<typeof EnsembleRequest>

export const TrajectoryRequest = Type.Object({
  profile: Type.Optional(StringEnum(PROFILES, 'standard_profile (default): ascent, burst, descent; float_profile: ' +
    'ascent, then float until stop_datetime')),
  launch_latitude: Type.Number({ minimum: -90, maximum: 90, description: 'degrees north' }),
  launch_longitude: Type.Number({ description: 'degrees east, any finite value (answered in [0, 360))' }),
  launch_datetime: DateTime('RFC 3339 with a timezone'),
  launch_altitude: Type.Optional(Altitude('metres MSL (default: the model terrain at the launch point)')),
  ascent_rate: Rate('m/s'),
  burst_altitude: Type.Optional(Altitude('metres MSL, above the launch (standard_profile)')),
  descent_rate: Type.Optional(Rate('m/s at sea level (standard_profile)')),
  float_altitude: Type.Optional(Altitude('metres MSL, above the launch (float_profile)')),
  stop_datetime: Type.Optional(DateTime('end of the float (float_profile), after the launch')),
  dataset: Type.Optional(DateTime('a model run to use (default: the newest run for each instant)')),
  descent_density: Type.Optional(StringEnum(DESCENT_DENSITIES, 'the density in the descent drag: nasa (default, ' +
    'Tawhiri\'s standard atmosphere) or model (aloft\'s)')),
  ensemble: Type.Optional(EnsembleRequest),
  member_trajectories: Type.Optional(Type.Boolean({ description: 'full trajectories for every member ' +
    '(default: member 0 only)' })),
  surface_layer: Type.Optional(SurfaceLayerOption),
  version: Type.Optional(Type.Literal(1, { description: 'Tawhiri\'s API version (accepted, and answered)' })),
  format: Type.Optional(Type.Literal('json', { description: 'Tawhiri\'s output format (only json)' }))
}, { additionalProperties: false, $id: 'TrajectoryRequest' })
export type TrajectoryRequest = Static<typeof TrajectoryRequest>

export const TrajectoryPoint = Type.Object({
  datetime: Type.String({ format: 'date-time' }),
  latitude: Type.Number(),
  longitude: Type.Number({ minimum: 0, exclusiveMaximum: 360 }),
  altitude: Type.Number()
}, { additionalProperties: false, description: 'a state of the flight' })
export type TrajectoryPoint = Static<typeof TrajectoryPoint>

const EnsembleMember = Type.Object({
  ascent_rate: Type.Number(),
  burst_altitude: Type.Number(),
  descent_rate: Type.Number(),
  burst: Nullable(TrajectoryPoint),
  landing: Nullable(TrajectoryPoint),
  outcome: Outcome('how this member ended; landing is null unless landed'),
  started_below_model_ground: Type.Optional(Type.Literal(true, { description: 'its descent (or float) began at or ' +
    'below the model ground, so it landed there at once: its landing is its burst' }))
}, { additionalProperties: false })

export const TrajectoryResponse = Type.Object({
  request: Type.Object({
    profile: StringEnum(PROFILES),
    launch_latitude: Type.Number(),
    launch_longitude: Type.Number(),
    launch_datetime: Type.String({ format: 'date-time' }),
    launch_altitude: Type.Number(),
    ascent_rate: Type.Number(),
    burst_altitude: Type.Optional(Type.Number()),
    descent_rate: Type.Optional(Type.Number()),
    float_altitude: Type.Optional(Type.Number()),
    stop_datetime: Type.Optional(Type.String({ format: 'date-time' })),
    descent_density: StringEnum(DESCENT_DENSITIES),
    dataset: Type.String({ format: 'date-time', description: 'the model run of the launch' }),
    ensemble: Type.Optional(Type.Object({
      members: Type.Integer(),
      ascent_rate_sd: Type.Number(),
      burst_altitude_sd: Type.Number(),
      descent_rate_sd: Type.Number(),
      seed: Type.Integer()
    }, { additionalProperties: false })),
    member_trajectories: Type.Optional(Type.Boolean()),
    surface_layer: Type.Optional(Type.Boolean()),
    version: Type.Literal(1)
  }, { additionalProperties: false }),
  prediction: Type.Array(Type.Object({
    stage: StringEnum(STAGES),
    trajectory: Type.Array(TrajectoryPoint)
  }, { additionalProperties: false })),
  outcome: Outcome('how the flight ended: landed, float_ended, or left_source_coverage / ' +
    'unusable_source_column, whose last point is where the data ran out, never a landing'),
  metadata: Type.Object({
    start_datetime: Type.String({ format: 'date-time' }),
    complete_datetime: Type.String({ format: 'date-time' })
  }, { additionalProperties: false }),
  warnings: Type.Record(Type.String(), Type.Object({ count: Type.Integer({ minimum: 1 }), description: Type.String() },
    { additionalProperties: false })),
  ensemble: Type.Optional(Type.Object({
    members: Type.Array(EnsembleMember),
    member_predictions: Type.Optional(Type.Array(Type.Array(Type.Object({
      stage: StringEnum(STAGES),
      trajectory: Type.Array(TrajectoryPoint)
    }, { additionalProperties: false })), { description: 'every member\'s stages (member_trajectories: true)' })),
    landing: Nullable(Type.Object({
      members_landed: Type.Integer({ minimum: 1 }),
      mean_latitude: Type.Number(),
      mean_longitude: Type.Number(),
      p50_distance_km: Type.Number(),
      p95_distance_km: Type.Number(),
      max_distance_km: Type.Number()
    }, { additionalProperties: false }))
  }, { additionalProperties: false })),
  provenance: Type.Object({
    units: Type.Array(SampleUnit),
    model: Type.String(),
    dataset: Type.String(),
    attribution: Type.String(),
    licence_url: Type.String(),
    source_url: Type.String(),
    processing_version: Type.String(),
    solver: Type.String(),
    descent_model: Type.String(),
    ...METHOD_FIELDS
  }, { additionalProperties: false })
}, { additionalProperties: false, $id: 'TrajectoryResponse' })
export type TrajectoryResponse = Static<typeof TrajectoryResponse>
