import { describe, expect, it } from "vitest";
import { scanImports } from "./scan-imports.ts";

const specifiers = (text: string) =>
  scanImports(text).map((r) => `${r.typeOnly ? "type " : ""}${r.specifier}`);

describe("scanImports", () => {
  it("finds every form of static import and re-export, with its line", () => {
    const text = [
      'import "./side-effect.ts";',
      'import def from "./default.ts";',
      'import * as ns from "./namespace.ts";',
      "import {",
      "  a,",
      "  b as c,",
      '} from "./named.ts";',
      'import def2, { d } from "./mixed.ts";',
      'export * from "./star.ts";',
      'export * as all from "./star-as.ts";',
      'export { e } from "./re-export.ts";',
      'import x = require("./require.ts");',
    ].join("\n");
    expect(scanImports(text).map((r) => [r.specifier, r.line])).toEqual([
      ["./side-effect.ts", 1],
      ["./default.ts", 2],
      ["./namespace.ts", 3],
      ["./named.ts", 4],
      ["./mixed.ts", 8],
      ["./star.ts", 9],
      ["./star-as.ts", 10],
      ["./re-export.ts", 11],
      ["./require.ts", 12],
    ]);
  });

  it("tells type-only imports from imports that load the module", () => {
    const text = [
      'import type { A } from "./type-import.ts";',
      'import { type B, type C } from "./all-marked.ts";',
      'import { type D, e } from "./one-value.ts";',
      'import type from "./default-named-type.ts";',
      'import { type } from "./binding-named-type.ts";',
      'export type { F } from "./type-export.ts";',
      'export { type G } from "./marked-export.ts";',
      'type H = typeof import("./typeof-import.ts");',
      'import {} from "./empty.ts";',
    ].join("\n");
    expect(specifiers(text)).toEqual([
      "type ./type-import.ts",
      "type ./all-marked.ts",
      "./one-value.ts",
      "./default-named-type.ts",
      "./binding-named-type.ts",
      "type ./type-export.ts",
      "type ./marked-export.ts",
      "type ./typeof-import.ts",
      "./empty.ts",
    ]);
  });

  it("counts dynamic imports, also inside a template's substitution", () => {
    const text =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text under test holds a template
      'const m = await import("./dynamic.ts");\nconst t = `a ${await import("./in-template.ts")} b`;';
    expect(specifiers(text)).toEqual(["./dynamic.ts", "./in-template.ts"]);
  });

  it("ignores import-like text in strings, comments, templates and regular expressions", () => {
    const text = [
      '// import { a } from "./line-comment.ts";',
      '/* export * from "./block-comment.ts"; */',
      "const s = \"import x from './string.ts'\";",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text under test holds a template
      'const t = `import y from "./template.ts" ${1 + 2} export * from "./template-tail.ts"`;',
      'const r = /import z from "\\.\\/regex.ts"/;',
      'const q = a / 2; const p = /export * from "\\.\\/after-division.ts"/g;',
      "export { local };",
      "export const value = 1;",
      "const meta = import.meta.url;",
      'obj.import("./member-call.ts");',
      'import "./real.ts";',
    ].join("\n");
    expect(specifiers(text)).toEqual(["./real.ts"]);
  });

  it("keeps reading after nested templates and braces", () => {
    const text =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text under test holds a template
      'const a = `x ${`y ${{ k: 1 }.k} z`} w`;\nif (a) { const b = { c: `${a}` }; }\nimport "./after.ts";';
    expect(specifiers(text)).toEqual(["./after.ts"]);
  });
});
