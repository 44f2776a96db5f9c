/**
 * The documents of `/system` and `/system/login` (hono/jsx, rendered on the server). `/system` comes
 * with its data: the live region is rendered from the same status body `GET /api/system/status`
 * answers, so it shows the verdict before any script runs; the typed client (client/main.ts,
 * served at `/system/assets/…`) then refreshes it every 10 s. No CDN, no web fonts: the inline
 * style and the client script carry the response's CSP nonce. docs/monitor-page.md.
 */
import { raw } from "hono/html";
import type { JSXNode } from "hono/jsx";
import { UPLOT_CSS } from "./client-bundle.gen.ts";
import { STATE_ELEMENT_ID } from "./page-ids.ts";
import { CSS } from "./styles.ts";
import { h, LiveContent, Problems, updatedText } from "./view.ts";
import type { PageState } from "./view-types.ts";

const head = (nonce: string, title: string, extraCss = "") =>
  h(
    "head",
    null,
    h("meta", { charset: "utf-8" }),
    h("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
    h("title", null, title),
    h("style", { nonce }, raw(CSS + extraCss)),
  );

const doc = (node: JSXNode) => `<!doctype html>${String(node)}`;

export function loginPage(nonce: string, error?: string): string {
  return doc(
    h(
      "html",
      { lang: "en" },
      head(nonce, "Sign in · System status"),
      h(
        "body",
        null,
        h("header", null, h("h1", null, "System status")),
        h(
          "main",
          { id: "main" },
          h("h2", null, "Sign in"),
          error === undefined ? null : h("p", { class: "problem", role: "alert", id: "login-error" }, error),
          h(
            "form",
            { class: "login", method: "post", action: "/system/login" },
            h("label", { for: "token" }, "Monitor token"),
            h("input", {
              id: "token",
              name: "token",
              type: "password",
              autocomplete: "current-password",
              required: true,
              autofocus: true,
              "aria-describedby": error === undefined ? undefined : "login-error",
              "aria-invalid": error === undefined ? undefined : "true",
            }),
            h("button", { type: "submit" }, "Sign in"),
          ),
          h(
            "p",
            { class: "muted" },
            "The token is checked once; the browser then keeps a session cookie (not the token).",
          ),
        ),
      ),
    ),
  );
}

/** JSON that is safe inside a `<script type="application/json">` element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** `/system`: rendered from `state`; `script` is the client bundle's URL. */
export function systemPage(nonce: string, state: PageState, script: string): string {
  const loaded = state.status !== null && state.problems.length === 0 ? state.statusAt : null;
  return doc(
    h(
      "html",
      { lang: "en" },
      head(nonce, "System status", UPLOT_CSS),
      h(
        "body",
        // Render marker (npm run bench waits for it): set when status data is rendered, here or by the client.
        { "data-loaded": loaded ?? undefined },
        h("a", { class: "skip", href: "#main" }, "Skip to content"),
        h(
          "header",
          null,
          h("h1", null, "System status"),
          h("p", { id: "updated", class: "muted", role: "status" }, updatedText(state)),
          h("button", { type: "button", id: "refresh" }, "Refresh now"),
          h(
            "form",
            { method: "post", action: "/system/logout" },
            h("button", { type: "submit", id: "logout" }, "Log out"),
          ),
        ),
        h(
          "main",
          { id: "main" },
          Problems(state.problems),
          h(
            "div",
            { id: "live", "aria-live": "polite", class: state.problems.length > 0 ? "stale" : undefined },
            LiveContent(state),
          ),
        ),
        h("script", { type: "application/json", id: STATE_ELEMENT_ID }, raw(scriptJson(state))),
        h("script", { nonce, src: script, defer: true }),
      ),
    ),
  );
}
