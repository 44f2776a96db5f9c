/**
 * The import rules, over a graph of repository-relative file paths (pure: the tests hand it small
 * in-memory graphs). Layering: core ← adapters ← apps ← infra, so
 *   - cycle: no file-level import cycle (type-only imports included: a cycle of types still ties
 *     the files' designs together);
 *   - relative-across: a relative import stays inside its own workspace (packages/X, apps/X or
 *     infra); another workspace is imported by its package name, through its `exports`;
 *   - upward: packages import neither apps nor infra, apps do not import infra, and no app imports
 *     another app, except that an app's test may start another app through that app's
 *     `test-support` export (the CLI's end-to-end tests drive the local stack's process).
 *   - system: the packages form two systems and a kernel (packages/<system>/<name>): a package of
 *     `shared` imports only `shared`; one of `relevance` or `monitor` imports its own system and
 *     `shared`, never the other system; `testing` (test data that exercises both) may import any
 *     package, and only tests and benchmarks import it. An app belongs to the system it deploys
 *     (APP_SYSTEM) and follows the same rule; `apps/local` (npm start) composes both systems and
 *     may import either.
 * Root tooling (scripts/, training/) is no workspace: it sits above infra and only the cycle rule
 * applies to it.
 */

export type Rule = "cycle" | "relative-across" | "upward" | "system";

export interface Edge {
  /** The importing file, e.g. "infra/src/lambda/search-admin.ts". */
  from: string;
  /** The specifier as written. */
  specifier: string;
  /** The imported file, resolved. */
  to: string;
  line: number;
}

export interface Violation {
  rule: Rule;
  file: string;
  import: string;
  line: number;
  detail: string;
}

export type UnitKind = "package" | "app" | "infra" | "tooling";

export interface Unit {
  kind: UnitKind;
  /** "packages/relevance/admin", "apps/cli", "infra", or "tooling". */
  dir: string;
  /** A package's system: "relevance", "monitor", "shared" or "testing". */
  system?: string;
}

/** The systems each system's packages may import. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  shared: ["shared"],
  relevance: ["relevance", "shared"],
  monitor: ["monitor", "shared"],
  testing: ["testing", "relevance", "monitor", "shared"],
};

/**
 * The system each deployable belongs to. An app missing here belongs to none and is not checked:
 * `local` runs both systems in one process on purpose.
 */
const APP_SYSTEM: Record<string, string> = {
  "admin-lambda": "relevance",
  cli: "relevance",
  "customer-lambda": "relevance",
  "edge-worker": "relevance",
  "exporter-lambda": "relevance",
  "monitor-lambda": "monitor",
  svcmon: "monitor",
};

export function unitOf(file: string): Unit {
  const [top, second, third] = file.split("/");
  if (top === "packages" && second && third) {
    return { kind: "package", dir: `packages/${second}/${third}`, system: second };
  }
  const name = second;
  if (top === "apps" && name) {
    const system = APP_SYSTEM[name];
    return system === undefined
      ? { kind: "app", dir: `apps/${name}` }
      : { kind: "app", dir: `apps/${name}`, system };
  }
  if (top === "infra") return { kind: "infra", dir: "infra" };
  return { kind: "tooling", dir: "tooling" };
}

const LAYER: Record<UnitKind, number> = { package: 0, app: 1, infra: 2, tooling: 3 };

function isRelative(specifier: string): boolean {
  return specifier.startsWith("./") || specifier.startsWith("../");
}

function startsAnotherApp(edge: Edge): boolean {
  return (
    edge.from.endsWith(".test.ts") &&
    !isRelative(edge.specifier) &&
    /\/test-support(\/|$)/.test(edge.specifier)
  );
}

