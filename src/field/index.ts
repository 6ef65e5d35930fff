// Public API of the field room: decoded gridded data, independent of who asks.
//
//   const field = new Field({ source, pool: createPool(), registry, cacheBytes })
//   const { unit } = await field.load(await source.resolve(...), accountId)  // fetched once, decoded once
//   field.column(unit, i, j)                       // the filled column at a grid point, kept
//   bilinearStencil(unit.layout.grid, lat, lon, s) // corners and weights; tileValue(...) reads in place
export {
  Field, UnusableUnitError, BLOCK, blockAround, decodedKey, pieceBox, type DecodedUnit, type FieldOptions
} from './field.js'
export { createPool, PoolBusyError, WORKER_LOADED, type PoolOptions, type TaskName, type WorkerPool } from './pool.js'
export { UnitCache, type CacheStats, type Sized } from './unit-cache.js'
export { ColumnMemo, COLUMNS_PER_UNIT } from './column-memo.js'
export {
  TILE_VARIABLES, VAR, TileError, tileLayout, tileOffset, planeOffset,
  type TileVariable, type GridBox, type TileLayout
} from './layout.js'
export { decodeTile, selectFields } from './decode.js'
export { columnCapacity, columnOf, tileColumn } from './tile-column.js'
export {
  gridX, gridY, bilinearStencil, stencilAt, createStencil, tileHoldsStencil, tileValue, surfaceValue, type Stencil
} from './geometry.js'
export type { DecodeTask, DecodeResult, DecodedTile, UnusableUnit } from './tasks.js'
