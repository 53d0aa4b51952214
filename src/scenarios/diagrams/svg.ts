/**
 * A state table drawn as a self-contained SVG, laid out by the package itself (no browser, no
 * library): a small layered layout (Sugiyama-style). Cycles are broken by a depth-first walk from
 * `[*]` in table order, states are put on layers by longest path, an arrow spanning several layers
 * goes through one waypoint per layer, and each layer is ordered by four rounds of barycentres.
 * Every step iterates in table order and every coordinate is rounded to 0.1, so the same table
 * and marks give the same bytes. Text is monospace, so its width is known without measuring.
 *
 * Marks: an arrow taken is green with its count, one never taken is red and dashed, one coverage
 * does not count is grey; a state reached is green, one never reached red; a state holding stored
 * items has a blue border and a badge with their number.
 */
import { START, type DiagramMarks, type StateTable } from "./tables.js";

const CHAR_W = 7.2;
const FONT = 12;
const NODE_H = 30;
const NODE_H_MARKED = 42;
const GAP_X = 28;
const GAP_Y = 64;
const MARGIN = 24;
const DUMMY_W = 14;
const START_R = 8;

const COLORS = {
  reached: { stroke: "#2e7d32", fill: "#e8f5e9", text: "#1b5e20" },
  never: { stroke: "#c62828", fill: "#fde2e2", text: "#8a1c1c" },
  untraced: { stroke: "#757575", fill: "#f5f5f5", text: "#424242" },
  plain: { stroke: "#455a64", fill: "#f7f9fa", text: "#263238" },
} as const;
type Tone = keyof typeof COLORS;

/** A layout node: a state, the start pseudo-state, or a waypoint of a long arrow. */
interface LayoutNode {
  readonly kind: "state" | "start" | "dummy";
  readonly label: string;
  readonly width: number;
  layer: number;
  order: number;
  x: number;
  y: number;
}

/** An arrow between two different nodes, as laid out. */
interface LayoutEdge {
  /** Index into the table's transitions. */
  readonly row: number;
  /** Node indices along the arrow, upper layer first. */
  readonly chain: number[];
  /** Whether the arrow runs upwards (drawn from the chain's end to its start). */
  readonly reversed: boolean;
}

function fmt(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return Object.is(rounded, -0) ? "0" : String(rounded);
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c] ?? c);
}

function textWidth(text: string, size = FONT): number {
  return text.length * CHAR_W * (size / FONT);
}

/** The tone of arrow `row` under `marks`. */
function arrowTone(table: StateTable, marks: DiagramMarks, row: number): Tone {
  if (marks.transitions === undefined) return "plain";
  if (table.transitions[row]?.counted === undefined) return "untraced";
  return (marks.transitions[row] ?? 0) > 0 ? "reached" : "never";
}

function stateTone(marks: DiagramMarks, state: string): Tone {
  if (marks.states === undefined) return "plain";
  return (marks.states.get(state) ?? 0) > 0 ? "reached" : "never";
}

/** An arrow's label: its event and, with coverage, its count. */
function arrowLabel(table: StateTable, marks: DiagramMarks, row: number): string {
  const transition = table.transitions[row];
  const parts: string[] = [];
  if (transition?.event !== undefined) parts.push(transition.event);
  const tone = arrowTone(table, marks, row);
  if (tone === "reached") parts.push(`\u00d7${marks.transitions?.[row] ?? 0}`);
  else if (tone === "never") parts.push("never");
  return parts.join(" ");
}

