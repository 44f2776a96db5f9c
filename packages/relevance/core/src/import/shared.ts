import type { TreeArrays } from "../artifact/model.ts";
import { validateTree } from "../artifact/validate-trees.ts";
import { at, describeType, fail, issue, ok, type Result } from "../result.ts";

export function uniqueNames(names: unknown[], path: string): Result<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (typeof name !== "string" || name === "")
      return fail([issue(at(path, i), `must be a non-empty string, got ${describeType(name)}`)]);
    if (seen.has(name)) return fail([issue(at(path, i), `${name} is listed twice`)]);
    seen.add(name);
  }
  return ok([...seen]);
}

type SourceKeys = Record<"left" | "right" | "feature" | "value", string>;

/**
 * Keeps only the nodes reachable from node 0 and renumbers them in depth-first order, checking
 * the source's links on the way (range, cycles) so that errors name the source's own fields.
 */
export function flattenFromRoot(
  src: TreeArrays,
  path: string,
  nFeatures: number,
  keys: SourceKeys,
): Result<TreeArrays> {
  const n = src.left.length;
  if (n === 0) return fail([issue(at(path, keys.left), "a tree needs at least one node")]);
  const out: TreeArrays = { left: [], right: [], feature: [], value: [], defaultLeft: [] };
  if (src.missingType) out.missingType = [];
  const visited = new Uint8Array(n);
  // Each entry: source node, and the output slot of the parent link to fill in.
  const stack: [node: number, parent: number, side: "left" | "right" | null][] = [[0, -1, null]];
  while (stack.length > 0) {
    const [node, parent, side] = stack.pop() as [number, number, "left" | "right" | null];
    if (!Number.isInteger(node) || node < 0 || node >= n) {
      const key = side === "left" ? keys.left : keys.right;
      return fail([issue(path, `${key} points to node ${node}, out of range (the tree has ${n} nodes)`)]);
    }
    if (visited[node] === 1)
      return fail([
        issue(path, `node ${node} is reached twice: the child links form a cycle or share a node`),
      ]);
    visited[node] = 1;
    const id = out.left.length;
    if (parent >= 0 && side !== null) out[side][parent] = id;
    const l = src.left[node] as number;
    const r = src.right[node] as number;
    const isLeaf = l === -1;
    if (isLeaf !== (r === -1)) return fail([issue(path, `node ${node} has one child and a missing leaf`)]);
    const value = src.value[node];
    if (typeof value !== "number" || !Number.isFinite(value)) {
      return fail([
        issue(at(at(path, keys.value), node), `must be a finite number, got ${describeType(value)}`),
      ]);
    }
    const feature = src.feature[node];
    if (
      !isLeaf &&
      (!Number.isInteger(feature) || (feature as number) < 0 || (feature as number) >= nFeatures)
    ) {
      return fail([
        issue(
          at(at(path, keys.feature), node),
          `feature index ${feature} is out of range (the model has ${nFeatures} features)`,
        ),
      ]);
    }
    out.left.push(-1);
    out.right.push(-1);
    out.feature.push(isLeaf ? -1 : (feature as number));
    out.value.push(value);
    out.defaultLeft.push(src.defaultLeft[node] as number);
    out.missingType?.push(src.missingType?.[node] ?? 0);
    if (!isLeaf) stack.push([r, id, "right"], [l, id, "left"]);
  }
  // Final structural check in our own format (e.g. float32 overflow of a threshold).
  const errors = validateTree(out, path, nFeatures, src.missingType ? "lightgbm" : "xgboost");
  return errors.length > 0 ? fail(errors) : ok(out);
}