function layerViolations(edge: Edge): Violation[] {
  const from = unitOf(edge.from);
  const to = unitOf(edge.to);
  if (from.kind === "tooling" || from.dir === to.dir) return [];
  const found: Violation[] = [];
  const at = { file: edge.from, import: edge.specifier, line: edge.line };
  if (isRelative(edge.specifier)) {
    found.push({ rule: "relative-across", ...at, detail: `${from.dir} reaches into ${to.dir} by path` });
  }
  if (from.system !== undefined && to.system !== undefined && from.system in MAY_IMPORT) {
    const allowed = [
      ...(MAY_IMPORT[from.system] ?? []),
      // An app's tests may drive it with the test data of `testing` (a devDependency of the app).
      ...(from.kind === "app" && /\.test\.ts$/.test(edge.from) ? ["testing"] : []),
    ];
    if (!allowed.includes(to.system)) {
      found.push({
        rule: "system",
        ...at,
        detail: `${from.dir} (${from.system}) imports ${to.dir} (${to.system})`,
      });
    }
  }
  if (LAYER[to.kind] > LAYER[from.kind]) {
    found.push({ rule: "upward", ...at, detail: `${from.kind} ${from.dir} imports ${to.kind} ${to.dir}` });
  } else if (from.kind === "app" && to.kind === "app" && !startsAnotherApp(edge)) {
    found.push({ rule: "upward", ...at, detail: `app ${from.dir} imports another app, ${to.dir}` });
  }
  return found;
}

/** Strongly connected components (Tarjan), iteratively: the monitor's graph is deep enough to matter. */
function components(nodes: string[], next: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const result: string[][] = [];
  let counter = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: { node: string; child: number }[] = [{ node: root, child: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; child: number };
      const children = next.get(frame.node) ?? [];
      if (frame.child < children.length) {
        const child = children[frame.child++] as string;
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(child) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent)
        low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        result.push(component);
      }
    }
  }
  return result;
}

/** The shortest path from `start` to `goal` inside one component, for the failure message. */
function shortestPath(
  start: string,
  goal: string,
  next: Map<string, string[]>,
  inside: Set<string>,
): string[] {
  const cameFrom = new Map<string, string>([[start, start]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() as string;
    if (node === goal) break;
    for (const child of next.get(node) ?? []) {
      if (!inside.has(child) || cameFrom.has(child)) continue;
      cameFrom.set(child, node);
      queue.push(child);
    }
  }
  const path = [goal];
  while (path[0] !== start) path.unshift(cameFrom.get(path[0] as string) as string);
  return path;
}

/**
 * Every import edge that lies on a cycle. An edge, not a component, is the unit reported and
 * allowed: breaking part of an allowed cycle then leaves the rest allowed, while any new edge that
 * closes or widens a cycle fails.
 */
function cycleViolations(edges: Edge[]): Violation[] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    const list = next.get(edge.from) ?? [];
    if (!list.includes(edge.to)) list.push(edge.to);
    next.set(edge.from, list);
  }
  const componentOf = new Map<string, Set<string>>();
  for (const component of components([...next.keys()], next)) {
    const members = new Set(component);
    for (const member of component) componentOf.set(member, members);
  }
  const found: Violation[] = [];
  for (const edge of edges) {
    const members = componentOf.get(edge.from);
    const selfLoop = edge.from === edge.to;
    if (!selfLoop && (!members || members.size < 2 || !members.has(edge.to))) continue;
    const back = selfLoop ? [edge.to] : shortestPath(edge.to, edge.from, next, members as Set<string>);
    found.push({
      rule: "cycle",
      file: edge.from,
      import: edge.specifier,
      line: edge.line,
      detail: [edge.from, ...back].join(" → "),
    });
  }
  return found;
}

export function findViolations(edges: Edge[]): Violation[] {
  return [...edges.flatMap(layerViolations), ...cycleViolations(edges)];
}

export interface AllowEntry {
  rule: Rule;
  file: string;
  import: string;
  /** Why it is allowed for now, and who removes it. */
  reason: string;
}

export interface Verdict {
  /** Violations the allowlist does not name: the check fails on these. */
  failures: Violation[];
  /** Allowlist entries that no longer match a violation: fixed, so they must leave the list. */
  stale: AllowEntry[];
}

const keyOf = (v: { rule: Rule; file: string; import: string }) =>
  `${v.rule}\u0000${v.file}\u0000${v.import}`;

export function judge(violations: Violation[], allow: AllowEntry[]): Verdict {
  const allowed = new Set(allow.map(keyOf));
  const seen = new Set(violations.map(keyOf));
  return {
    failures: violations.filter((v) => !allowed.has(keyOf(v))),
    stale: allow.filter((entry) => !seen.has(keyOf(entry))),
  };
}

export function describeViolation(v: Violation): string {
  return `${v.rule}: ${v.file}:${v.line} imports "${v.import}" (${v.detail})`;
}
