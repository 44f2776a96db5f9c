// A tile: one metric's label, its value and what it rests on; a yellow tile says the metric has too
// little data yet, and why.
import { el } from "./dom.ts";

export type TooLittle = { status: "too_little_data"; n: number; needed: number; reason: string };

export function tile(label: string, value: string, detail: string, kind: "ok" | "few" = "ok"): HTMLElement {
  return el(
    "div",
    { class: `tile ${kind}`, "data-metric": label },
    el("div", { class: "tile-label" }, label),
    el("div", { class: "tile-value" }, value),
    el("div", { class: "tile-detail" }, detail),
  );
}

export const fewTile = (label: string, m: TooLittle): HTMLElement =>
  tile(label, "too little data", `${m.reason}`, "few");
