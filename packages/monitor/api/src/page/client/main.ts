/**
 * The /system page's browser client (bundled by esbuild into bundle.gen.ts, served at
 * `/system/assets/client-<hash>.js`). The server sends the page already rendered; this script
 * draws the run-history charts, refreshes the live region every 10 s from
 * `/api/system/status`, `/api/system/collectors/failures` and `/api/system/silences` with the same
 * components the server used (view.ts), and sends the silence buttons' writes with the session's
 * CSRF token. docs/monitor-page.md.
 */
import { STATE_ELEMENT_ID } from "../page-ids.ts";
import { LiveContent, Problems, REFRESH_MS, updatedText } from "../view.ts";
import type {
  FailuresJson,
  MaintenanceListJson,
  PageState,
  SilencesJson,
  StatusJson,
} from "../view-types.ts";
import { drawCharts } from "./charts.ts";

class HttpError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly body: unknown;
  constructor(message: string, status: number, code: string | undefined, body: unknown) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

const byId = (id: string): HTMLElement => {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`#${id} is missing`);
  return el;
};

const stateText = document.getElementById(STATE_ELEMENT_ID)?.textContent ?? "null";
const state: PageState = JSON.parse(stateText) as PageState;
let timer: ReturnType<typeof setTimeout> | undefined;
/** The element a notification's link (/system#collector-…) points at: outlined after every render. */
let linked: string | null = null;

async function getJson<T>(path: string): Promise<T> {
  const r = await fetch(path, {
    credentials: "same-origin",
    headers: { accept: "application/json" },
    cache: "no-store",
  });
  if (r.status === 401) {
    location.assign("/system/login");
    throw new HttpError("signed out", 401, undefined, null);
  }
  let body: unknown = null;
  try {
    body = await r.json();
  } catch {
    body = null;
  }
  if (!r.ok) {
    const err = (body as { error?: { message?: string; code?: string } } | null)?.error;
    throw new HttpError(err?.message ?? `HTTP ${r.status}`, r.status, err?.code, body);
  }
  return body as T;
}

function render(): void {
  const live = byId("live");
  live.innerHTML = String(LiveContent(state));
  byId("problems").outerHTML = String(Problems(state.problems));
  live.classList.toggle("stale", state.problems.length > 0);
  byId("updated").textContent = updatedText(state);
  drawCharts(live, state.failures, state.status);
  if (linked !== null) document.getElementById(linked)?.classList.add("linked");
}

const unavailable = (e: unknown): e is HttpError =>
  e instanceof HttpError && (e.status === 503 || e.code === "analytics_db_unavailable");

async function refresh(): Promise<void> {
  clearTimeout(timer);
  const live = byId("live");
  live.setAttribute("aria-busy", "true");
  const [st, fl, si, mw] = await Promise.allSettled([
    getJson<StatusJson>("/api/system/status"),
    getJson<FailuresJson>("/api/system/collectors/failures"),
    // Without a silence store the route does not exist: the page asks for nothing.
    state.silences === null ? Promise.resolve(null) : getJson<SilencesJson>("/api/system/silences"),
    state.maintenance === null || state.maintenance === undefined
      ? Promise.resolve(null)
      : getJson<MaintenanceListJson>("/api/system/maintenance"),
  ]);
  const problems: string[] = [];
  state.partialQueues = null;
  state.dbDown = null;
  if (st.status === "fulfilled") {
    state.status = st.value;
    state.statusAt = new Date().toISOString();
  } else {
    const e = st.reason as unknown;
    const since = state.statusAt
      ? `: showing the last data, from ${updatedClock(state.statusAt)}`
      : ": no data yet";
    problems.push(
      (unavailable(e)
        ? "Analytics database unreachable"
        : `Status unavailable (${e instanceof Error ? e.message : String(e)})`) + since,
    );
    if (unavailable(e)) {
      state.dbDown = e.message;
      // A 503 still carries what does not live in the database: fresh queue health.
      const body = e.body as StatusJson | null;
      if (body && Array.isArray(body.queues)) state.partialQueues = body;
    }
  }
  if (si.status === "fulfilled") state.silences = si.value;
  else if (si.reason instanceof HttpError && si.reason.status === 404) state.silences = null;
  else problems.push(`Silences unavailable (${(si.reason as Error).message})`);
  if (mw.status === "fulfilled") state.maintenance = mw.value;
  else if (mw.reason instanceof HttpError && mw.reason.status === 404) state.maintenance = null;
  else problems.push(`Maintenance windows unavailable (${(mw.reason as Error).message})`);
  if (fl.status === "fulfilled") state.failures = fl.value;
  else problems.push(`Failure history unavailable${state.failures ? " (showing the last known)" : ""}`);
  state.problems = problems;
  render();
  live.setAttribute("aria-busy", "false");
  // Render marker (npm run bench times navigation → first render of fresh status data by it).
  if (st.status === "fulfilled" && state.statusAt) document.body.dataset.loaded = state.statusAt;
  timer = setTimeout(refresh, REFRESH_MS);
}

function updatedClock(iso: string): string {
  return `${iso.slice(11, 19)} UTC`;
}

/** A silence button: POST /system/silences with the session's CSRF token, then a refresh. */
async function silence(form: HTMLFormElement, submitter: HTMLButtonElement | null): Promise<void> {
  const data = new URLSearchParams();
  for (const [k, v] of new FormData(form)) if (typeof v === "string") data.append(k, v);
  if (submitter?.name) data.set(submitter.name, submitter.value);
  for (const b of form.querySelectorAll("button")) b.disabled = true;
  const r = await fetch("/system/silences", {
    method: "POST",
    credentials: "same-origin",
    headers: { accept: "application/json", "x-csrf-token": state.csrf ?? "" },
    body: data,
  });
  if (!r.ok) {
    let message = `HTTP ${r.status}`;
    try {
      message = ((await r.json()) as { error?: { message?: string } }).error?.message ?? message;
    } catch {}
    for (const b of form.querySelectorAll("button")) b.disabled = false;
    state.problems = [`Silence not created: ${message}`];
    byId("problems").outerHTML = String(Problems(state.problems));
    return;
  }
  await refresh();
}

document.addEventListener("submit", (ev) => {
  const form = ev.target;
  if (!(form instanceof HTMLFormElement) || !form.classList.contains("silence")) return;
  ev.preventDefault();
  const submitter = ev.submitter instanceof HTMLButtonElement ? ev.submitter : null;
  void silence(form, submitter);
});

byId("refresh").addEventListener("click", () => {
  void refresh();
});

// A notification's link (/system#collector-…): the browser scrolls to the server-rendered element;
// the client marks it, and again after every render.
function markLinked(): void {
  if (location.hash.length <= 1) return;
  for (const el of document.querySelectorAll(".linked")) el.classList.remove("linked");
  try {
    linked = decodeURIComponent(location.hash.slice(1));
  } catch {
    linked = location.hash.slice(1);
  }
  const target = document.getElementById(linked);
  if (target) {
    target.classList.add("linked");
    target.scrollIntoView();
  }
}
window.addEventListener("hashchange", markLinked);
markLinked();
drawCharts(byId("live"), state.failures, state.status);
// The server rendered the page just now (or could not read the status: then ask again at once).
timer = setTimeout(refresh, state.status === null ? 0 : REFRESH_MS);
