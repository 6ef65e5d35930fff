// GET /v1/atmosphere/capabilities: what this instance serves, with no key needed.
import {
  type Capabilities, ALTITUDE_REFERENCES, QUALITY_OPTIONS, LIMITS, DESCENT_DENSITIES, PROFILES, TRAJECTORY_LIMITS,
  TRAJECTORY_WARNINGS, ARROW_STREAM, INTERPOLATIONS, SAMPLE_FIELDS, SAMPLE_STATUSES, routeById, FLIGHT_OUTCOMES,
  KEY_PATH_PREFIX, servedRoutes
} from '../../contract/index.js'
import { STEP_S } from '../../trajectory/index.js'
import {
  INTERFACE_VERSION, METHODS, PROCESSING_VERSION, SOURCE_FACTS, SURFACE_FIELDS, SURFACE_TOLERANCES, TOLERANCE_UNITS,
  WIND_FIELD_HEIGHT_M, surfaceLayerMethods
} from '../../atmosphere/index.js'
import type { Config } from '../../config/index.js'
import type { SourceDescription } from '../../source/index.js'

/** The profile route's body limit, as the route table sets it. */
const PROFILE_BODY_LIMIT = routeById('get_atmospheric_profile').body?.limitBytes ?? 0

const FIELDS: Capabilities['fields'] = [
  { name: 'altitude_agl_m', unit: 'm', description: 'height above the ground elevation used' },
  { name: 'altitude_msl_m', unit: 'm', description: 'height above mean sea level (the model geoid)' },
  { name: 'wind_u_ms', unit: 'm s-1', description: 'wind component towards east' },
  { name: 'wind_v_ms', unit: 'm s-1', description: 'wind component towards north' },
  { name: 'wind_speed_ms', unit: 'm s-1', description: 'wind speed' },
  { name: 'wind_direction_deg', unit: 'degree',
    description: 'direction the wind blows from, clockwise from true north, in [0, 360); 0 when calm' },
  { name: 'temperature_k', unit: 'K', description: 'air temperature' },
  { name: 'pressure_pa', unit: 'Pa', description: 'air pressure' },
  { name: 'specific_humidity_kg_kg', unit: 'kg kg-1', description: 'mass of water vapour per mass of moist air' },
  { name: 'relative_humidity_pct', unit: '%', description: 'relative humidity over liquid water (may exceed 100)' },
  { name: 'density_kg_m3', unit: 'kg m-3', description: 'moist-air density, ideal gas, excluding condensate' }
]

