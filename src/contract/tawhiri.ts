// The Tawhiri paths (docs/DESIGN.md §9): what the clients balloon teams already use send and read
// (Tawhiri's docs/api.rst and the SondeHub fork's tawhiri/api.py), kept apart from aloft's own
// trajectory route, whose stricter rules stay as they are.
import { Type, type Static } from '@sinclair/typebox'

/** A key given in the path, for clients that cannot send a header: `/k/<key>/tawhiri?…`. */
export const KEY_PATH_PREFIX = '/k/'

/** The fork's clip: ascent and descent rates below this (m/s) are raised to it. */
export const TAWHIRI_MIN_RATE = 0.2

/** Tawhiri's own formats: json, or the fork's downloads. */
export const TAWHIRI_FORMATS = ['json', 'csv', 'kml'] as const
export type TawhiriFormat = typeof TAWHIRI_FORMATS[number]

/** The profiles the fork knows (reverse_profile: a balloon seen aloft flown back to the ground). */
export const TAWHIRI_PROFILES = ['standard_profile', 'float_profile', 'reverse_profile'] as const

const Num = (description: string) => Type.Optional(Type.Number({ description }))
const Text = (description: string) => Type.Optional(Type.String({ description }))

/** The query a Tawhiri client sends; any other parameter (pred_type, cache busters) is ignored. */
export const TawhiriQuery = Type.Object({
  profile: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...TAWHIRI_PROFILES],
    description: 'standard_profile (default), float_profile, or reverse_profile (from launch_* aloft back to the ' +
      'ground: the answer is a ReverseResponse)' })),
  launch_latitude: Type.Number({ minimum: -90, maximum: 90, description: 'degrees north' }),
  launch_longitude: Type.Number({ minimum: -180, exclusiveMaximum: 360,
    description: 'degrees east, 0 ≤ x < 360 as Tawhiri, or −180 … 180' }),
  launch_datetime: Type.String({ description: 'RFC 3339 (Python isoformat() with microseconds and +00:00 too)' }),
  launch_altitude: Num('m MSL (default: the model terrain)'),
  ascent_rate: Type.Number({ exclusiveMinimum: 0, description: 'm/s; below 0.2 raised to 0.2 (the fork\'s clip)' }),
  burst_altitude: Num('m MSL (standard_profile)'),
  descent_rate: Num('m/s at sea level (standard_profile); below 0.2 raised to 0.2'),
  float_altitude: Num('m MSL (float_profile)'),
  stop_datetime: Text('RFC 3339 (float_profile)'),
  dataset: Text('a model run (RFC 3339), or latest (default)'),
  format: Type.Optional(Type.Unsafe<TawhiriFormat>({ type: 'string', enum: [...TAWHIRI_FORMATS],
    description: 'json (default); csv or kml as a download' }))
}, { $id: 'TawhiriQuery' })

const Metadata = Type.Object({
  start_datetime: Type.String({ format: 'date-time' }),
  complete_datetime: Type.String({ format: 'date-time' })
}, { additionalProperties: false })

/** Every refusal on these paths: Tawhiri's error fragment (its types, and aloft's own for 401, 429, 503). */
export const TawhiriError = Type.Object({
  error: Type.Object({
    type: Type.String({ description: 'RequestException, InvalidDatasetException, PredictionException, ' +
      'InternalException; aloft\'s ApiKeyException, RateLimitException, ' +
      'DailyAllowanceException, ServiceUnavailableException' }),
    description: Type.String({ description: 'what went wrong and what to change' })
  }, { additionalProperties: false }),
  metadata: Metadata
}, { additionalProperties: false, $id: 'TawhiriError' })
export type TawhiriError = Static<typeof TawhiriError>

/** GET /api/datasetcheck: the newest model run the source holds. */
export const DatasetCheck = Type.Object({
  request: Type.Object({
    version: Type.Literal(1),
    dataset: Type.String({ format: 'date-time', description: 'the newest model run' })
  }, { additionalProperties: false }),
  warnings: Type.Object({}, { additionalProperties: false }),
  metadata: Metadata
}, { additionalProperties: false, $id: 'DatasetCheck' })
export type DatasetCheck = Static<typeof DatasetCheck>

export const RuaumokoQuery = Type.Object({
  latitude: Type.Number({ minimum: -90, maximum: 90 }),
  longitude: Type.Number({ minimum: -180, exclusiveMaximum: 360 })
}, { $id: 'RuaumokoQuery' })

/** GET /api/ruaumoko/: the ground's altitude, here the model terrain of the newest run. */
export const Ruaumoko = Type.Object({
  request: Type.Object({
    version: Type.Literal(1),
    latitude: Type.Number(),
    longitude: Type.Number()
  }, { additionalProperties: false }),
  altitude: Type.Number({ description: 'm MSL: the model terrain (bilinear) of the newest run' }),
  warnings: Type.Object({}, { additionalProperties: false }),
  metadata: Metadata
}, { additionalProperties: false, $id: 'Ruaumoko' })
export type Ruaumoko = Static<typeof Ruaumoko>

const Point = Type.Object({
  datetime: Type.String({ format: 'date-time' }),
  latitude: Type.Number(),
  longitude: Type.Number({ minimum: 0, exclusiveMaximum: 360 }),
  altitude: Type.Number()
}, { additionalProperties: false })

/**
 * profile=reverse_profile, as the SondeHub fork defines it: from a balloon seen aloft (the launch_*
 * fields) rising at ascent_rate, back in time to where it left the ground. `prediction` holds the
 * fork's two stages (a one-point `ascent`, then the `descent` read back in time);
 * `launch_estimate` is the last point, with the request's launch_datetime as the fork writes it.
 */
export const ReverseResponse = Type.Object({
  request: Type.Object({
    profile: Type.Literal('reverse_profile'),
    launch_latitude: Type.Number(),
    launch_longitude: Type.Number(),
    launch_datetime: Type.String({ format: 'date-time' }),
    launch_altitude: Type.Number(),
    ascent_rate: Type.Number(),
    dataset: Type.String({ format: 'date-time' }),
    version: Type.Literal(1)
  }, { additionalProperties: false }),
  prediction: Type.Array(Type.Object({
    stage: Type.Unsafe<'ascent' | 'descent'>({ type: 'string', enum: ['ascent', 'descent'] }),
    trajectory: Type.Array(Point)
  }, { additionalProperties: false })),
  launch_estimate: Type.Object({
    latitude: Type.Number(),
    longitude: Type.Number(),
    altitude: Type.Number(),
    datetime: Type.String({ format: 'date-time', description: 'the request\'s launch_datetime, as the fork writes it' })
  }, { additionalProperties: false }),
  metadata: Metadata,
  warnings: Type.Record(Type.String(), Type.Object({ count: Type.Integer({ minimum: 1 }), description: Type.String() },
    { additionalProperties: false }))
}, { additionalProperties: false, $id: 'ReverseResponse' })
export type ReverseResponse = Static<typeof ReverseResponse>
