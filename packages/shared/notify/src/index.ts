export {
  type AlertmanagerAuth,
  type AlertmanagerChannelOptions,
  alertmanagerChannel,
  alertmanagerLabels,
  alertsEndpoint,
  DEFAULT_FIRING_HORIZON_MS,
  type PostableAlert,
  postableAlerts,
  promLabelName,
} from "./alertmanager.ts";
export {
  type AlertmanagerChannelConfig,
  type ChannelConfig,
  type ChannelsConfig,
  channelsFromEnv,
  createChannels,
  ENV_WEBHOOK_CHANNEL,
  type Issue,
  parseChannelsConfig,
  type Result,
  resolveEnvReferences,
  type SlackChannelConfig,
  type SmtpChannelConfig,
  validateChannelsConfig,
  type WebhookChannelConfig,
} from "./config.ts";
export {
  backoffDelay,
  type ChannelOutcome,
  type DeliverOptions,
  type DeliveryOutcome,
  deliver,
  MAX_RECORDED_ERROR_CHARS,
} from "./deliver.ts";
export type { FetchLike } from "./http.ts";
export {
  type AlertStatus,
  type Channel,
  type DeliveryAttempt,
  type DeliveryLog,
  InMemoryDeliveryLog,
  type Notification,
  type NotificationAlert,
  type NotificationKind,
  type NotificationSource,
  overallStatus,
  SEVERITIES,
  type Severity,
} from "./ports.ts";
export { escapeSlack, type SlackChannelOptions, slackChannel, slackPayload } from "./slack.ts";
export { mailSubject, mailText, type SmtpChannelOptions, smtpChannel } from "./smtp.ts";
export {
  ALLOW_PRIVATE_TARGETS,
  hostProblem,
  MAX_RESPONSE_SNIPPET_CHARS,
  METADATA_HOSTNAMES,
  urlTargetProblem,
} from "./targets.ts";
export { type WebhookChannelOptions, webhookChannel } from "./webhook.ts";
