/**
 * `/system/timeline`: one collector's or one alert's story (the `GET /api/system/timeline` body),
 * rendered on the server: a strip that shows at a glance when it ran, when its alerts fired and when
 * they were held back, then every event in time order with each channel's delivery result.
 * docs/monitor-page.md.
 */
import { raw } from "hono/html";
import type { JSXNode } from "hono/jsx";
import type { z } from "zod";
import type { TimelineSchema } from "../schemas/timeline.ts";
import { CSS } from "./styles.ts";
import { h } from "./view.ts";

export type TimelineJson = z.infer<typeof TimelineSchema>;
type Event = TimelineJson["events"][number];

const CSS_TIMELINE = `
.strip { width:100%; height:56px; display:block; margin:.5rem 0 .25rem; background:#fff; border:1px solid var(--line); border-radius:6px; }
.legend { display:flex; flex-wrap:wrap; gap:.25rem 1rem; font-size:.85em; color:var(--muted); margin:0 0 1rem; padding:0; list-style:none; }
.legend i { display:inline-block; width:.8em; height:.8em; margin-right:.3em; vertical-align:-.05em; border-radius:2px; }
.legend i.ok { background:#1a7f37; } .legend i.bad { background:#cf222e; } .legend i.sent { background:#0969da; } .legend i.held { background:#d0d4d9; }
ol.events { list-style:none; padding:0; margin:0; }
ol.events > li { border-left:3px solid var(--line); padding:.3rem .7rem; margin:0 0 .35rem; }
ol.events > li.run-succeeded { border-color:var(--ok); }
ol.events > li.run-failed, ol.events > li.run-partial, ol.events > li.flip-firing { border-color:var(--bad); }
ol.events > li.flip-resolved { border-color:var(--ok); }
ol.events > li.notification, ol.events > li.silence, ol.events > li.window { border-color:var(--new); }
ol.events time { color:var(--muted); font-variant-numeric:tabular-nums; margin-right:.5rem; }
ol.events ul { margin:.2rem 0 0 1rem; padding:0; font-size:.9em; }
`;

const fmt = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

/** The strip: runs as ticks by status, firing spans in red, silences and maintenance in grey. */
function strip(t: TimelineJson): JSXNode {
  const W = 1000;
  const H = 56;
  const t0 = Date.parse(t.since);
  const t1 = Math.max(Date.parse(t.until), t0 + 1);
  const x = (iso: string) => Math.round(((Date.parse(iso) - t0) / (t1 - t0)) * W);
  const shapes: JSXNode[] = [];
  const spans = (
    kind: "flip" | "silence" | "window",
    startOf: (e: Event) => boolean,
    key: (e: Event) => string,
  ) => {
    const open = new Map<string, string>();
    const out: [string, string][] = [];
    for (const e of t.events) {
      if (e.kind !== kind) continue;
      if (startOf(e)) open.set(key(e), e.at);
      else {
        out.push([open.get(key(e)) ?? t.since, e.at]);
        open.delete(key(e));
      }
    }
    for (const start of open.values()) out.push([start, t.until]);
    return out;
  };
  const held = [
    ...spans(
      "silence",
      (e) => e.kind === "silence" && e.edge === "start",
      (e) => (e.kind === "silence" ? e.silence_id : ""),
    ),
    ...spans(
      "window",
      (e) => e.kind === "window" && e.edge === "start",
      (e) => (e.kind === "window" ? e.window_id : ""),
    ),
  ];
  for (const [a, b] of held)
    shapes.push(
      h("rect", {
        x: x(a),
        y: 0,
        width: Math.max(2, x(b) - x(a)),
        height: H - 16,
        fill: "#8c959f",
        opacity: 0.25,
      }),
    );
  const firing = spans(
    "flip",
    (e) => e.kind === "flip" && e.to === "firing",
    (e) => (e.kind === "flip" ? `${e.rule}|${e.subject}` : ""),
  );
  for (const [a, b] of firing)
    shapes.push(
      h("rect", {
        x: x(a),
        y: 4,
        width: Math.max(2, x(b) - x(a)),
        height: 12,
        fill: "#cf222e",
        opacity: 0.7,
      }),
    );
  for (const e of t.events) {
    if (e.kind === "run") {
      const color = e.run.status === "succeeded" ? "#1a7f37" : "#cf222e";
      shapes.push(h("rect", { x: x(e.at) - 1, y: 24, width: 3, height: 24, fill: color }));
    } else if (e.kind === "notification") {
      shapes.push(h("rect", { x: x(e.at) - 1, y: 0, width: 3, height: 20, fill: "#0969da" }));
    }
  }
  return h(
    "svg",
    {
      class: "strip",
      viewBox: `0 0 ${W} ${H}`,
      // Stretched to the page's width at a fixed height: readable on a phone too.
      preserveAspectRatio: "none",
      role: "img",
      "aria-label": `From ${fmt(t.since)} to ${fmt(t.until)}: ${firing.length} firing span(s), runs as ticks (green succeeded, red failed), notifications as blue marks, silences and maintenance shaded`,
    },
    ...shapes,
  );
}

