// GRIB2 code tables aloft needs, as data. Parameter names are NCEP's (wgrib2 / `.idx` spelling),
// keyed "discipline.category.number"; local NCEP entries (192+) are those GFS pgrb2 files use.

const PARAMETERS: Record<string, string> = {
  // discipline 0 (meteorological), category 0: temperature
  '0.0.0': 'TMP', '0.0.1': 'VTMP', '0.0.2': 'POT', '0.0.3': 'EPOT', '0.0.4': 'TMAX', '0.0.5': 'TMIN',
  '0.0.6': 'DPT', '0.0.7': 'DEPR', '0.0.8': 'LAPR', '0.0.10': 'LHTFL', '0.0.11': 'SHTFL', '0.0.21': 'APTMP',
  // category 1: moisture
  '0.1.0': 'SPFH', '0.1.1': 'RH', '0.1.2': 'MIXR', '0.1.3': 'PWAT', '0.1.7': 'PRATE', '0.1.8': 'APCP',
  '0.1.9': 'NCPCP', '0.1.10': 'ACPCP', '0.1.11': 'SNOD', '0.1.13': 'WEASD', '0.1.22': 'CLWMR', '0.1.23': 'ICMR',
  '0.1.24': 'RWMR', '0.1.25': 'SNMR', '0.1.32': 'GRLE', '0.1.37': 'CPRAT', '0.1.39': 'CPOFP', '0.1.192': 'CRAIN',
  '0.1.193': 'CFRZR', '0.1.194': 'CICEP', '0.1.195': 'CSNOW', '0.1.196': 'CPRAT', '0.1.200': 'PEVPR',
  // category 2: momentum
  '0.2.0': 'WDIR', '0.2.1': 'WIND', '0.2.2': 'UGRD', '0.2.3': 'VGRD', '0.2.8': 'VVEL', '0.2.9': 'DZDT',
  '0.2.10': 'ABSV', '0.2.17': 'UFLX', '0.2.18': 'VFLX', '0.2.22': 'GUST', '0.2.30': 'FRICV', '0.2.192': 'VWSH',
  '0.2.194': 'USTM', '0.2.195': 'VSTM', '0.2.224': 'VRATE',
  // category 3: mass
  '0.3.0': 'PRES', '0.3.1': 'PRMSL', '0.3.3': 'ICAHT', '0.3.5': 'HGT', '0.3.9': 'HGTA', '0.3.192': 'MSLET',
  '0.3.193': '5WAVH', '0.3.194': 'U-GWD', '0.3.195': 'V-GWD', '0.3.196': 'HPBL', '0.3.197': '5WAVA',
  '0.3.200': 'PLPL',
  // categories 4-7: radiation, cloud, stability
  '0.4.192': 'DSWRF', '0.4.193': 'USWRF', '0.5.192': 'DLWRF', '0.5.193': 'ULWRF',
  '0.6.1': 'TCDC', '0.6.6': 'CWAT', '0.6.193': 'CWORK', '0.6.201': 'SUNSD',
  '0.7.6': 'CAPE', '0.7.7': 'CIN', '0.7.8': 'HLCY', '0.7.192': 'LFTX', '0.7.193': '4LFTX',
  '0.14.0': 'TOZNE', '0.14.192': 'O3MR', '0.16.196': 'REFC', '0.19.0': 'VIS', '0.19.1': 'ALBDO',
  '0.19.234': 'ICSEV',
  // discipline 2 (land surface), 10 (oceanographic)
  '2.0.0': 'LAND', '2.0.2': 'TSOIL', '2.0.5': 'WATR', '2.0.192': 'SOILW', '2.0.193': 'GFLUX', '2.0.201': 'WILT',
  '2.0.218': 'LANDN', '2.3.203': 'FLDCP', '2.4.2': 'HINDEX',
  '10.2.0': 'ICEC', '10.2.1': 'ICETK', '10.2.6': 'ICEG', '10.2.8': 'ICETMP'
}

/** NCEP short name of a parameter; unnamed ones read `VAR<d>-<c>-<n>` (the form wgrib2 prints). */
export function parameterName (discipline: number, category: number, number: number): string {
  return PARAMETERS[`${discipline}.${category}.${number}`] ?? `VAR${discipline}-${category}-${number}`
}

/** Code table 4.5 surface types aloft names (the others keep their number). */
export const LEVEL_TYPES: Record<number, string> = {
  1: 'surface', 6: 'max_wind', 7: 'tropopause', 100: 'isobaric', 101: 'mean_sea', 102: 'height_above_sea',
  103: 'height_above_ground', 104: 'sigma', 105: 'hybrid', 106: 'depth_below_land', 108: 'pressure_from_ground',
  109: 'potential_vorticity', 200: 'entire_atmosphere'
}
export const LEVEL_ISOBARIC = 100
export const LEVEL_SURFACE = 1
export const LEVEL_MISSING = 255

/** Code table 4.4: indicator of unit of time range, in hours. Months and years have no fixed length. */
export const TIME_UNIT_HOURS: Record<number, number> = {
  0: 1 / 60, 1: 1, 2: 24, 10: 3, 11: 6, 12: 12, 13: 1 / 3600
}

/** Code table 3.2: shape of the Earth, radius in metres where the code fixes a sphere. */
export const EARTH_SHAPES: Record<number, { name: string, radius?: number }> = {
  0: { name: 'sphere', radius: 6367470 },
  1: { name: 'sphere_specified' },
  2: { name: 'oblate_iau_1965' },
  3: { name: 'oblate_specified_km' },
  4: { name: 'oblate_iag_grs80' },
  5: { name: 'wgs84' },
  6: { name: 'sphere', radius: 6371229 },
  7: { name: 'oblate_specified_m' },
  8: { name: 'sphere', radius: 6371200 },
  9: { name: 'oblate_osgb' }
}

/** Data representation templates (table 5.0) aloft decodes, by the name `grib_ls` prints. */
export const PACKING_NAMES: Record<number, string> = {
  0: 'grid_simple', 2: 'grid_complex', 3: 'grid_complex_spatial_differencing', 40: 'grid_jpeg', 41: 'grid_png'
}
