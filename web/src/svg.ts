// Building SVG and HTML by hand: attributes only (no inline style), so the page runs under a
// Content-Security-Policy without 'unsafe-inline'.
const SVG_NS = 'http://www.w3.org/2000/svg'

type Attrs = Record<string, string | number | undefined>

export function svgEl<K extends keyof SVGElementTagNameMap> (
  name: K, attrs: Attrs = {}, parent?: Element
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, name)
  for (const k in attrs) if (attrs[k] !== undefined) el.setAttribute(k, String(attrs[k]))
  if (parent !== undefined) parent.appendChild(el)
  return el
}

export function htmlEl<K extends keyof HTMLElementTagNameMap> (
  name: K, attrs: Attrs = {}, text?: string, parent?: Element
): HTMLElementTagNameMap[K] {
  const el = document.createElement(name)
  for (const k in attrs) if (attrs[k] !== undefined) el.setAttribute(k, String(attrs[k]))
  if (text !== undefined) el.textContent = text
  if (parent !== undefined) parent.appendChild(el)
  return el
}

/** A `<title>` child: the tooltip a pointer shows and the name a screen reader reads. */
export function titled<T extends SVGElement> (el: T, text: string): T {
  svgEl('title', {}, el).textContent = text
  return el
}

export function byId<T extends HTMLElement = HTMLElement> (id: string): T {
  const el = document.getElementById(id)
  if (el === null) throw new Error(`the page has no #${id}`)
  return el as T
}
