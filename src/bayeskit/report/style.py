"""The report's one stylesheet, inlined into the page (no fonts or files are fetched)."""

CSS = """
:root {
  --ink: #1b1f24; --muted: #5b636e; --line: #d9dee4; --soft: #f4f6f8; --card: #ffffff;
  --accent: #0072B2; --good: #009E73; --bad: #D55E00;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
    "Noto Sans", "Liberation Sans", sans-serif;
  color: var(--ink); background: var(--soft); line-height: 1.45;
}
* { box-sizing: border-box; }
body { margin: 0; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 20px 56px; }
header h1 { font-size: 1.75rem; margin: 0 0 4px; letter-spacing: -0.01em; overflow-wrap: anywhere; }
.subtitle { color: var(--muted); margin: 0 0 14px; }
nav { display: flex; flex-wrap: wrap; gap: 6px 14px; margin: 0 0 22px; font-size: 0.92rem; }
nav a { color: var(--accent); text-decoration: none; }
nav a:hover { text-decoration: underline; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 18px 20px 20px; margin: 0 0 18px; }
h2 { font-size: 1.15rem; margin: 0 0 4px; }
h3 { font-size: 0.98rem; margin: 0 0 6px; }
.how { color: var(--muted); font-size: 0.9rem; margin: 0 0 14px; max-width: 78ch; }
.metrics { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr));
  gap: 12px; margin: 0 0 18px; }
.metric { background: var(--card); border: 1px solid var(--line); border-radius: 10px;
  padding: 12px 14px; border-top: 4px solid var(--accent); }
.metric .label { font-size: 0.82rem; color: var(--muted); text-transform: uppercase;
  letter-spacing: 0.04em; }
.metric .value { font-size: 1.9rem; font-weight: 650; font-variant-numeric: tabular-nums; }
.metric .context { font-size: 0.82rem; color: var(--muted); }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 22px; }
.multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr));
  gap: 14px 18px; }
figure { margin: 0; }
figcaption { color: var(--muted); font-size: 0.85rem; margin-top: 4px; }
svg.chart { display: block; width: 100%; height: auto; }
svg.legendstrip { width: auto; max-width: 100%; margin: 0 0 10px; }
svg.chart { fill: var(--ink); }
svg text { font-family: inherit; }
svg .ticklabel { font-size: 11px; fill: #3d434b; }
svg .axislabel { font-size: 12px; fill: var(--muted); }
svg .charttitle { font-size: 13px; font-weight: 600; }
svg .legend { font-size: 11.5px; }
svg .legendbox { fill: #ffffff; fill-opacity: 0.88; stroke: var(--line); }
svg .muted, svg tspan.muted { fill: var(--muted); font-weight: 400; }
svg .axis { fill: none; stroke: #59616b; stroke-width: 1; }
svg .tick { stroke: #59616b; stroke-width: 1; }
svg .grid { stroke: #eceff2; stroke-width: 1; }
svg .reference { stroke: #8a8f98; stroke-width: 1.2; stroke-dasharray: 3 4; }
svg .cell { stroke: #ffffff; stroke-width: 1.5; }
svg .cellcount { font-weight: 600; font-variant-numeric: tabular-nums; }
svg .cellshare { font-size: 10.5px; }
svg .bar { fill: #9ecae1; }
svg .barlabel { font-size: 10px; fill: var(--muted); font-variant-numeric: tabular-nums; }
svg .dot { fill: #0072B2; stroke: #ffffff; stroke-width: 1.5; }
svg .errorbar { stroke: #0072B2; stroke-width: 1.4; stroke-opacity: 0.6; }
svg .hist { fill-opacity: 0.16; stroke-opacity: 0.45; stroke-width: 1; }
svg .cliplabel { font-size: 9.5px; }
svg .balancelabel { font-size: 12px; font-weight: 600; }
table { border-collapse: collapse; width: 100%; font-size: 0.92rem;
  font-variant-numeric: tabular-nums; }
th, td { padding: 6px 10px; border-bottom: 1px solid var(--line); text-align: right; }
th { font-weight: 600; color: var(--muted); font-size: 0.82rem; text-transform: uppercase;
  letter-spacing: 0.03em; }
th:first-child, td:first-child { text-align: left; }
tr.total td { font-weight: 600; border-top: 2px solid var(--line); }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px;
  margin-right: 8px; vertical-align: baseline; }
.scroll { overflow-x: auto; }
dl.setup { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0 0 14px; }
dl.setup dt { color: var(--muted); }
dl.setup dd { margin: 0; overflow-wrap: anywhere; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace;
  font-size: 0.86em; background: var(--soft); padding: 1px 5px; border-radius: 4px; }
footer { color: var(--muted); font-size: 0.85rem; margin-top: 8px; }
@media (max-width: 560px) { main { padding: 16px 10px 40px; } section { padding: 14px 12px; } }
@media print {
  body { background: #ffffff; } section { break-inside: avoid; } nav { display: none; }
}
"""
