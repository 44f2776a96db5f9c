/**
 * The monitor's closed sets of words (run and account statuses, health, how a collector was
 * registered, alert rules), importable without the rest of the core: the /system page's browser
 * client type-checks against the API's schemas, which list them.
 */
export { ALERT_RULES } from "./alerts/types.ts";
export { HEALTH_STATES } from "./health.ts";
export { ACCOUNT_STATUSES, REGISTERED_BY, RUN_STATUSES } from "./records.ts";
