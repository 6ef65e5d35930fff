// The small schema builders the records share, each written once.
import { Type, type TSchema, type SchemaOptions } from '@sinclair/typebox'

export const DateTime = (description: string) => Type.String({ format: 'date-time', description })
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])
/** A string enum as `enum` (not `anyOf` of consts), so a wrong value gives one clear error. */
export const StringEnum = <T extends string>(values: readonly T[], options: SchemaOptions = {}) =>
  Type.Unsafe<T>({ ...options, type: 'string', enum: [...values] })
/** A nullable number with bounds as one `type: [number, null]` schema, for one clear error. */
export const NullableNumber = (options: { minimum: number, maximum: number, description?: string }) =>
  Type.Unsafe<number | null>({ ...options, type: ['number', 'null'] })
