import { type Html, type HtmlPart, html } from '../html.ts';

/** What every page's frame needs. */
export interface PageFrame {
  title: string;
  /** What is being viewed, shown at the top right. */
  viewing: string;
  /** Whether a dashboard exists (a run folder is being viewed). */
  dashboard: boolean;
  warnings?: readonly string[];
}

/** A whole page: header with navigation, warnings, then `body`. */
export function layout(frame: PageFrame, body: HtmlPart): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · dreamgym view</title><link rel="stylesheet" href="/assets/view.css"></head>
<body><header class="top"><span class="brand">dreamgym view</span><nav>${
    frame.dashboard && html`<a href="/dashboard">Dashboard</a>`
  }<a href="/episodes">Episodes</a><a href="/episodes?paired=1">Synthetic beside real</a></nav><span class="what">${frame.viewing} · read-only</span></header>
<main>${(frame.warnings ?? []).slice(0, 5).map((w) => html`<div class="warn">${w}</div>`)}${
    (frame.warnings?.length ?? 0) > 5 &&
    html`<div class="warn">… and ${(frame.warnings?.length ?? 0) - 5} more.</div>`
  }${body}</main>
<script src="/assets/view.js" defer></script></body></html>`;
}

/** A provenance, outcome or end reason as a small coloured tag. */
export function tag(text: string, kind: string = text): Html {
  return html`<span class="tag ${kind}">${text}</span>`;
}

/** A reward as shown everywhere: three decimals. */
export function reward(value: number): string {
  return value.toFixed(3);
}
