// POST /v1/atmosphere/profile (docs/INTERFACE.md §2.1–2.5): the request, the answer, its levels,
// vertical coverage and provenance.
import { Type, type Static } from '@sinclair/typebox'
import { ALTITUDE_REFERENCES, LIMITS } from './limits.js'
import {
  DateTime, Nullable, NullableNumber, StringEnum, SurfaceLayerOption, SurfaceLayerProvenance, SurfaceLayerNodes
} from './schema-parts.js'

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
  quality: Type.Optional(StringEnum(QUALITY_OPTIONS, { default: 'best_available' })),
  surface_layer: Type.Optional(SurfaceLayerOption)
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
  surface_layer: Type.Optional(SurfaceLayerProvenance),
  surface_layer_nodes: Type.Optional(SurfaceLayerNodes),
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
