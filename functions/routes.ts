import { routeTable } from '../shared/http/route-table.js';
import { operation as changePassword } from './auth/change-password.operation.js';
import { operation as forgotPassword } from './auth/forgot-password.operation.js';
import { operation as listSessions } from './auth/list-sessions.operation.js';
import { operation as login } from './auth/login.operation.js';
import { operation as logout } from './auth/logout.operation.js';
import { operation as logoutAll } from './auth/logout-all.operation.js';
import { operation as refreshToken } from './auth/refresh-token.operation.js';
import { operation as resetPasswordWithOtp } from './auth/reset-password-otp.operation.js';
import { operation as revokeSession } from './auth/revoke-session.operation.js';
import { operation as signup } from './auth/signup.operation.js';
import { operation as verifySignupOtp } from './auth/verify-signup-otp.operation.js';
import { operation as jwks } from './meta/jwks.operation.js';
import { operation as notFound } from './meta/not-found.operation.js';
import { operation as openapi } from './meta/openapi.operation.js';
import { operation as resendEmailOtp } from './otp/resend-email-otp.operation.js';
import { operation as resendMobileOtp } from './otp/resend-mobile-otp.operation.js';
import { operation as sendOtp } from './otp/send-otp.operation.js';
import { operation as verifyEmailOtp } from './otp/verify-email-otp.operation.js';
import { operation as verifyMobileOtp } from './otp/verify-mobile-otp.operation.js';
import { operation as verifyOtp } from './otp/verify-otp.operation.js';
import { operation as verifyPhoneAccount } from './otp/verify-phone-account.operation.js';
import { operation as getProfile } from './profile/get-profile.operation.js';
import { operation as profileUpdate } from './profile/update-profile.operation.js';
import { operation as handleGatewayASubscriptionWebhook } from './receivers/gateway-a-subscription-webhook.operation.js';
import { operation as handleGatewayAWebhook } from './receivers/gateway-a-webhook.operation.js';
import { operation as handleGatewayAWebhookEnhanced } from './receivers/gateway-a-webhook-enhanced.operation.js';
import { operation as handleGatewayBWebhook } from './receivers/gateway-b-webhook.operation.js';
import {
  notificationOperation as messagingWebhookNotification,
  verificationOperation as messagingWebhookVerification,
} from './receivers/messaging-webhook.operation.js';
import { operation as deleteWebhook } from './webhooks/delete-webhook.operation.js';
import { operation as getWebhook } from './webhooks/get-webhook.operation.js';
import { operation as getWebhookDelivery } from './webhooks/get-webhook-delivery.operation.js';
import { operation as listEventTypes } from './webhooks/list-event-types.operation.js';
import { operation as listWebhookDeliveries } from './webhooks/list-webhook-deliveries.operation.js';
import { operation as listWebhooks } from './webhooks/list-webhooks.operation.js';
import { operation as publishEvent } from './webhooks/publish-event.operation.js';
import { operation as recoverWebhook } from './webhooks/recover-webhook.operation.js';
import { operation as registerWebhook } from './webhooks/register-webhook.operation.js';
import { operation as retryWebhookDelivery } from './webhooks/retry-webhook-delivery.operation.js';
import { operation as rotateWebhookSecret } from './webhooks/rotate-webhook-secret.operation.js';
import { operation as sendWebhookTestEvent } from './webhooks/send-webhook-test-event.operation.js';
import { operation as updateWebhook } from './webhooks/update-webhook.operation.js';
import { operation as deliverWebhook } from './workers/deliver-webhook.operation.js';
import { operation as processInboundEvent } from './workers/process-inbound-event.operation.js';
import { operation as sendAccountCode } from './workers/send-account-code.operation.js';
import { operation as sweepDeliveries } from './workers/sweep-deliveries.operation.js';
import { operation as sweepInboundEvents } from './workers/sweep-inbound-events.operation.js';

/**
 * Every operation of the service, listed once. Each is declared in its own definition beside its
 * handler (`<handler>.operation.ts`, see shared/http/operation.ts), which the handler imports;
 * this table lists them, and `routeTable` adds what each one's `auth` implies. The CDK stack makes
 * one Lambda per distinct `entry`, the local runtime serves the same entries at the same paths,
 * and the OpenAPI document is generated from this table — nothing else lists the operations.
 *
 * Handlers do not import this module (it would pull every schema into every bundle); they import
 * their own definition.
 */
export const { routes, httpRoutes, operations } = routeTable([
  // Accounts and sessions
  signup,
  verifySignupOtp,
  login,
  refreshToken,
  logout,
  changePassword,
  listSessions,
  revokeSession,
  logoutAll,
  forgotPassword,
  resetPasswordWithOtp,
  getProfile,
  profileUpdate,
  jwks,
  notFound,
  openapi,

  // One-time passwords
  sendOtp,
  verifyOtp,
  resendEmailOtp,
  resendMobileOtp,
  verifyEmailOtp,
  verifyMobileOtp,
  verifyPhoneAccount,

  // Outbound webhooks
  registerWebhook,
  listWebhooks,
  getWebhook,
  updateWebhook,
  deleteWebhook,
  rotateWebhookSecret,
  listWebhookDeliveries,
  getWebhookDelivery,
  retryWebhookDelivery,
  recoverWebhook,
  sendWebhookTestEvent,
  listEventTypes,
  publishEvent,

  // Inbound webhook receivers (Function URLs)
  handleGatewayAWebhook,
  handleGatewayAWebhookEnhanced,
  handleGatewayASubscriptionWebhook,
  handleGatewayBWebhook,
  messagingWebhookVerification,
  messagingWebhookNotification,

  // Background work
  deliverWebhook,
  processInboundEvent,
  sendAccountCode,
  sweepDeliveries,
  sweepInboundEvents,
]);
