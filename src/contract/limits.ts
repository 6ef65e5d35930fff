// Request limits published by capabilities and enforced by the schemas (docs/INTERFACE.md §8).
export const LIMITS = {
  altitudesPerRequest: { min: 1, max: 32 },
  latitude: { min: -90, max: 90 },
  longitude: { min: -180, max: 180 },
  groundElevation: { min: -1000, max: 10000 },
  keyNameLength: { min: 1, max: 80 },
  maxBodyBytes: 64 * 1024
} as const

/** RFC 3339 as docs/DESIGN.md §3 accepts it: seconds required, fraction optional, Z or ±HH:MM. */
export const RFC3339_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$'
