// The small schema builders the records share, each written once.
import { Type, type TSchema, type SchemaOptions } from '@sinclair/typebox'
import { SURFACE_LAYER_STATES } from '../atmosphere/index.js'

export const DateTime = (description: string) => Type.String({ format: 'date-time', description })
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
/** A string enum as `enum` (not `anyOf` of consts), so a wrong value gives one clear error. */
export const StringEnum = <T extends string>(values: readonly T[], options: SchemaOptions = {}) =>
  Type.Unsafe<T>({ ...options, type: 'string', enum: [...values] })
/** A nullable number with bounds as one `type: [number, null]` schema, for one clear error. */
export const NullableNumber = (options: { minimum: number, maximum: number, description?: string }) =>
  Type.Unsafe<number | null>({ ...options, type: ['number', 'null'] })

/** The request option of docs/DESIGN.md §8, the same on every route that reads a column. */
export const SurfaceLayerOption = Type.Boolean({
  default: false,
  description: "join the model's own near-ground fields (wind 10–100 m, temperature 2–100 m, humidity 2–80 m, " +
    'pressure 0 and 80 m) under the pressure levels, so the column starts at the model ground; a field packed ' +
    "coarser than its variable's tolerance is not used (provenance's surface_layer_nodes names the heights used)"
})
/** The heights each variable's surface-layer nodes stood at (docs/DESIGN.md §8's precision rule). */
export const SurfaceLayerNodes = Type.Object({
  wind: Type.Array(Type.Number()),
  temperature: Type.Array(Type.Number()),
  specific_humidity: Type.Array(Type.Number(), { description: 'with 2 m from RH at 2 m when SPFH there is not used' }),
  pressure: Type.Array(Type.Number(), { description: '0: the surface' })
}, {
  additionalProperties: false,
  description: 'metres above the model ground of the fields each variable was interpolated through, under the kept ' +
    "pressure levels: those the unit holds whose packing step is at most the variable's tolerance"
})
/** Whether the answer's columns joined the surface layer (present only when it was asked for). */
export const SurfaceLayerProvenance = StringEnum(SURFACE_LAYER_STATES, {
  description: "gfs_height_above_ground: joined; unavailable: the unit lacks the layer's fields, the column is the " +
    'pressure levels alone'
})
