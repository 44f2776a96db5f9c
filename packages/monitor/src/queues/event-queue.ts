/**
 * The collectors' event queue, as two small ports: collectors only send (`EventQueue`), the ingest
 * consumer only receives and acknowledges (`ConsumableQueue`). Semantics are SQS's: a received message
 * is invisible for the visibility timeout and comes back unless acknowledged; a queue with a redrive
 * policy moves a message to its dead-letter queue once it was received `maxReceives` times.
 */

export interface EventQueue {
  /** Sends one message per body (a batch); resolves to the number the queue accepted. */
  send(bodies: readonly string[], signal?: AbortSignal): Promise<number>;
}

export interface ReceivedMessage {
  message_id: string;
  body: string;
  /** Handle of this receipt: acknowledging with an older receipt does nothing. */
  receipt: string;
  /** Times received, this one included (SQS ApproximateReceiveCount). */
  receive_count: number;
  /** Epoch ms the message was sent. */
  sent_at: number;
}

export interface ReceiveOptions {
  /** At most this many messages. */
  max: number;
  /** Received messages stay invisible this long unless acknowledged. */
  visibilityTimeoutMs: number;
}

export interface ConsumableQueue {
  receive(opts: ReceiveOptions): Promise<ReceivedMessage[]>;
  /** Deletes the messages of these receipts; resolves to how many were deleted (stale receipts: none). */
  ack(receipts: readonly string[]): Promise<number>;
}
