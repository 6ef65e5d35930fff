// The bundled map's lines drawn on one canvas. Leaflet's own vector layers would build a LatLng
// and project a Point for each of the ~500 000 vertices on every zoom (seconds of work on a slow
// machine); here they stay in flat Web Mercator arrays and each redraw scales the parts in view,
// skipping vertices that fall within half a pixel of the last one drawn. Leaflet's Canvas
// renderer is reused for what it does well: sizing and placing the canvas, and scaling it during
// zoom animations; only its drawing step is replaced.
import * as L from 'leaflet'
import type { LineLayer } from './map-data.js'

/** The renderer's internals this drawing step reads (Leaflet 1.9's L.Canvas). */
interface CanvasInternals {
  _ctx: CanvasRenderingContext2D
  _map: L.Map
  _bounds: L.Bounds
  _container: HTMLCanvasElement
}

interface Style {
  fill?: string
  stroke?: string
  width: number
  dash?: number[]
}

/** Colours come from the stylesheet's custom properties, so the map's look lives in style.css. */
function styles (el: HTMLElement): Record<string, Style> {
  const css = getComputedStyle(el)
  const v = (name: string): string => css.getPropertyValue(name).trim()
  return {
    land: { fill: v('--map-land'), stroke: v('--map-coast'), width: 0.8 },
    lakes: { fill: v('--map-water'), stroke: v('--map-coast'), width: 0.5 },
    rivers: { stroke: v('--map-river'), width: 1 },
    borders: { stroke: v('--map-border'), width: 1.1, dash: [5, 2, 1, 2] }
  }
}

/** Minimum move (px, across plus down) for a vertex to be drawn: half a pixel is invisible. */
const MIN_STEP = 0.5

function draw (r: CanvasInternals, layers: LineLayer[]): void {
  const ctx = r._ctx
  const map = r._map
  const scale = 256 * 2 ** map.getZoom()
  const origin = map.getPixelOrigin()
  // the canvas's area in world units (it may span several copies of the world when zoomed out)
  const x0 = (r._bounds.min!.x + origin.x) / scale
  const x1 = (r._bounds.max!.x + origin.x) / scale
  const y0 = (r._bounds.min!.y + origin.y) / scale
  const y1 = (r._bounds.max!.y + origin.y) / scale
  const look = styles(map.getContainer())
  const drawn: string[] = []
  ctx.save()
  ctx.lineJoin = 'round'
  for (const layer of layers) {
    const style = look[layer.name]
    let count = 0
    ctx.beginPath()
    for (let copy = Math.floor(x0); copy <= Math.floor(x1); copy++) {
      for (let k = 0; k + 1 < layer.start.length; k++) {
        const b = 4 * k
        if (layer.box[b] + copy > x1 || layer.box[b + 2] + copy < x0 || layer.box[b + 1] > y1 ||
          layer.box[b + 3] < y0) continue
        count += trace(ctx, layer, k, scale, (copy * scale) - origin.x, -origin.y)
      }
    }
    if (style.fill !== undefined && layer.kind === 'polygons') {
      ctx.fillStyle = style.fill
      ctx.fill('evenodd')
    }
    if (style.stroke !== undefined) {
      ctx.strokeStyle = style.stroke
      ctx.lineWidth = style.width
      ctx.setLineDash(style.dash ?? [])
      ctx.stroke()
    }
    drawn.push(`${layer.name} ${count}`)
  }
  ctx.restore()
  // what the last redraw drew (vertices per layer), for the tests and for curious people
  r._container.dataset.drawn = drawn.join(', ')
}

/** One part as a subpath in layer pixels; returns the vertices drawn. */
function trace (ctx: CanvasRenderingContext2D, layer: LineLayer, k: number, scale: number, dx: number,
  dy: number): number {
  const xy = layer.xy
  const first = layer.start[k]
  const last = layer.start[k + 1] - 1
  let px = xy[2 * first] * scale + dx
  let py = xy[2 * first + 1] * scale + dy
  ctx.moveTo(px, py)
  let n = 1
  for (let i = first + 1; i <= last; i++) {
    const x = xy[2 * i] * scale + dx
    const y = xy[2 * i + 1] * scale + dy
    if (i < last && Math.abs(x - px) + Math.abs(y - py) < MIN_STEP) continue
    ctx.lineTo(x, y)
    px = x
    py = y
    n++
  }
  if (layer.kind === 'polygons') ctx.closePath()
  return n
}

/** A renderer holding no Leaflet layers that draws `layers` each time Leaflet redraws it. */
export function vectorCanvas (layers: LineLayer[], pane: string): L.Renderer {
  type Extendable = { extend: (props: object) => new (options: L.RendererOptions) => L.Renderer }
  const Renderer = (L.Canvas as unknown as Extendable).extend({
    _draw (this: CanvasInternals) { draw(this, layers) }
  })
  const renderer = new Renderer({ pane, padding: 0.5 })
  renderer.on('add', () => {
    const canvas = (renderer as unknown as CanvasInternals)._container
    canvas.classList.add('ne-canvas')
    canvas.setAttribute('aria-hidden', 'true')
  })
  return renderer
}
