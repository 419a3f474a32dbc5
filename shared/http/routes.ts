import { operation as changePassword } from '../../functions/auth/change-password.operation.js';
import { operation as forgotPassword } from '../../functions/auth/forgot-password.operation.js';
import { operation as listSessions } from '../../functions/auth/list-sessions.operation.js';
import { operation as login } from '../../functions/auth/login.operation.js';
import { operation as logout } from '../../functions/auth/logout.operation.js';
import { operation as logoutAll } from '../../functions/auth/logout-all.operation.js';
import { operation as refreshToken } from '../../functions/auth/refresh-token.operation.js';
import { operation as resetPasswordWithOtp } from '../../functions/auth/reset-password-otp.operation.js';
import { operation as revokeSession } from '../../functions/auth/revoke-session.operation.js';
import { operation as signup } from '../../functions/auth/signup.operation.js';
import { operation as verifySignupOtp } from '../../functions/auth/verify-signup-otp.operation.js';
import { operation as jwks } from '../../functions/meta/jwks.operation.js';
import { operation as notFound } from '../../functions/meta/not-found.operation.js';
import { operation as openapi } from '../../functions/meta/openapi.operation.js';
import { operation as resendEmailOtp } from '../../functions/otp/resend-email-otp.operation.js';
import { operation as resendMobileOtp } from '../../functions/otp/resend-mobile-otp.operation.js';
import { operation as sendOtp } from '../../functions/otp/send-otp.operation.js';
import { operation as verifyEmailOtp } from '../../functions/otp/verify-email-otp.operation.js';
import { operation as verifyMobileOtp } from '../../functions/otp/verify-mobile-otp.operation.js';
import { operation as verifyOtp } from '../../functions/otp/verify-otp.operation.js';
import { operation as verifyPhoneAccount } from '../../functions/otp/verify-phone-account.operation.js';
import { operation as getProfile } from '../../functions/profile/get-profile.operation.js';
import { operation as profileUpdate } from '../../functions/profile/update-profile.operation.js';
import { operation as handleGatewayASubscriptionWebhook } from '../../functions/receivers/gateway-a-subscription-webhook.operation.js';
import { operation as handleGatewayAWebhook } from '../../functions/receivers/gateway-a-webhook.operation.js';
import { operation as handleGatewayAWebhookEnhanced } from '../../functions/receivers/gateway-a-webhook-enhanced.operation.js';
import { operation as handleGatewayBWebhook } from '../../functions/receivers/gateway-b-webhook.operation.js';
import {
  notificationOperation as messagingWebhookNotification,
  verificationOperation as messagingWebhookVerification,
} from '../../functions/receivers/messaging-webhook.operation.js';
import { operation as deleteWebhook } from '../../functions/webhooks/delete-webhook.operation.js';
import { operation as getWebhook } from '../../functions/webhooks/get-webhook.operation.js';
import { operation as getWebhookDelivery } from '../../functions/webhooks/get-webhook-delivery.operation.js';
import { operation as listEventTypes } from '../../functions/webhooks/list-event-types.operation.js';
import { operation as listWebhookDeliveries } from '../../functions/webhooks/list-webhook-deliveries.operation.js';
import { operation as listWebhooks } from '../../functions/webhooks/list-webhooks.operation.js';
import { operation as publishEvent } from '../../functions/webhooks/publish-event.operation.js';
import { operation as recoverWebhook } from '../../functions/webhooks/recover-webhook.operation.js';
import { operation as registerWebhook } from '../../functions/webhooks/register-webhook.operation.js';
import { operation as retryWebhookDelivery } from '../../functions/webhooks/retry-webhook-delivery.operation.js';
import { operation as rotateWebhookSecret } from '../../functions/webhooks/rotate-webhook-secret.operation.js';
import { operation as sendWebhookTestEvent } from '../../functions/webhooks/send-webhook-test-event.operation.js';
import { operation as updateWebhook } from '../../functions/webhooks/update-webhook.operation.js';
import { operation as deliverWebhook } from '../../functions/workers/deliver-webhook.operation.js';
import { operation as processInboundEvent } from '../../functions/workers/process-inbound-event.operation.js';
import { operation as sendAccountCode } from '../../functions/workers/send-account-code.operation.js';
import { operation as sweepDeliveries } from '../../functions/workers/sweep-deliveries.operation.js';
import { operation as sweepInboundEvents } from '../../functions/workers/sweep-inbound-events.operation.js';
import {
  type ApiOperation,
  type BackgroundOperation,
  type HttpMethod,
  type ReceiverOperation,
  takesBearerToken,
} from './operation.js';

export type { Auth, HttpMethod, Needs } from './operation.js';

/**
 * Every operation of the service, listed once. Each is declared in its own definition beside its
 * handler (`<handler>.operation.ts` under functions/, see ./operation.ts), which the handler imports; this
 * table lists them. The CDK stack makes one Lambda per distinct `entry`, the local runtime serves
 * the same entries at the same paths, and the OpenAPI document is generated from this table —
 * nothing else lists the operations.
 *
 * Handlers do not import this module (it would pull every schema into every bundle); they import
 * their own definition.
 */

export type ApiRoute = ApiOperation;
export type FunctionUrlRoute = ReceiverOperation;
export type BackgroundRoute = BackgroundOperation;
export type Route = ApiRoute | FunctionUrlRoute | BackgroundRoute;
export type HttpRouteEntry = ApiRoute | FunctionUrlRoute;

const definitions: Route[] = [
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
];

/**
 * A definition with what its `auth` implies: a route that takes a Bearer token verifies it, so
 * its function reads the token keys (JWT_SIGNING_KEYS). Added here, never by hand.
 */
function withImpliedNeeds(route: Route): Route {
  if (route.surface !== 'api' || !takesBearerToken(route.auth)) return route;
  const secrets = [...new Set(['JWT_SIGNING_KEYS' as const, ...(route.needs.secrets ?? [])])];
  return { ...route, needs: { ...route.needs, secrets } };
}

export const routes: Route[] = definitions.map(withImpliedNeeds);

export const isHttpRoute = (route: Route): route is HttpRouteEntry =>
  route.surface === 'api' || route.surface === 'function-url';

export const httpRoutes = routes.filter(isHttpRoute);

/** The operations of the API, which the OpenAPI document describes: all but the catch-all. */
export const operations = httpRoutes.filter(
  (route): route is HttpRouteEntry & { method: HttpMethod } => route.method !== 'ANY',
);