const legend = () =>
  h(
    "ul",
    { class: "legend", "aria-hidden": "true" },
    ...(
      [
        ["ok", "run succeeded"],
        ["bad", "run failed, or an alert firing (top band)"],
        ["sent", "notification"],
        ["held", "silence or maintenance"],
      ] as const
    ).map(([swatch, words]) => h("li", null, h("i", { class: swatch }), words)),
  );

function eventClass(e: Event): string {
  if (e.kind === "run") return `run-${e.run.status}`;
  if (e.kind === "flip") return `flip-${e.to}`;
  return e.kind;
}

function item(e: Event): JSXNode {
  return h(
    "li",
    { class: eventClass(e) },
    h("time", { datetime: e.at }, fmt(e.at)),
    e.summary,
    e.kind === "notification" && e.deliveries.length > 0
      ? h(
          "ul",
          null,
          ...e.deliveries.map((d) =>
            h(
              "li",
              { class: d.ok ? undefined : "err" },
              `${d.channel}, attempt ${d.attempt}: ${d.ok ? "delivered" : `failed${d.error ? ` (${d.error})` : ""}`} at ${fmt(d.at)}`,
            ),
          ),
        )
      : null,
  );
}

/** The page of one timeline; `back` is the /system anchor of its subject. */
export function timelinePage(nonce: string, t: TimelineJson, back: string): string {
  const title = "collector" in t.about ? t.about.collector : `${t.about.rule} — ${t.about.subject}`;
  const missing = Object.entries(t.sources)
    .filter(([, read]) => !read)
    .map(([k]) => k);
  return `<!doctype html>${String(
    h(
      "html",
      { lang: "en" },
      h(
        "head",
        null,
        h("meta", { charset: "utf-8" }),
        h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
        h("title", null, `Timeline of ${title} · System status`),
        h("style", { nonce }, raw(CSS + CSS_TIMELINE)),
      ),
      h(
        "body",
        null,
        h(
          "header",
          null,
          h("h1", null, `Timeline of ${title}`),
          h("a", { href: back }, "Back to the status page"),
        ),
        h(
          "main",
          { id: "main" },
          h("p", { class: "muted" }, `${fmt(t.since)} to ${fmt(t.until)}, oldest first.`),
          strip(t),
          legend(),
          t.truncated ? h("p", { class: "muted" }, "More events than shown: the newest are kept.") : null,
          missing.length > 0
            ? h("p", { class: "muted" }, `Not configured here, so not shown: ${missing.join(", ")}.`)
            : null,
          t.events.length === 0
            ? h("p", null, "Nothing happened in this span.")
            : h("ol", { class: "events" }, ...t.events.map(item)),
        ),
      ),
    ),
  )}`;
}
