import { notImplementedHandler } from '../../shared/http/api-handler.js';

export const handler = notImplementedHandler('rotateWebhookSecret');
