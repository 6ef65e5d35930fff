// An Arrow request stream's record batch checked against the schema's columns (Arrow's
// Message.fbs): a node and the buffers its type has per column, each inside the message body and
// large enough for the rows.
import { columnLabel, type ColumnShape } from './schema-check.js'
import { type Flat, ShapeError, about } from './flatbuffers.js'

/** A record batch's rows; its nodes and buffers match the columns and lie inside its body. */
export function checkRecordBatch (fb: Flat, batch: number, columns: ColumnShape[], bodyLength: number): number {
  const rowsAt = fb.field(batch, 0, 8, 'the batch')
  const rows = rowsAt < 0 ? 0 : fb.i64(rowsAt, 'the batch\'s row count')
  if (fb.field(batch, 3, 4, 'the batch') >= 0) {
    throw new ShapeError('the batch is compressed; send an uncompressed stream')
  }
  const variadic = fb.field(batch, 4, 4, 'the batch')
  if (variadic >= 0 && fb.vector(variadic, 8, 'the batch\'s variadic buffer counts').count > 0) {
    throw new ShapeError('the batch declares variadic buffers, which no accepted column type has')
  }
  const nodesAt = fb.field(batch, 1, 4, 'the batch')
  const nodes = nodesAt < 0 ? { count: 0, start: 0 } : fb.vector(nodesAt, 16, 'the batch\'s field nodes')
  if (nodes.count !== columns.length) {
    throw new ShapeError(`the batch has ${nodes.count} field nodes for ${columns.length} columns`)
  }
  const buffersAt = fb.field(batch, 2, 4, 'the batch')
  const buffers = buffersAt < 0 ? { count: 0, start: 0 } : fb.vector(buffersAt, 16, 'the batch\'s buffers')
  const wanted = columns.reduce((sum, c) => sum + c.buffers, 0)
  if (buffers.count !== wanted) {
    throw new ShapeError(`the batch has ${buffers.count} buffers; its columns need ${wanted}`)
  }
  let b = 0
  for (let k = 0; k < columns.length; k++) {
    try {
      b = checkColumnData(fb, nodes.start + 16 * k, buffers.start, b, columns[k], k, rows, bodyLength)
    } catch (err) {
      throw about(columns[k].name, err)
    }
  }
  return rows
}

/** One column's node and buffers in a batch; the index of the next buffer. */
function checkColumnData (fb: Flat, node: number, buffersStart: number, first: number, column: ColumnShape,
  k: number, rows: number, bodyLength: number): number {
  const label = columnLabel(column.name, k)
  const length = fb.i64(node, `${label}'s length`)
  const nulls = fb.i64(node + 8, `${label}'s null count`)
  if (length !== rows) throw new ShapeError(`${label} has ${length} rows in a batch of ${rows}`)
  if (nulls > length) throw new ShapeError(`${label} declares ${nulls} nulls in ${length} rows`)
  let b = first
  for (let j = 0; j < column.buffers; j++, b++) {
    const at = buffersStart + 16 * b
    const offset = fb.i64(at, `buffer ${b}'s offset`)
    const size = fb.i64(at + 8, `buffer ${b}'s length`)
    if (offset + size > bodyLength) {
      throw new ShapeError(`buffer ${b} (${label}) spans bytes ${offset}–${offset + size} of a ${bodyLength}-byte body`)
    }
    // validity bitmap (read only with nulls), then offsets (variable width), then data
    const needed = j === 0
      ? (nulls > 0 ? Math.ceil(length / 8) : 0)
      : column.offsetWidth > 0 && j === 1
        ? (length + 1) * column.offsetWidth
        : column.width === 0 ? Math.ceil(length / 8) : column.width > 0 ? length * column.width : 0
    if (size < needed) throw new ShapeError(`buffer ${b} (${label}) has ${size} bytes; ${length} rows need ${needed}`)
  }
  return b
}
