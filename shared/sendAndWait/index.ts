/**
 * Send and Wait for Response, in one module (shaped like n8n's own
 * utils/sendAndWait): the operation's parameters (descriptions.ts), sending
 * the question (ask.ts) and the one record of its id and end (question.ts),
 * the waiting node's webhook (webhook.ts) with its pages and form, and the
 * Workplace Trigger's relay of answers given in the chat (relay.ts).
 */
export { askQuestion, waitForAnswer, type AnswerButton, type Asking } from './ask';
export { sendAndWaitProperties, sendAndWaitWebhooks } from './descriptions';
export type { Question } from './question';
export { relayAnswers, type Tap } from './relay';
export { sendAndWaitWebhook } from './webhook';
