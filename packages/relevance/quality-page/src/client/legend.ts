// The colour key of the score histograms: one swatch per score bin, light (low) to dark (high).
import { BIN_COLOURS } from "./charts.ts";
import { el } from "./dom.ts";

export function legend(): HTMLElement {
  return el(
    "div",
    { class: "legend" },
    "score ",
    ...BIN_COLOURS.map((colour, bin) =>
      el(
        "span",
        {
          class: "swatch",
          style: `background:${colour}${bin >= 6 ? ";color:#fff" : ""}`,
          title: `${bin}–${bin + 1}`,
        },
        String(bin),
      ),
    ),
  );
}
