/** Heights are above ground level (the model's or the caller's) or above mean sea level. */
export const ALTITUDE_REFERENCES = ['agl', 'msl'] as const

// Request limits published by capabilities and enforced by the schemas (docs/INTERFACE.md §8).
export const LIMITS = {
  altitudesPerRequest: { min: 1, max: 32 },
  latitude: { min: -90, max: 90 },
  longitude: { min: -180, max: 180 },
  groundElevation: { min: -1000, max: 10000 },
  keyNameLength: { min: 1, max: 80 },
  maxBodyBytes: 64 * 1024,
  /** Bulk samples' defaults (ALOFT_SAMPLES_MAX_BODY_MB, ALOFT_SAMPLES_MAX_POINTS). */
  samplesMaxBodyBytes: 32 * 1024 * 1024,
  samplesMaxPoints: 100_000,
  /** Request-rate tokens: one per started block of this many points. */
  samplesPointsPerToken: 10_000
} as const

/** A problem lists at most this many validation failures (its detail says how many there were). */
export const MAX_PROBLEM_ERRORS = 20

/** RFC 3339 as docs/DESIGN.md §3 accepts it: seconds required, fraction optional, Z or ±HH:MM. */
export const RFC3339_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$'
