/**
 * One run of the drift check: for every index and model with searches on the latest complete UTC
 * day (drift-alerts.ts), that day's PSI of the score and of each profiled feature against the
 * model's training profile; each alert whose state changes gets a row (DriftAlertStore), and every
 * row not yet sent is claimed, delivered through @shared/notify's channels and marked sent. Safe to
 * run again at any time and from two places at once: a change is stored once (its id), sent by the
 * one check that claims it, and retried by the next run until every channel took it.
 *
 * npm start runs it on an interval (apps/local), production on a schedule (docs/deploy.md). Its
 * own entry (`@relevance/outcomes/drift-check`), not the package's index: it sends through
 * @shared/notify (SMTP included), which the Worker, a user of the index, must not bundle.
 */
import {
  type Channel,
  type DeliverOptions,
  type DeliveryLog,
  deliver,
  InMemoryDeliveryLog,
} from "@shared/notify";
import type { OutcomeStore } from "../ports.ts";
import { DRIFT_CLAIM_LEASE_MS, DRIFT_HISTORY_DAYS, type DriftAlertStore } from "./drift-alert-store.ts";
import {
  alertKeyText,
  checkedDay,
  type DriftTransition,
  driftNotification,
  driftTransitions,
} from "./drift-alerts.ts";
import { MAX_DRIFT_CHECK_MODELS } from "./drift-check-config.ts";
import { driftCountsQuery, modelDrift, type ProfileLookup, profileFromArtifact } from "./drift-report.ts";
import { PSI_DRIFT_THRESHOLD } from "./psi.ts";

export interface DriftCheckLog {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

export interface DriftCheckDeps {
  outcomes: OutcomeStore;
  alerts: DriftAlertStore;
  /** A model's artifact text where the deployment keeps models (KV `relevance_model:<id>`), or null. */
  artifactText(modelId: string): Promise<string | null>;
  /** Where notifications go; none: changes are stored and stay unsent until a channel is configured. */
  channels: readonly Channel[];
  deliveryLog?: DeliveryLog;
  now: () => Date;
  /** PSI above which an alert fires (DRIFT_PSI_THRESHOLD); default 0.2. */
  threshold?: number;
  /** This checker's name in claims. */
  claimant: string;
  log?: DriftCheckLog;
  /** Delivery retries within one run (the next run retries too). */
  deliver?: Partial<Pick<DeliverOptions, "attempts" | "baseDelayMs" | "maxDelayMs" | "sleep">>;
}

export interface DriftCheckResult {
  day: string;
  /** Models checked (with a profile) and skipped (without one: no drift to compute). */
  checked: number;
  unprofiled: number;
  /** Changes stored by this run. */
  transitions: DriftTransition[];
  /** Notification ids sent, failed, or held by another check. */
  delivered: string[];
  failed: string[];
  claimedElsewhere: string[];
}

export async function runDriftCheck(deps: DriftCheckDeps): Promise<DriftCheckResult> {
  const now = deps.now();
  const threshold = deps.threshold ?? PSI_DRIFT_THRESHOLD;
  const { day, since, until } = checkedDay(now);
  const result: DriftCheckResult = {
    day,
    checked: 0,
    unprofiled: 0,
    transitions: [],
    delivered: [],
    failed: [],
    claimedElsewhere: [],
  };
  const models = await deps.outcomes.scoredModels({ since, until, limit: MAX_DRIFT_CHECK_MODELS });
  if (models.length === MAX_DRIFT_CHECK_MODELS)
    deps.log?.warn("drift check: only the first models are checked", { limit: MAX_DRIFT_CHECK_MODELS });
  const profiles = new Map<string, ProfileLookup>();
  const accounts = new Set<string>();
  for (const m of models) {
    let lookup = profiles.get(m.modelId);
    if (lookup === undefined) {
      lookup = profileFromArtifact(await deps.artifactText(m.modelId));
      profiles.set(m.modelId, lookup);
    }
    if (!("profile" in lookup)) {
      result.unprofiled++;
      continue;
    }
    result.checked++;
    accounts.add(m.account);
    const scope = { account: m.account, index: m.index, since, until };
    const counts = await deps.outcomes.driftCounts(driftCountsQuery(scope, m.modelId, lookup.profile));
    const drift = modelDrift(m.modelId, lookup, counts, threshold);
    const states = await deps.alerts.states(m.account);
    const key = { account: m.account, index: m.index, modelId: m.modelId };
    for (const t of driftTransitions(key, drift, day, states, now)) {
      if (await deps.alerts.record(t)) {
        result.transitions.push(t);
        states.set(alertKeyText(t), t);
        deps.log?.info(`drift alert ${t.status}`, { ...key, feature: t.subject, psi: t.psi, day });
      }
    }
  }
  const log = deps.deliveryLog ?? new InMemoryDeliveryLog();
  for (const account of accounts) {
    if (deps.channels.length > 0) await sendUnsent(deps, account, log, result);
    await deps.alerts.prune(account, now.getTime() - DRIFT_HISTORY_DAYS * 86_400_000);
  }
  return result;
}

async function sendUnsent(
  deps: DriftCheckDeps,
  account: string,
  log: DeliveryLog,
  result: DriftCheckResult,
): Promise<void> {
  for (const t of await deps.alerts.unsent(account)) {
    const at = () => deps.now().getTime();
    const claim = await deps.alerts.claim(t.id, account, deps.claimant, at(), DRIFT_CLAIM_LEASE_MS);
    if (!claim.ok) {
      if (!claim.sent) result.claimedElsewhere.push(t.id);
      continue;
    }
    const outcome = await deliver(driftNotification(t), deps.channels, log, {
      attempts: deps.deliver?.attempts ?? 3,
      baseDelayMs: deps.deliver?.baseDelayMs ?? 1000,
      maxDelayMs: deps.deliver?.maxDelayMs ?? 10_000,
      ...(deps.deliver?.sleep ? { sleep: deps.deliver.sleep } : {}),
      now: deps.now,
    });
    if (outcome.delivered) {
      await deps.alerts.markSent(t.id, account, deps.claimant, at());
      result.delivered.push(t.id);
    } else {
      result.failed.push(t.id);
      deps.log?.warn("drift alert not delivered; the next check retries", {
        id: t.id,
        channels: outcome.channels.filter((c) => !c.ok).map((c) => `${c.channel}: ${c.error ?? ""}`),
      });
    }
  }
}
