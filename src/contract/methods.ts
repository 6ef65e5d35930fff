// The method fields every answer's provenance (and capabilities) names: one schema fragment.
import { Type } from '@sinclair/typebox'

export const METHOD_FIELDS = {
  density_method: Type.String(),
  height_convention: Type.String(),
  humidity_convention: Type.String(),
  spatial_interpolation: Type.String(),
  temporal_interpolation: Type.String(),
  vertical_interpolation: Type.String()
}