/** Lays the table out: nodes with coordinates, arrows between different nodes, and self-loops by state. */
function layout(table: StateTable, marks: DiagramMarks, marked: boolean): { nodes: LayoutNode[]; edges: LayoutEdge[]; loops: Map<number, number[]>; width: number; height: number } {
  const nodeH = marked ? NODE_H_MARKED : NODE_H;
  const nodes: LayoutNode[] = [];
  const index = new Map<string, number>();
  const hasStart = table.transitions.some((row) => row.from === START);
  if (hasStart) {
    index.set(START, nodes.length);
    nodes.push({ kind: "start", label: START, width: START_R * 2, layer: 0, order: 0, x: 0, y: 0 });
  }
  for (const state of table.states) {
    index.set(state, nodes.length);
    nodes.push({ kind: "state", label: state, width: Math.max(64, textWidth(state) + 24), layer: 0, order: 0, x: 0, y: 0 });
  }
  const stateCount = nodes.length;
  const loops = new Map<number, number[]>();
  const arrows: { row: number; from: number; to: number }[] = [];
  table.transitions.forEach((row, i) => {
    const from = index.get(row.from);
    const to = index.get(row.to);
    if (from === undefined || to === undefined) throw new Error(`infra-doubles: table ${table.name}: arrow ${row.from} -> ${row.to} names an unknown state`);
    if (from === to) loops.set(from, [...(loops.get(from) ?? []), i]);
    else arrows.push({ row: i, from, to });
  });

  // Cycles: a depth-first walk from [*] then every state in table order; an arrow to a node on
  // the walk's stack is a back arrow, laid out reversed.
  const out = new Map<number, { arrow: number; to: number }[]>();
  arrows.forEach((arrow, i) => out.set(arrow.from, [...(out.get(arrow.from) ?? []), { arrow: i, to: arrow.to }]));
  const back = new Set<number>();
  const seen = new Array<number>(stateCount).fill(0); // 0 new, 1 on stack, 2 done
  for (let root = 0; root < stateCount; root++) {
    if (seen[root] !== 0) continue;
    const stack: { node: number; next: number }[] = [{ node: root, next: 0 }];
    seen[root] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { node: number; next: number };
      const edges = out.get(top.node) ?? [];
      if (top.next >= edges.length) {
        seen[top.node] = 2;
        stack.pop();
        continue;
      }
      const edge = edges[top.next++] as { arrow: number; to: number };
      if (seen[edge.to] === 1) back.add(edge.arrow);
      else if (seen[edge.to] === 0) {
        seen[edge.to] = 1;
        stack.push({ node: edge.to, next: 0 });
      }
    }
  }
  const dag = arrows.map((arrow, i) => (back.has(i) ? { row: arrow.row, from: arrow.to, to: arrow.from, reversed: true } : { ...arrow, reversed: false }));

  // Layers: longest path from the sources, in a topological order that prefers table order.
  const indegree = new Array<number>(stateCount).fill(0);
  for (const edge of dag) indegree[edge.to] = (indegree[edge.to] ?? 0) + 1;
  const ready: number[] = [];
  for (let n = 0; n < stateCount; n++) if (indegree[n] === 0) ready.push(n);
  while (ready.length > 0) {
    ready.sort((a, b) => a - b);
    const n = ready.shift() as number;
    for (const edge of dag) {
      if (edge.from !== n) continue;
      const target = nodes[edge.to] as LayoutNode;
      target.layer = Math.max(target.layer, (nodes[n] as LayoutNode).layer + 1);
      indegree[edge.to] = (indegree[edge.to] ?? 0) - 1;
      if (indegree[edge.to] === 0) ready.push(edge.to);
    }
  }

  // Waypoints: one node per layer crossed.
  const edges: LayoutEdge[] = dag.map((edge) => {
    const chain = [edge.from];
    const from = nodes[edge.from] as LayoutNode;
    const to = nodes[edge.to] as LayoutNode;
    for (let layer = from.layer + 1; layer < to.layer; layer++) {
      chain.push(nodes.length);
      nodes.push({ kind: "dummy", label: "", width: DUMMY_W, layer, order: 0, x: 0, y: 0 });
    }
    chain.push(edge.to);
    return { row: edge.row, chain, reversed: edge.reversed };
  });

  // Order within layers: creation order, then barycentre rounds down and up (stable sorts).
  const layerCount = Math.max(0, ...nodes.map((n) => n.layer)) + 1;
  const layers: number[][] = Array.from({ length: layerCount }, () => []);
  nodes.forEach((node, n) => (layers[node.layer] as number[]).push(n));
  const up = new Map<number, number[]>();
  const down = new Map<number, number[]>();
  for (const edge of edges) {
    for (let i = 0; i + 1 < edge.chain.length; i++) {
      const a = edge.chain[i] as number;
      const b = edge.chain[i + 1] as number;
      down.set(a, [...(down.get(a) ?? []), b]);
      up.set(b, [...(up.get(b) ?? []), a]);
    }
  }
  const renumber = (layer: number[]): void => layer.forEach((n, i) => ((nodes[n] as LayoutNode).order = i));
  layers.forEach(renumber);
  const sweep = (layer: number[], neighbours: Map<number, number[]>): void => {
    const keyed = layer.map((n, i) => {
      const near = neighbours.get(n) ?? [];
      const key = near.length === 0 ? i : near.reduce((sum, m) => sum + (nodes[m] as LayoutNode).order, 0) / near.length;
      return { n, key, i };
    });
    keyed.sort((a, b) => a.key - b.key || a.i - b.i);
    keyed.forEach((k, i) => (layer[i] = k.n));
    renumber(layer);
  };
  for (let round = 0; round < 4; round++) {
    for (let l = 1; l < layerCount; l++) sweep(layers[l] as number[], up);
    for (let l = layerCount - 2; l >= 0; l--) sweep(layers[l] as number[], down);
  }

  // Coordinates: layers top-down, each centred; a node's x and y are its centre.
  const loopRoom = (n: number): number => ((loops.get(n)?.length ?? 0) === 0 ? 0 : 40 + 18 * ((loops.get(n)?.length ?? 1) - 1) + Math.max(...(loops.get(n) ?? []).map((row) => textWidth(arrowLabel(table, marks, row)))));
  const widths = layers.map((layer) => layer.reduce((sum, n) => sum + (nodes[n] as LayoutNode).width + loopRoom(n), 0) + GAP_X * Math.max(0, layer.length - 1));
  const width = Math.max(200, ...widths) + 2 * MARGIN + 80;
  layers.forEach((layer, l) => {
    let x = (width - (widths[l] ?? 0)) / 2;
    for (const n of layer) {
      const node = nodes[n] as LayoutNode;
      node.x = x + node.width / 2;
      node.y = MARGIN + 10 + l * (nodeH + GAP_Y) + nodeH / 2;
      x += node.width + loopRoom(n) + GAP_X;
    }
  });
  const height = MARGIN + 10 + layerCount * (nodeH + GAP_Y) - GAP_Y + MARGIN;
  return { nodes, edges, loops, width, height };
}

