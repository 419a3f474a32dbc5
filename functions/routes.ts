import { routeTable } from '../shared/http/route-table.js';
import * as addPasskey from './auth/add-passkey.operation.js';
import * as changePassword from './auth/change-password.operation.js';
import * as confirmTotp from './auth/confirm-totp.operation.js';
import * as forgotPassword from './auth/forgot-password.operation.js';
import * as listPasskeys from './auth/list-passkeys.operation.js';
import * as listSessions from './auth/list-sessions.operation.js';
import * as login from './auth/login.operation.js';
import * as logout from './auth/logout.operation.js';
import * as logoutAll from './auth/logout-all.operation.js';
import * as passkeyAuthenticationOptions from './auth/passkey-authentication-options.operation.js';
import * as passkeyLogin from './auth/passkey-login.operation.js';
import * as passkeyRegistrationOptions from './auth/passkey-registration-options.operation.js';
import * as refreshToken from './auth/refresh-token.operation.js';
import * as removePasskey from './auth/remove-passkey.operation.js';
import * as removeTotp from './auth/remove-totp.operation.js';
import * as replaceRecoveryCodes from './auth/replace-recovery-codes.operation.js';
import * as resetPasswordWithOtp from './auth/reset-password-otp.operation.js';
import * as revokeSession from './auth/revoke-session.operation.js';
import * as signup from './auth/signup.operation.js';
import * as startTotpEnrolment from './auth/start-totp-enrolment.operation.js';
import * as verifyMfa from './auth/verify-mfa.operation.js';
import * as verifySignupOtp from './auth/verify-signup-otp.operation.js';
import * as jwks from './meta/jwks.operation.js';
import * as notFound from './meta/not-found.operation.js';
import * as openapi from './meta/openapi.operation.js';
import * as resendEmailOtp from './otp/resend-email-otp.operation.js';
import * as resendMobileOtp from './otp/resend-mobile-otp.operation.js';
import * as sendOtp from './otp/send-otp.operation.js';
import * as verifyEmailOtp from './otp/verify-email-otp.operation.js';
import * as verifyMobileOtp from './otp/verify-mobile-otp.operation.js';
import * as verifyOtp from './otp/verify-otp.operation.js';
import * as verifyPhoneAccount from './otp/verify-phone-account.operation.js';
import * as getProfile from './profile/get-profile.operation.js';
import * as profileUpdate from './profile/update-profile.operation.js';
import * as handleGatewayASubscriptionWebhook from './receivers/gateway-a-subscription-webhook.operation.js';
import * as handleGatewayAWebhook from './receivers/gateway-a-webhook.operation.js';
import * as handleGatewayAWebhookEnhanced from './receivers/gateway-a-webhook-enhanced.operation.js';
import * as handleGatewayBWebhook from './receivers/gateway-b-webhook.operation.js';
import * as messaging from './receivers/messaging-webhook.operation.js';
import * as deleteWebhook from './webhooks/delete-webhook.operation.js';
import * as getWebhook from './webhooks/get-webhook.operation.js';
import * as getWebhookDelivery from './webhooks/get-webhook-delivery.operation.js';
import * as listEventTypes from './webhooks/list-event-types.operation.js';
import * as listWebhookDeliveries from './webhooks/list-webhook-deliveries.operation.js';
import * as listWebhooks from './webhooks/list-webhooks.operation.js';
import * as publishEvent from './webhooks/publish-event.operation.js';
import * as recoverWebhook from './webhooks/recover-webhook.operation.js';
import * as registerWebhook from './webhooks/register-webhook.operation.js';
import * as retryWebhookDelivery from './webhooks/retry-webhook-delivery.operation.js';
import * as rotateWebhookSecret from './webhooks/rotate-webhook-secret.operation.js';
import * as sendWebhookTestEvent from './webhooks/send-webhook-test-event.operation.js';
import * as updateWebhook from './webhooks/update-webhook.operation.js';
import * as deliverWebhook from './workers/deliver-webhook.operation.js';
import * as processInboundEvent from './workers/process-inbound-event.operation.js';
import * as sendAccountCode from './workers/send-account-code.operation.js';
import * as sweepDeliveries from './workers/sweep-deliveries.operation.js';
import * as sweepInboundEvents from './workers/sweep-inbound-events.operation.js';

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
  verifyMfa,
  startTotpEnrolment,
  confirmTotp,
  removeTotp,
  replaceRecoveryCodes,
  passkeyRegistrationOptions,
  addPasskey,
  listPasskeys,
  removePasskey,
  passkeyAuthenticationOptions,
  passkeyLogin,
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
  { operation: messaging.verificationOperation, answer: messaging.verificationAnswer },
  { operation: messaging.notificationOperation, answer: messaging.notificationAnswer },

  // Background work
  deliverWebhook,
  processInboundEvent,
  sendAccountCode,
  sweepDeliveries,
  sweepInboundEvents,
]);
