/**
 * The service's own cost: what the `svc-infrastructure` node cost over the
 * last 30 complete UTC days (daily, oldest first) and month to date, as of `now`. Pure: the rows are
 * the node's cost per day and currency (svc.cost_node_daily); `now` is a parameter.
 *
 * Windows, with `today` = the UTC day of `now`:
 * - `daily` / `last_30_days_total`: the 30 days before today, [today − 30, today − 1]. Today is left
 *   out: cost reports arrive hours late, so today's figure is always incomplete.
 * - `month_to_date`: from the 1st of today's month through today (what the report has so far).
 *
 * Costs in different currencies are never added: the summary is in the currency with the largest
 * amount; any other currency is listed in `other_currencies` with its own totals.
 */
import type { EpochMs } from "../records.ts";
import { addDays, dayStartMs, monthStart, utcDay } from "./days.ts";

export const OWN_COST_DAYS = 30;

export interface DayCost {
  day: string;
  currency: string;
  cost: number;
}

export interface CurrencyTotals {
  currency: string;
  month_to_date: number;
  last_30_days_total: number;
}

export interface CostSummary {
  /** null when there is no cost at all in either window. */
  currency: string | null;
  month_to_date: number;
  last_30_days_total: number;
  /** Exactly `days` entries, oldest first, 0 where the report has nothing. */
  daily: { day: string; cost: number }[];
  other_currencies: CurrencyTotals[];
}

export interface CostWindows {
  today: string;
  /** First and last day of `daily` (inclusive). */
  daily_from: string;
  daily_to: string;
  month_from: string;
  /** Earliest day any window needs: the rows to read start here. */
  read_from: string;
}

export function costWindows(now: EpochMs, days: number = OWN_COST_DAYS): CostWindows {
  const today = utcDay(now);
  const dailyFrom = addDays(today, -days);
  const monthFrom = monthStart(today);
  return {
    today,
    daily_from: dailyFrom,
    daily_to: addDays(today, -1),
    month_from: monthFrom,
    read_from: utcDay(Math.min(dayStartMs(dailyFrom), dayStartMs(monthFrom))),
  };
}

/** Money as JSON numbers: rounded to 6 decimal places (sub-cent amounts stay visible). */
export function roundMoney(value: number): number {
  const r = Math.round(value * 1e6) / 1e6;
  return r === 0 ? 0 : r;
}

function totals(rows: readonly DayCost[], w: CostWindows): Map<string, CurrencyTotals> {
  const out = new Map<string, CurrencyTotals>();
  for (const r of rows) {
    let t = out.get(r.currency);
    if (t === undefined) {
      t = { currency: r.currency, month_to_date: 0, last_30_days_total: 0 };
      out.set(r.currency, t);
    }
    if (r.day >= w.daily_from && r.day <= w.daily_to) t.last_30_days_total += r.cost;
    if (r.day >= w.month_from && r.day <= w.today) t.month_to_date += r.cost;
  }
  return out;
}

function rounded(t: CurrencyTotals): CurrencyTotals {
  return {
    currency: t.currency,
    month_to_date: roundMoney(t.month_to_date),
    last_30_days_total: roundMoney(t.last_30_days_total),
  };
}

export function summarizeCost(
  rows: readonly DayCost[],
  now: EpochMs,
  days: number = OWN_COST_DAYS,
): CostSummary {
  const w = costWindows(now, days);
  const all = [...totals(rows, w).values()].filter(
    (t) => t.month_to_date !== 0 || t.last_30_days_total !== 0,
  );
  const size = (t: CurrencyTotals) => Math.abs(t.month_to_date) + Math.abs(t.last_30_days_total);
  all.sort((a, b) => size(b) - size(a) || (a.currency < b.currency ? -1 : 1));
  const main = all[0] ?? null;
  const perDay = new Map<string, number>();
  for (const r of rows) {
    if (main !== null && r.currency === main.currency) perDay.set(r.day, (perDay.get(r.day) ?? 0) + r.cost);
  }
  const daily = Array.from({ length: days }, (_, i) => {
    const day = addDays(w.daily_from, i);
    return { day, cost: roundMoney(perDay.get(day) ?? 0) };
  });
  return {
    currency: main?.currency ?? null,
    month_to_date: main === null ? 0 : roundMoney(main.month_to_date),
    last_30_days_total: main === null ? 0 : roundMoney(main.last_30_days_total),
    daily,
    other_currencies: all.slice(1).map(rounded),
  };
}

export interface ReasonDayCost extends DayCost {
  reason: string;
}

export interface OutsideSummary {
  currency: string | null;
  month_to_date: number;
  last_30_days_total: number;
  /** Per reason (Tax, Fee, Support, NoResource, ...) in `currency`, largest first. */
  by_reason: { reason: string; month_to_date: number; last_30_days_total: number }[];
}

/** Charges outside any node over the same windows, in the given currency (the own cost's). */
export function summarizeOutside(
  rows: readonly ReasonDayCost[],
  now: EpochMs,
  currency: string | null,
  days: number = OWN_COST_DAYS,
): OutsideSummary {
  const w = costWindows(now, days);
  const cur =
    currency ?? summarizeCost(rows, now, days).currency; /* no own cost yet: the outside charges' own */
  const inCurrency = rows.filter((r) => r.currency === cur);
  const byReason = new Map<string, DayCost[]>();
  for (const r of inCurrency) {
    const list = byReason.get(r.reason) ?? [];
    list.push(r);
    byReason.set(r.reason, list);
  }
  const reasons = [...byReason.entries()]
    .map(([reason, list]) => {
      const t = totals(list, w).get(cur as string) as CurrencyTotals;
      return {
        reason,
        month_to_date: roundMoney(t.month_to_date),
        last_30_days_total: roundMoney(t.last_30_days_total),
      };
    })
    .filter((r) => r.month_to_date !== 0 || r.last_30_days_total !== 0)
    .sort((a, b) => b.last_30_days_total - a.last_30_days_total || (a.reason < b.reason ? -1 : 1));
  const all = cur === null ? undefined : totals(inCurrency, w).get(cur);
  return {
    currency: cur,
    month_to_date: roundMoney(all?.month_to_date ?? 0),
    last_30_days_total: roundMoney(all?.last_30_days_total ?? 0),
    by_reason: reasons,
  };
}
