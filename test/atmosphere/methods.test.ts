// Provenance strings must match docs/INTERFACE.md §2.5 and docs/DESIGN.md §3–4 verbatim: responses and
// capabilities share them.
import t from 'tap'
import {
  INTERFACE_VERSION, METHODS, PROCESSING_VERSION, PROVENANCE_DEFAULTS, SATURATION_FORMULA_LABEL, SOURCE_FACTS
} from '../../src/atmosphere/methods.js'

t.test('docs/INTERFACE.md §2.5 defaults', async t => {
  t.equal(PROCESSING_VERSION, 'atmosphere-0.1.0')
  t.equal(INTERFACE_VERSION, '0.1.0')
  t.same(METHODS, {
    density_method: 'ideal_moist_gas_from_specific_humidity_excludes_condensate',
    height_convention: 'spherical_geometric_above_model_geoid_R6371229m',
    humidity_convention: 'relative_humidity_wrt_liquid_water_murphy_koop_2005',
    spatial_interpolation: 'nearest_grid_point',
    temporal_interpolation: 'nearest_available_model_step',
    vertical_interpolation: 'linear_u_v_temperature_specific_humidity_log_pressure_in_geometric_height'
  })
  t.ok(METHODS.humidity_convention.endsWith(SATURATION_FORMULA_LABEL))
})

t.test('docs/DESIGN.md §3 source facts', async t => {
  t.equal(SOURCE_FACTS.model, 'NOAA NCEP Global Forecast System (GFS)')
  t.equal(SOURCE_FACTS.dataset, 'GFS 0.25 degree global, pressure levels (pgrb2.0p25)')
  t.equal(SOURCE_FACTS.grid_spacing_degrees, 0.25)
  t.equal(SOURCE_FACTS.is_final, false)
  t.equal(SOURCE_FACTS.licence_url, 'https://www.weather.gov/disclaimer')
  t.equal(SOURCE_FACTS.source_url, 'https://www.nco.ncep.noaa.gov/pmb/products/gfs/')
  t.match(SOURCE_FACTS.attribution, /NOAA NCEP.*GFS.*interpolated by aloft/)
})

t.test('one object with every optional provenance default', async t => {
  t.same(PROVENANCE_DEFAULTS, { ...SOURCE_FACTS, processing_version: PROCESSING_VERSION, ...METHODS })
  t.same(Object.keys(PROVENANCE_DEFAULTS).sort(), [
    'attribution', 'dataset', 'density_method', 'grid_spacing_degrees', 'height_convention', 'humidity_convention',
    'is_final', 'licence_url', 'model', 'processing_version', 'source_url', 'spatial_interpolation',
    'temporal_interpolation', 'vertical_interpolation'
  ])
})
