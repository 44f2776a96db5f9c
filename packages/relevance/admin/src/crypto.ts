// Web Crypto only, so that the apps run unchanged on Node, AWS Lambda and Cloudflare Workers.

const encoder = new TextEncoder();

export type RandomBytes = (bytes: Uint8Array) => Uint8Array;
export const defaultRandomBytes: RandomBytes = (bytes) => crypto.getRandomValues(bytes);

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

export async function sha256Hex(text: string): Promise<string> {
  return hex(await sha256(text));
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** `acct_` + 12 lowercase hex digits (48 random bits): safe in KV keys and in `<account>:<index>:v<n>`. */
export const newAccountId = (random: RandomBytes): string => `acct_${hex(random(new Uint8Array(6)))}`;

/** `rk_` + 32 random bytes in base64url (43 characters). Shown once; only its SHA-256 is stored. */
export const newApiKey = (random: RandomBytes): string => `rk_${base64Url(random(new Uint8Array(32)))}`;
