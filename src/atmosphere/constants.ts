// Physical constants of docs/DESIGN.md §4, each defined once. Two families on purpose: NCEP's own values
// (used only to invert the RH that NCEP's post-processor wrote) and ours (for what we output).

/** Earth radius of the spherical geometric-height convention (provenance `height_convention`). */
export const EARTH_RADIUS_M = 6_371_229

/** Dry-air gas constant for density, J kg⁻¹ K⁻¹. */
export const R_DRY = 287.04749
/** R_d / R_v for our vapour pressure and density (docs/DESIGN.md §4). */
export const EPSILON = 0.6219569

/** Triple point of water, K (both Murphy–Koop's check value and NCEP's FPVSNEW reference). */
export const T_TRIPLE_K = 273.16

// NCEP UPP (CALRH_GFS / FPVSNEW) constants, as that code uses them: these reproduce the RH that
// NCEP computed, which is why they differ slightly from ours.
export const NCEP_R_D = 287.05
export const NCEP_R_V = 461.5
export const NCEP_EPSILON = NCEP_R_D / NCEP_R_V
export const NCEP_E_TRIPLE_PA = 610.78
export const NCEP_C_V = 1846
export const NCEP_C_L = 4185.5
export const NCEP_C_I = 2106
export const NCEP_L_V = 2.5e6
export const NCEP_L_F = 3.3358e5
/** Below this FPVSNEW is pure ice; from T_TRIPLE_K up pure liquid; linear blend between. */
export const NCEP_T_ICE_K = 253.16
