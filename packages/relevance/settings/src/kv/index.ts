export { CloudflareKvError, CloudflareRestKv, type CloudflareRestKvOptions } from "./cloudflare-rest.ts";
export { type KvListPage, type KvNamespaceBinding, WorkersKv } from "./workers-kv.ts";
