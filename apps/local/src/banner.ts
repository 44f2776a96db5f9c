/**
 * The banner `npm start` prints for a person at a terminal (log-format.ts): where things run, the
 * tokens to use, and the demo's scored-search curl alone on its line, so it can be copied and pasted
 * into a shell as is. No character of the demo API key is shown (a screenshot or a shared terminal
 * would give away the prefix the failed-authentication throttle counts by): the banner says where
 * the key is kept, and the curl reads it from a file. Pure: main.ts gathers the facts, this lays
 * them out.
 */
import { paint } from "./human-log.ts";

export interface BannerToken {
  value: string;
  /** Generated for this run (printed) rather than set in the environment (not echoed). */
  generated: boolean;
}

export interface BannerInfo {
  url: string;
  dataDir: string;
  exporter: boolean;
  adminToken: BannerToken;
  monitorToken: BannerToken;
  /**
   * Null with DEMO=0; `relevanceScore` null when the search is not scored now (changed since the
   * seeding). `curl` reads the key from a file; the key itself is not given to the banner.
   */
  demo: { modelId: string; curl: string; relevanceScore: number | null } | null;
}

function token(name: string, t: BannerToken): string {
  return t.generated ? `${t.value}   (generated for this run; set ${name} to keep one)` : `(set by ${name})`;
}

/** The banner's lines, without a trailing newline. The curl line never carries colour codes. */
export function renderBanner(info: BannerInfo, color: boolean): string[] {
  const b = color ? paint.bold : (s: string) => s;
  const lines = [
    "",
    b("npm start: the local stack is running"),
    "",
    `  API            ${info.url}   (search, customer and admin APIs)`,
    `  System status  ${info.url}/system   (log in with the monitor token)`,
    `  Search quality ${info.url}/relevance/quality   (paste the admin token)`,
    `  Data folder    ${info.dataDir}`,
    "",
    `  Admin token    ${token("ADMIN_TOKEN", info.adminToken)}`,
    `  Monitor token  ${token("MONITOR_TOKEN", info.monitorToken)}`,
  ];
  if (!info.exporter) lines.push("  EXPORTER=0     settings changes wait in the change log (not exported)");
  if (info.demo === null) {
    lines.push("", "  Demo data off (DEMO=0).");
  } else {
    lines.push(
      `  Demo API key   in ${info.dataDir}/demo.json ("apiKey"; not shown: the command below reads it from a file)`,
      `  Search key     in ${info.dataDir}/demo.json ("searchApiKey": search only, the key a web page may carry)`,
      "",
      info.demo.relevanceScore === null
        ? "  A search of the demo shop (not scored now: its relevance config changed since the seeding):"
        : `  A scored search of the demo shop (model ${info.demo.modelId}, relevanceScore ${info.demo.relevanceScore.toFixed(2)}):`,
      "",
      // Alone and unindented: a triple-click copies exactly the command.
      info.demo.curl,
    );
  }
  lines.push("", "Ctrl-C stops it. Log lines follow (LOG_FORMAT=json prints them all as JSON):", "");
  return lines;
}