/** Splits `text` into lines of at most `max` characters at spaces. */
function wrap(text: string, max: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && line.length + 1 + word.length > max) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines;
}

/**
 * The SVG of `table` (a standalone `<svg>` element, UTF-8 text, no scripts, no external
 * references; ids prefixed with `sd-<table name>-` so several can share a page).
 * @param marks - coverage counts and current-state counts to draw (see {@link coverageMarks}).
 * @example writeFileSync("runs.svg", stateDiagramSvg(stateTable("runs")!, coverageMarks(stateTable("runs")!, report)));
 */
export function stateDiagramSvg(table: StateTable, marks: DiagramMarks = {}): string {
  const marked = marks.transitions !== undefined || marks.states !== undefined || marks.current !== undefined;
  const { nodes, edges, loops, width: laidWidth, height: laidHeight } = layout(table, marks, marked);
  const nodeH = marked ? NODE_H_MARKED : NODE_H;
  const id = `sd-${table.name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const legend: string[] = [];
  if (marks.transitions !== undefined) legend.push("green: taken (times), red dashed: never taken, grey: not counted by coverage");
  if (marks.current !== undefined) legend.push("blue border and badge: items stored in that state now");
  // Wide enough for the legend; the note wraps to that width.
  const width = Math.max(laidWidth, ...legend.map((line) => textWidth(line, 11) + 2 * MARGIN));
  const notes = [...(table.note === undefined ? [] : wrap(table.note, Math.floor((width - 2 * MARGIN) / textWidth("x", 11)))), ...legend];
  const height = laidHeight + notes.length * 16 + (notes.length > 0 ? 8 : 0);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="state-diagram" data-table="${escapeXml(table.name)}" width="${fmt(width)}" height="${fmt(height)}" viewBox="0 0 ${fmt(width)} ${fmt(height)}" font-family="ui-monospace,SFMono-Regular,Menlo,Consolas,monospace" font-size="${FONT}" role="img" aria-labelledby="${id}-title">`,
  );
  parts.push(`<title id="${id}-title">${escapeXml(`${table.title} (${table.service}): state diagram`)}</title>`);
  parts.push("<defs>");
  for (const tone of Object.keys(COLORS) as Tone[]) {
    parts.push(`<marker id="${id}-arrow-${tone}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="${COLORS[tone].stroke}"/></marker>`);
  }
  parts.push("</defs>");
  parts.push(`<rect x="0" y="0" width="${fmt(width)}" height="${fmt(height)}" fill="#ffffff"/>`);
  parts.push(`<text x="${MARGIN}" y="${MARGIN - 4}" font-weight="bold">${escapeXml(`${table.title} (${table.service})`)}</text>`);

  const labels: Label[] = [];
  // Arrows between different nodes; parallel ones between the same two adjacent nodes bend apart.
  const pairs = new Map<string, number[]>();
  edges.forEach((edge, i) => {
    if (edge.chain.length !== 2) return;
    const key = [...edge.chain].sort((a, b) => a - b).join(",");
    pairs.set(key, [...(pairs.get(key) ?? []), i]);
  });
  edges.forEach((edge, i) => {
    const row = table.transitions[edge.row];
    if (row === undefined) return;
    const tone = arrowTone(table, marks, edge.row);
    let offset = 0;
    let stack = 0;
    if (edge.chain.length === 2) {
      const group = pairs.get([...edge.chain].sort((a, b) => a - b).join(",")) ?? [i];
      stack = group.indexOf(i) - (group.length - 1) / 2;
      offset = stack * 36;
    }
    const points = edge.chain.map((n, k) => {
      const node = nodes[n] as LayoutNode;
      const half = node.kind === "state" ? nodeH / 2 : node.kind === "start" ? START_R : 0;
      if (k === 0) return { x: node.x, y: node.y + half };
      if (k === edge.chain.length - 1) return { x: node.x, y: node.y - half };
      return { x: node.x, y: node.y };
    });
    if (edge.reversed) points.reverse();
    let d = `M${fmt((points[0] as { x: number }).x)},${fmt((points[0] as { y: number }).y)}`;
    for (let k = 1; k < points.length; k++) {
      const a = points[k - 1] as { x: number; y: number };
      const b = points[k] as { x: number; y: number };
      const dy = (b.y - a.y) / 2;
      d += `C${fmt(a.x + offset)},${fmt(a.y + dy)} ${fmt(b.x + offset)},${fmt(b.y - dy)} ${fmt(b.x)},${fmt(b.y)}`;
    }
    const middle = Math.floor((points.length - 1) / 2);
    const a = points[middle] as { x: number; y: number };
    const b = points[middle + 1] as { x: number; y: number };
    const label = arrowLabel(table, marks, edge.row);
    const count = marks.transitions?.[edge.row];
    const colour = COLORS[tone];
    parts.push(
      `<g class="transition ${tone}" data-from="${escapeXml(row.from)}" data-to="${escapeXml(row.to)}"${row.event === undefined ? "" : ` data-event="${escapeXml(row.event)}"`}${count === undefined ? "" : ` data-count="${count}"`}><title>${escapeXml(`${row.from} -> ${row.to}${row.event === undefined ? "" : ` (${row.event})`}${row.guard === undefined ? "" : `: ${row.guard}`}`)}</title><path d="${d}" fill="none" stroke="${colour.stroke}" stroke-width="${tone === "reached" ? 2 : 1.3}"${tone === "never" ? ' stroke-dasharray="5 4"' : ""} marker-end="url(#${id}-arrow-${tone})"/></g>`,
    );
    // Labels of parallel arrows are stacked, one line each, so they never overlap one another.
    if (label !== "") labels.push({ x: (a.x + b.x) / 2 + 0.75 * offset, y: (a.y + b.y) / 2 + stack * 16, text: label, fill: colour.text });
  });
  // Self-loops on the right of their state.
  for (const [n, rows] of loops) {
    const node = nodes[n] as LayoutNode;
    rows.forEach((rowIndex, k) => {
      const row = table.transitions[rowIndex];
      if (row === undefined) return;
      const tone = arrowTone(table, marks, rowIndex);
      const colour = COLORS[tone];
      const right = node.x + node.width / 2;
      const reach = 26 + 18 * k;
      const d = `M${fmt(right)},${fmt(node.y - 7)}C${fmt(right + reach)},${fmt(node.y - 7 - reach / 2)} ${fmt(right + reach)},${fmt(node.y + 7 + reach / 2)} ${fmt(right)},${fmt(node.y + 7)}`;
      const count = marks.transitions?.[rowIndex];
      parts.push(
        `<g class="transition ${tone}" data-from="${escapeXml(row.from)}" data-to="${escapeXml(row.to)}"${row.event === undefined ? "" : ` data-event="${escapeXml(row.event)}"`}${count === undefined ? "" : ` data-count="${count}"`}><title>${escapeXml(`${row.from} -> ${row.to}${row.event === undefined ? "" : ` (${row.event})`}`)}</title><path d="${d}" fill="none" stroke="${colour.stroke}" stroke-width="${tone === "reached" ? 2 : 1.3}"${tone === "never" ? ' stroke-dasharray="5 4"' : ""} marker-end="url(#${id}-arrow-${tone})"/></g>`,
      );
      const label = arrowLabel(table, marks, rowIndex);
      if (label !== "") labels.push({ x: right + reach * 0.75 + 4 + textWidth(label, 11) / 2, y: node.y + (k - (rows.length - 1) / 2) * 15, text: label, fill: colour.text });
    });
  }
  // States over the arrows, labels over everything.
  for (const node of nodes) {
    if (node.kind === "start") {
      parts.push(`<g class="start"><title>[*]: where items start</title><circle cx="${fmt(node.x)}" cy="${fmt(node.y)}" r="${START_R}" fill="#263238"/></g>`);
      continue;
    }
    if (node.kind !== "state") continue;
    const state = node.label;
    const tone = stateTone(marks, state);
    const colour = COLORS[tone];
    const reached = marks.states?.get(state);
    const now = marks.current?.get(state) ?? 0;
    const final = table.final.includes(state);
    const x = node.x - node.width / 2;
    const y = node.y - nodeH / 2;
    const attrs = [`class="state ${tone}${now > 0 ? " current" : ""}${final ? " final" : ""}"`, `data-state="${escapeXml(state)}"`];
    if (reached !== undefined) attrs.push(`data-reached="${reached}"`);
    if (marks.current !== undefined) attrs.push(`data-current="${now}"`);
    const title = `${state}${final ? " (final)" : ""}${reached === undefined ? "" : `: reached ${reached} time${reached === 1 ? "" : "s"}`}${marks.current === undefined ? "" : `; ${now} stored now`}`;
    parts.push(`<g ${attrs.join(" ")}><title>${escapeXml(title)}</title>`);
    parts.push(`<rect x="${fmt(x)}" y="${fmt(y)}" width="${fmt(node.width)}" height="${nodeH}" rx="8" fill="${colour.fill}" stroke="${now > 0 ? "#1565c0" : colour.stroke}" stroke-width="${now > 0 ? 3 : 1.3}"/>`);
    if (final) parts.push(`<rect x="${fmt(x + 3)}" y="${fmt(y + 3)}" width="${fmt(node.width - 6)}" height="${nodeH - 6}" rx="6" fill="none" stroke="${colour.stroke}" stroke-width="1"/>`);
    const sub = reached === undefined ? undefined : reached > 0 ? `\u00d7${reached}` : "never";
    parts.push(`<text x="${fmt(node.x)}" y="${fmt(sub === undefined ? node.y + 4 : node.y - 2)}" text-anchor="middle" fill="${colour.text}">${escapeXml(state)}</text>`);
    if (sub !== undefined) parts.push(`<text x="${fmt(node.x)}" y="${fmt(node.y + 12)}" text-anchor="middle" font-size="10" fill="${colour.text}">${escapeXml(sub)}</text>`);
    if (now > 0) {
      const badge = String(now);
      const r = Math.max(9, textWidth(badge, 10) / 2 + 4);
      parts.push(`<circle cx="${fmt(x + node.width)}" cy="${fmt(y)}" r="${fmt(r)}" fill="#1565c0"/><text x="${fmt(x + node.width)}" y="${fmt(y + 3.5)}" text-anchor="middle" font-size="10" fill="#ffffff">${escapeXml(badge)}</text>`);
    }
    parts.push("</g>");
  }
  parts.push(...placeLabels(labels).map((label) => labelAt(label)));
  notes.forEach((line, i) => parts.push(`<text class="note" x="${MARGIN}" y="${fmt(laidHeight + 12 + i * 16)}" font-size="11" fill="#546e7a">${escapeXml(line)}</text>`));
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