export function buildCapabilities (config: Config, source: SourceDescription | undefined): Capabilities {
  return {
    service: 'aloft',
    interface_version: INTERFACE_VERSION,
    processing_version: PROCESSING_VERSION,
    source: {
      configured: source !== undefined,
      kind: config.source.kind,
      status: source?.statusText ?? 'not configured: this instance has no data path',
      model: SOURCE_FACTS.model,
      dataset: SOURCE_FACTS.dataset,
      grid_spacing_degrees: source?.grid?.di ?? SOURCE_FACTS.grid_spacing_degrees,
      pressure_levels_pa: source?.levelsPa ?? [],
      time_coverage: {
        first_valid_time: source?.firstValidTime ?? null,
        last_valid_time: source?.lastValidTime ?? null,
        max_time_offset_hours: config.maxTimeOffsetHours,
        runs: source?.runs ?? [],
        runs_complete: source?.runsComplete ?? false
      },
      licence_url: SOURCE_FACTS.licence_url,
      source_url: SOURCE_FACTS.source_url,
      attribution: SOURCE_FACTS.attribution
    },
    spatial_coverage: source?.coverage ?? { latitude: { ...LIMITS.latitude }, longitude: { ...LIMITS.longitude } },
    fields: FIELDS,
    limits: {
      altitudes_per_request: { ...LIMITS.altitudesPerRequest },
      latitude: { ...LIMITS.latitude },
      longitude: { ...LIMITS.longitude },
      ground_elevation_m_msl: { ...LIMITS.groundElevation },
      key_name_length: { ...LIMITS.keyNameLength },
      max_body_bytes: PROFILE_BODY_LIMIT,
      allowance_kind: 'daily_upstream_attempts',
      period: 'utc_day',
      daily_upstream_attempts: config.dailyAllowance,
      request_rate_per_second: config.ratePerSecond,
      request_burst: config.rateBurst
    },
    samples: {
      max_points: config.samplesMaxPoints,
      max_body_bytes: config.samplesMaxBodyBytes,
      max_units: config.samplesMaxUnits,
      points_per_rate_token: LIMITS.samplesPointsPerToken,
      media_types: ['application/json', ARROW_STREAM],
      interpolations: [...INTERPOLATIONS],
      out_of_column: [null, 'nearest_level'],
      fields: [...SAMPLE_FIELDS],
      statuses: [...SAMPLE_STATUSES]
    },
    trajectory: {
      profiles: [...PROFILES],
      step_seconds: STEP_S,
      max_members: TRAJECTORY_LIMITS.maxMembers,
      steps_per_rate_token: TRAJECTORY_LIMITS.stepsPerToken,
      max_steps: config.trajectoryMaxSteps,
      max_answer_points: TRAJECTORY_LIMITS.maxAnswerPoints,
      descent_densities: [...DESCENT_DENSITIES],
      warnings: Object.keys(TRAJECTORY_WARNINGS),
      outcomes: Object.keys(FLIGHT_OUTCOMES)
    },
    tawhiri: tawhiriCapabilities(config),
    altitude_references: [...ALTITUDE_REFERENCES],
    quality_options: [...QUALITY_OPTIONS],
    default_quality: 'best_available',
    surface_layer: {
      option: 'surface_layer',
      routes: ['POST /v1/atmosphere/profile', 'POST /v1/atmosphere/samples', 'POST /v1/atmosphere/trajectory',
        'GET /v1/atmosphere/trajectory'],
      fields: surfaceLayerFields(),
      precision_rule: PRECISION_RULE,
      wind_below_m_agl: WIND_FIELD_HEIGHT_M,
      ...surfaceLayerMethods(METHODS.vertical_interpolation)
    },
    methods: { ...METHODS }
  }
}

/** The Tawhiri paths (docs/DESIGN.md §9, §10): where they are, the key in the path, their turns, public mode. */
function tawhiriCapabilities (config: Config): Capabilities['tawhiri'] {
  const open = config.publicTawhiri
  return {
    paths: servedRoutes(undefined).filter((r) => r.dialect === 'tawhiri').map((r) => r.path),
    key_in_path: `${KEY_PATH_PREFIX}{api_key}/…`,
    burst_wait_ms: config.tawhiriBurstWaitMs,
    max_waiting: config.tawhiriMaxWaiting,
    public: open === undefined
      ? null
      : {
          rate_per_second: open.ratePerSecond,
          rate_burst: open.rateBurst,
          daily_upstream_attempts: open.dailyAllowance,
          daily_upstream_attempts_per_client: open.dailyAllowancePerClient,
          in_flight_share: open.inFlightShare
        }
  }
}

/** The surface layer's fields, grouped by variable, as capabilities lists them. */
function surfaceLayerFields (): Capabilities['surface_layer']['fields'] {
  const out: Capabilities['surface_layer']['fields'] = []
  for (const [variable, h] of SURFACE_FIELDS) {
    const last = out[out.length - 1]
    if (last?.variable === variable) last.heights_m_agl.push(h)
    else {
      const tolerance = SURFACE_TOLERANCES[variable]
      out.push({ variable, heights_m_agl: [h], tolerance, unit: TOLERANCE_UNITS[variable] })
    }
  }
  return out
}

/** docs/DESIGN.md §8's precision rule, as capabilities state it. */
const PRECISION_RULE = 'a near-ground field is a node only where its packing step (2^E / 10^D of its GRIB2 data ' +
  "representation) is at most its variable's tolerance; a coarser one is left out like a missing one (GFS often " +
  'packs temperature at 80 and 100 m in whole kelvins; temperature then runs from its 2 m node to the pressure ' +
  'levels). ' +
  'Wind stands at a height only where both components do. Provenance\'s surface_layer_nodes names the heights used.'
