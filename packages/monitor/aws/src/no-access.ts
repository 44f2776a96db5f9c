import type { RunStore } from "@monitor/core";
/**
 * The `onNoAccess` hook of the AWS collectors: a refused role assumption moves the account to
 * `no_access`, as a new version in svc.cloud_accounts. As with
 * PUT /api/system/accounts/{id}, the new version is at least 1 ms after the previous one, so it
 * wins even within the same millisecond.
 */

export function markAccountNoAccess(
  store: Pick<RunStore, "accountsLatest" | "upsertAccount">,
  now: () => number = Date.now,
): (accountId: string) => Promise<void> {
  // Several runs of one account fail together: one read-then-write at a time, one version written.
  let chain: Promise<unknown> = Promise.resolve();
  return (accountId) => {
    const next = chain.then(async () => {
      const prev = (await store.accountsLatest()).find((a) => a.account_id === accountId);
      if (prev?.svc_status === "no_access") return;
      const t = now();
      await store.upsertAccount({
        account_id: accountId,
        account_name: prev?.account_name ?? accountId,
        svc_status: "no_access",
        updated_at: prev === undefined ? t : Math.max(t, prev.updated_at + 1),
      });
    });
    chain = next.catch(() => {});
    return next;
  };
}