/** An arrow's label: its centre, text and colour. */
interface Label {
  readonly x: number;
  y: number;
  readonly text: string;
  readonly fill: string;
}

/** Moves each label (in drawing order) down a line until it overlaps no label placed before it (at most 6 lines). */
function placeLabels(labels: Label[]): Label[] {
  const placed: Label[] = [];
  const overlaps = (a: Label, b: Label): boolean =>
    Math.abs(a.x - b.x) * 2 < textWidth(a.text, 11) + textWidth(b.text, 11) + 12 && Math.abs(a.y - b.y) < 15;
  for (const label of labels) {
    for (let tries = 0; tries < 6 && placed.some((other) => overlaps(label, other)); tries++) label.y += 16;
    placed.push(label);
  }
  return placed;
}

/** A label with a white backing so it reads over the arrows. */
function labelAt({ x, y, text, fill }: Label): string {
  const w = textWidth(text, 11) + 6;
  return `<g class="label"><rect x="${fmt(x - w / 2)}" y="${fmt(y - 8)}" width="${fmt(w)}" height="15" rx="3" fill="#ffffff" fill-opacity="0.85"/><text x="${fmt(x)}" y="${fmt(y + 3.5)}" text-anchor="middle" font-size="11" fill="${fill}">${escapeXml(text)}</text></g>`;
}
