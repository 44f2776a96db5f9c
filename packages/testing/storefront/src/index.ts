export { buildStorefront, type StorefrontFiles } from "./build.ts";
export { type StorefrontPage, storefrontPage } from "./drive.ts";
export { type ServedStorefront, serveStorefront } from "./serve.ts";
