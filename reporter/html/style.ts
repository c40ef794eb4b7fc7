/** The page's own style sheet (uPlot's comes with it). System fonts only: the file works offline. */
export const PAGE_CSS = `
:root {
  --fg: #1d2430; --muted: #5b6573; --bg: #ffffff; --panel: #f5f7fa; --line: #d9dee5;
  --accent: #1f5fbf; --red: #c62f2f; --yellow: #b98a00; --green: #2e8540; --grey: #8a94a3;
  --red-bg: #f8d7d7; --yellow-bg: #fbefc6; --green-bg: #d8efdc; --grey-bg: #e6e9ee;
  color-scheme: light;
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; align-items: baseline; gap: 1rem; flex-wrap: wrap; padding: .75rem 1.25rem .25rem; }
header.top h1 { font-size: 1.25rem; margin: 0; }
header.top .when { color: var(--muted); }
[role=tablist] { display: flex; gap: .25rem; padding: 0 1.25rem; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
[role=tab] { font: inherit; border: 1px solid transparent; border-bottom: none; background: none; padding: .5rem .9rem; cursor: pointer; color: var(--muted); border-radius: 6px 6px 0 0; margin-bottom: -1px; }
[role=tab][aria-selected=true] { color: var(--fg); background: var(--bg); border-color: var(--line); font-weight: 600; }
[role=tab]:focus-visible, button:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible, [tabindex]:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
main { padding: 1rem 1.25rem 3rem; max-width: 1500px; }
h2 { font-size: 1.15rem; margin: 1.25rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .4rem; }
.muted { color: var(--muted); }
code.note { color: var(--muted); font-style: italic; }
.small { font-size: 12px; }
.mono, pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-word; background: var(--panel); padding: .5rem .75rem; border-radius: 6px; margin: .4rem 0; }
.banner { padding: .5rem .75rem; border-radius: 6px; background: var(--yellow-bg); margin: .5rem 0; }
.failed-tests { list-style: none; padding: 0; margin: .25rem 0 1rem; }
.failed-tests li { padding: .35rem .75rem; border-left: 3px solid var(--red); background: var(--panel); margin: .3rem 0; border-radius: 0 6px 6px 0; }
.failed-tests .reason { color: var(--red); word-break: break-word; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr)); gap: .75rem; }
.card { background: var(--panel); border-radius: 8px; padding: .65rem .85rem; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 1.35rem; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .detail { color: var(--muted); font-size: 12.5px; }
.columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 0 2rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
#tests-table th, #tests-table td { padding-left: .3rem; padding-right: .3rem; }
th { font-weight: 600; white-space: nowrap; background: var(--bg); }
.scroll { overflow-x: auto; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th button.sort { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; cursor: pointer; color: inherit; }
th[aria-sort=ascending] button.sort::after { content: ' ▲'; font-size: 10px; }
th[aria-sort=descending] button.sort::after { content: ' ▼'; font-size: 10px; }
tbody tr:hover { background: var(--panel); }
.name { word-break: break-word; }
a, button.link { color: var(--accent); }
button.link { font: inherit; background: none; border: 0; padding: 0; cursor: pointer; text-align: left; text-decoration: underline; text-underline-offset: 2px; }
.controls { display: flex; gap: .75rem; flex-wrap: wrap; align-items: end; margin: .5rem 0; }
.controls label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: .15rem; }
.controls input, .controls select, .pager button, .toggle button, .windows button { font: inherit; padding: .3rem .5rem; border: 1px solid var(--line); border-radius: 5px; background: var(--bg); color: var(--fg); }
.controls input[type=search] { min-width: 18rem; }
.pager { display: flex; gap: .5rem; align-items: center; margin: .5rem 0; }
.toggle, .windows { display: flex; gap: .25rem; flex-wrap: wrap; margin: .5rem 0; }
.toggle button[aria-pressed=true], .windows button[aria-pressed=true] { background: var(--accent); color: #fff; border-color: var(--accent); }
.chip { display: inline-block; padding: 0 .45rem; border-radius: 10px; font-size: 12px; background: var(--grey-bg); white-space: nowrap; }
.chip.red, .verdict-over, .verdict-worse, .state-failed { background: var(--red-bg); color: var(--red); }
.chip.yellow, .verdict-inconclusive { background: var(--yellow-bg); color: #7a5b00; }
.chip.green, .verdict-within, .verdict-better, .state-passed { background: var(--green-bg); color: var(--green); }
.verdict-same, .state-skipped, .state-todo, .state-pending { background: var(--grey-bg); color: var(--muted); }
.state-expected { background: #ecdff7; color: #6a3d9a; }
.use { display: inline-block; width: 70px; height: 8px; background: var(--grey-bg); border-radius: 4px; overflow: hidden; vertical-align: middle; margin-right: .35rem; }
.use > span { display: block; height: 100%; background: var(--green); }
.use.over > span { background: var(--red); }
.use.inconclusive > span { background: var(--yellow); }
.bars { display: grid; grid-template-columns: minmax(8rem, max-content) 1fr max-content; gap: .2rem .6rem; align-items: center; }
.bar { height: 12px; background: var(--grey-bg); border-radius: 3px; overflow: hidden; }
.bar > span { display: block; height: 100%; background: var(--accent); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .25rem 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; font-variant-numeric: tabular-nums; }
.chart { margin: .5rem 0; }
.caption { color: var(--muted); font-size: 12.5px; margin: .2rem 0 .6rem; }
.layout { position: relative; width: 100%; border-radius: 4px; overflow: hidden; background: var(--panel); }
.node { position: absolute; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; font-size: 11.5px; line-height: 1.25; padding: 2px 4px; border: 1px solid var(--bg); cursor: default; color: #111; }
.node.red { background: #ec9a9a; } .node.yellow { background: #f3d77a; } .node.green { background: #9fd3a9; }
.node.uncolored, .node.app { background: #a9c4ea; } .node.platform { background: #c9ced6; } .node.native { background: #d9c3a5; }
.node.group { background: #dfe4eb; font-weight: 600; }
.node.edge-red { border-left: 4px solid var(--red); } .node.edge-yellow { border-left: 4px solid var(--yellow); } .node.edge-green { border-left: 4px solid var(--green); }
.test-name { min-width: 14rem; }
td code { font-size: 11.5px; }
.budget, .delta { white-space: nowrap; }
td.num .figure, td.num .own, .budget .small { white-space: normal; }
.node.rest { background: repeating-linear-gradient(45deg, #e3e6ea, #e3e6ea 4px, #f1f3f5 4px, #f1f3f5 8px); color: var(--muted); }
.node:focus-visible { outline: 2px solid var(--accent); z-index: 2; }
.details { min-height: 1.5em; margin: .3rem 0; font-size: 12.5px; }
.legend-dot { display: inline-block; width: .7em; height: .7em; border-radius: 2px; margin-right: .25em; vertical-align: baseline; }
.empty { color: var(--muted); font-style: italic; }
.uplot { font-family: inherit; }
.lanes { margin: .1rem 0 .4rem; }
.lane { display: flex; align-items: center; height: 16px; margin: 2px 0; font-size: 11.5px; }
.lane-label { flex: none; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; text-align: right; padding-right: 6px; color: var(--muted); }
.lane-track { position: relative; height: 100%; background: var(--panel); }
.lane-track > span { position: absolute; top: 0; bottom: 0; }
.lane .busy { background: #6f95c9; }
.lane.red .busy { background: var(--red); } .lane.yellow .busy { background: var(--yellow); } .lane.green .busy { background: var(--green); }
.lane.platform .busy { background: #8a94a3; } .lane.native .busy { background: #a8865a; }
.lane .carried { background: repeating-linear-gradient(45deg, #c9a227, #c9a227 4px, #f3e3a6 4px, #f3e3a6 8px); }
`
