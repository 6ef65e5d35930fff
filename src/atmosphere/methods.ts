// The method strings and fixed provenance values that responses and capabilities both publish.
// One place, so the two can never drift (docs/INTERFACE.md §2.5, docs/DESIGN.md §3–4).

export const PROCESSING_VERSION = 'atmosphere-0.1.0'
export const INTERFACE_VERSION = '0.1.0'

export const SATURATION_FORMULA_LABEL = 'murphy_koop_2005'

export const METHODS = {
  density_method: 'ideal_moist_gas_from_specific_humidity_excludes_condensate',
  height_convention: 'spherical_geometric_above_model_geoid_R6371229m',
  humidity_convention: `relative_humidity_wrt_liquid_water_${SATURATION_FORMULA_LABEL}`,
  spatial_interpolation: 'nearest_grid_point',
  temporal_interpolation: 'nearest_available_model_step',
  vertical_interpolation: 'linear_u_v_temperature_specific_humidity_log_pressure_in_geometric_height'
} as const

export const SOURCE_FACTS = {
  model: 'NOAA NCEP Global Forecast System (GFS)',
  dataset: 'GFS 0.25 degree global, pressure levels (pgrb2.0p25)',
  grid_spacing_degrees: 0.25,
  is_final: false,
  attribution: 'Derived from NOAA NCEP Global Forecast System (GFS) public output; interpolated by aloft.',
  licence_url: 'https://www.weather.gov/disclaimer',
  source_url: 'https://www.nco.ncep.noaa.gov/pmb/products/gfs/'
} as const

/** Provenance's surface_layer: the layer joined, or asked for and not possible with this unit (docs/DESIGN.md §8). */
export const SURFACE_LAYER_STATES = ['gfs_height_above_ground', 'unavailable'] as const
export type SurfaceLayerState = typeof SURFACE_LAYER_STATES[number]

/** The vertical method's suffix for columns with the surface layer (docs/DESIGN.md §8). */
export const SURFACE_LAYER_METHOD_SUFFIX = '_with_surface_layer_power_law_wind_below_10m'

/** The dataset of answers whose columns joined the surface layer: both level types. */
export const SURFACE_LAYER_DATASET =
  'GFS 0.25 degree global, pressure levels and height above ground (pgrb2.0p25)'

/** Provenance's dataset and vertical method for columns that joined the surface layer. */
export function surfaceLayerMethods (
  verticalInterpolation: string
): { dataset: string, vertical_interpolation: string } {
  return { dataset: SURFACE_LAYER_DATASET, vertical_interpolation: verticalInterpolation + SURFACE_LAYER_METHOD_SUFFIX }
}

/** How q was obtained at the levels of the column (docs/DESIGN.md §4). */
export type SpecificHumiditySource = 'spfh' | 'rh_inverted_ncep_upp'

/** Every optional provenance field of docs/INTERFACE.md §2.5 with its default, ready to spread into a response. */
export const PROVENANCE_DEFAULTS = {
  ...SOURCE_FACTS,
  processing_version: PROCESSING_VERSION,
  ...METHODS
} as const

/** Bulk samples' methods (docs/DESIGN.md §6): `nearest` is the profile's own; `linear` blends. */
export const SAMPLE_METHODS = {
  nearest: METHODS,
  linear: {
    ...METHODS,
    spatial_interpolation: 'bilinear_in_grid_coordinates_of_columns',
    temporal_interpolation: 'linear_between_consecutive_steps_of_newest_run_else_nearest_available_model_step',
    vertical_interpolation: `${METHODS.vertical_interpolation}_per_column_then_blended_log_pressure`
  }
} as const
