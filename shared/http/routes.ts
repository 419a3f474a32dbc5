import type { GenericSchema } from 'valibot';
import type { ItemFamily } from '../adapters/keys.js';
import type { SecretName } from '../config.js';
import * as auth from './schemas/auth.js';
import * as otp from './schemas/otp.js';
import * as withPhone from './schemas/phone-requests.js';
import * as webhooks from './schemas/webhooks.js';

/**
 * Every operation of the service, written once. The CDK stack makes one Lambda per distinct
 * `entry`, the local runtime serves the same entries at the same paths, and the OpenAPI document
 * is generated from this table — nothing else lists the operations.
 *
 * Handlers do not import this module (it would pull every schema into every bundle); they import
 * their own schema from ./schemas.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `ANY` only on the catch-all route, which answers what no operation serves. */
type RouteMethod = HttpMethod | 'ANY';

/**
 * - none: public (signature-authenticated receivers are `none` too);
 * - user: a Bearer access token whose session is live;
 * - user-if-generic: public for purpose `login`, a Bearer token for purpose `generic` (sendOtp,
 *   verifyOtp: a generic code confirms a number for the signed-in user);
 * - iam: SigV4 on AWS (other services of the platform); open in the local runtime.
 */
export type Auth = 'none' | 'user' | 'user-if-generic' | 'iam';

/**
 * What an operation's function uses. The stack grants exactly these, and sets the environment
 * they need, next to the function's declaration; the local runtime holds each handler to its
 * item families, as IAM does on AWS.
 */
export interface Needs {
  /**
   * The item families of the table it reads or writes (`itemFamilies` in shared/adapters/keys.ts),
   * besides those every route of its kind touches: an API route counts rate-limit hits
   * (`rateCounter`), a route that takes a Bearer token checks the caller's session (`user`).
   */
  items?: ItemFamily[];
  /** Sends email through SES. */
  email?: boolean;
  /** Sends SMS through SNS (to phone numbers only). */
  sms?: boolean;
  /** Sends messages to the outbound delivery queue. */
  deliveryQueue?: boolean;
  /** Sends messages to the inbound-event processing queue. */
  inboundQueue?: boolean;
  /** Sends messages to the account-code queue (code work done off the request path). */
  accountCodeQueue?: boolean;
  /** Reads the SMS country allow-list without sending SMS (checks a number before queueing). */
  smsAllowList?: boolean;
  /** Creates and deletes one-time schedules in the delivery schedule group. */
  scheduler?: boolean;
  /** Secrets read once per cold start. */
  secrets?: SecretName[];
}

interface HttpRoute {
  /** The operation id (service-interface.md's names where it has one). */
  name: string;
  method: RouteMethod;
  /** Path below /v1, with {param} placeholders (`{proxy+}`: any rest of the path). */
  path: string;
  /** The Lambda entry module, relative to the project root. */
  entry: string;
  auth: Auth;
  summary: string;
  tag: 'auth' | 'profile' | 'otp' | 'webhooks' | 'events' | 'receivers' | 'meta';
  /** Status of a success response. @default 200 */
  successStatus?: 200 | 201 | 202;
  body?: GenericSchema;
  query?: GenericSchema;
  needs: Needs;
}

/** Behind API Gateway (stage v1), with the usage plans and the per-client rate limit. */
export interface ApiRoute extends HttpRoute {
  surface: 'api';
}

/**
 * On a Lambda Function URL: the inbound webhook receivers, which authenticate by signature.
 * Routes that share an entry share one function (and one URL): the messaging platform calls a
 * single callback URL with GET for the handshake and POST for notifications.
 */
export interface FunctionUrlRoute extends HttpRoute {
  surface: 'function-url';
  /** Largest accepted body in bytes. @default 1 MiB */
  maxBodyBytes?: number;
}

/** Not on HTTP: invoked by SQS or by a schedule. */
export interface BackgroundRoute {
  name: string;
  entry: string;
  surface: 'queue' | 'schedule';
  /** For surface queue: which queue feeds it. */
  queue?: 'delivery' | 'inbound' | 'accountCode';
  summary: string;
  needs: Needs;
}

export type Route = ApiRoute | FunctionUrlRoute | BackgroundRoute;

export type HttpRouteEntry = ApiRoute | FunctionUrlRoute;

const api = (route: Omit<ApiRoute, 'surface'>): ApiRoute => ({ ...route, surface: 'api' });
const receiver = (route: Omit<FunctionUrlRoute, 'surface' | 'auth' | 'tag'>): FunctionUrlRoute => ({
  ...route,
  auth: 'none',
  tag: 'receivers',
  surface: 'function-url',
});

export const routes: Route[] = [
  // Accounts and sessions
  api({
    name: 'signup',
    method: 'POST',
    path: '/auth/signup',
    entry: 'functions/auth/signup.ts',
    auth: 'none',
    tag: 'auth',
    summary: 'Register an account and email a verification code',
    needs: { items: ['user', 'emailGuard', 'phoneGuard'], accountCodeQueue: true },
    successStatus: 201,
    body: withPhone.SignupRequest,
  }),
  api({
    name: 'verifySignupOtp',
    method: 'POST',
    path: '/auth/verify-signup-otp',
    entry: 'functions/auth/verify-signup-otp.ts',
    auth: 'none',
    tag: 'auth',
    summary: 'Verify the sign-up code, activate the account and log in',
    needs: {
      items: ['user', 'emailGuard', 'otp', 'otpAttempts', 'refreshToken'],
      accountCodeQueue: true,
      secrets: ['JWT_SIGNING_KEYS', 'OTP_PEPPER'],
    },
    body: auth.VerifySignupOtpRequest,
  }),
  api({
    name: 'login',
    method: 'POST',
    path: '/auth/login',
    entry: 'functions/auth/login.ts',
    auth: 'none',
    tag: 'auth',
    summary: 'Log in with email and password',
    needs: {
      items: ['user', 'emailGuard', 'loginThrottle', 'refreshToken'],
      secrets: ['JWT_SIGNING_KEYS'],
    },
    body: auth.LoginRequest,
  }),
  api({
    name: 'refreshToken',
    method: 'POST',
    path: '/auth/refresh-token',
    entry: 'functions/auth/refresh-token.ts',
    auth: 'none',
    tag: 'auth',
    summary: 'Exchange a refresh token for a new token pair (rotation)',
    needs: { items: ['user', 'refreshToken'], secrets: ['JWT_SIGNING_KEYS'] },
    body: auth.RefreshTokenRequest,
  }),
  api({
    name: 'logout',
    method: 'POST',
    path: '/auth/logout',
    entry: 'functions/auth/logout.ts',
    auth: 'none',
    tag: 'auth',
    summary: 'Revoke the session of the Bearer token, if any; always succeeds',
    needs: { items: ['user'], secrets: ['JWT_SIGNING_KEYS'] },
  }),
  api({
    name: 'changePassword',
    method: 'POST',
    path: '/auth/change-password',
    entry: 'functions/auth/change-password.ts',
    auth: 'user',
    tag: 'auth',
    summary: 'Change (or, with no password yet, set) the password and revoke every other session',
    needs: { items: ['loginThrottle'], accountCodeQueue: true, secrets: ['JWT_SIGNING_KEYS'] },
    body: auth.ChangePasswordRequest,
  }),
  api({
    name: 'listSessions',
    method: 'GET',
    path: '/auth/sessions',
    entry: 'functions/auth/list-sessions.ts',
    auth: 'user',
    tag: 'auth',
    summary: "The caller's live sessions, newest first",
    needs: { secrets: ['JWT_SIGNING_KEYS'] },
  }),
  api({
    name: 'revokeSession',
    method: 'DELETE',
    path: '/auth/sessions/{id}',
    entry: 'functions/auth/revoke-session.ts',
    auth: 'user',
    tag: 'auth',
    summary: "End one of the caller's sessions: its tokens stop working at once",
    needs: { secrets: ['JWT_SIGNING_KEYS'] },
  }),
  api({
    name: 'logoutAll',
    method: 'POST',
    path: '/auth/logout-all',
    entry: 'functions/auth/logout-all.ts',
    auth: 'user',
    tag: 'auth',
    summary: 'End every session of the caller, this one included',
    needs: { secrets: ['JWT_SIGNING_KEYS'] },
  }),
  api({
    name: 'forgotPassword',
    method: 'POST',
    path: '/auth/forgot-password',
    entry: 'functions/auth/forgot-password.ts',
    auth: 'none',
    tag: 'auth',
    summary: 'Email a password-reset code (or a verification code first)',
    needs: { items: ['user', 'emailGuard'], accountCodeQueue: true },
    body: auth.ForgotPasswordRequest,
  }),
  api({
    name: 'resetPasswordWithOtp',
    method: 'POST',
    path: '/auth/reset-password-otp',
    entry: 'functions/auth/reset-password-otp.ts',
    auth: 'none',
    tag: 'auth',
    summary: 'Set a new password with the emailed code; revokes all sessions',
    needs: {
      items: ['user', 'emailGuard', 'loginThrottle', 'otp', 'otpAttempts'],
      accountCodeQueue: true,
      secrets: ['OTP_PEPPER'],
    },
    body: auth.ResetPasswordWithOtpRequest,
  }),
  api({
    name: 'getProfile',
    method: 'GET',
    path: '/profile',
    entry: 'functions/profile/get-profile.ts',
    auth: 'user',
    tag: 'profile',
    summary: "The caller's own profile",
    needs: { secrets: ['JWT_SIGNING_KEYS'] },
  }),
  api({
    name: 'profileUpdate',
    method: 'PUT',
    path: '/profile/update',
    entry: 'functions/profile/update-profile.ts',
    auth: 'user',
    tag: 'profile',
    summary: 'Change name, gender or online status; a new email or phone number waits for its code',
    needs: {
      items: ['loginThrottle', 'phoneGuard'],
      accountCodeQueue: true,
      smsAllowList: true,
      secrets: ['JWT_SIGNING_KEYS'],
    },
    body: withPhone.ProfileUpdateRequest,
  }),
  api({
    name: 'jwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    entry: 'functions/meta/jwks.ts',
    auth: 'none',
    tag: 'meta',
    summary: 'Public keys that verify access tokens',
    needs: { secrets: ['JWT_SIGNING_KEYS'] },
  }),
  api({
    name: 'notFound',
    method: 'ANY',
    path: '/{proxy+}',
    entry: 'functions/meta/not-found.ts',
    auth: 'none',
    tag: 'meta',
    summary: 'What no operation serves: the 404 envelope, with the headers of every answer',
    needs: {},
  }),
  api({
    name: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    entry: 'functions/meta/openapi.ts',
    auth: 'none',
    tag: 'meta',
    summary: 'This API as an OpenAPI 3.1 document',
    needs: {},
  }),

  // One-time passwords
  api({
    name: 'sendOtp',
    method: 'POST',
    path: '/otp/send',
    entry: 'functions/otp/send-otp.ts',
    auth: 'user-if-generic',
    tag: 'otp',
    summary:
      'Send an SMS code: purpose login (public; texted only to the verified phone of an account, the same answer for every number) or generic (Bearer token; the code is bound to the caller)',
    needs: {
      items: ['otp', 'otpAttempts', 'otpSends', 'smsSends'],
      sms: true,
      accountCodeQueue: true,
      secrets: ['JWT_SIGNING_KEYS', 'OTP_PEPPER'],
    },
    body: withPhone.SendOtpInput,
  }),
  api({
    name: 'verifyOtp',
    method: 'POST',
    path: '/otp/verify',
    entry: 'functions/otp/verify-otp.ts',
    auth: 'user-if-generic',
    tag: 'otp',
    summary:
      'Verify an SMS code: purpose login (public) returns a token pair; generic (Bearer token) confirms the number for the caller',
    needs: {
      items: ['phoneGuard', 'otp', 'otpAttempts', 'refreshToken'],
      secrets: ['JWT_SIGNING_KEYS', 'OTP_PEPPER'],
    },
    body: withPhone.VerifyOtpInput,
  }),
  api({
    name: 'resendEmailOtp',
    method: 'POST',
    path: '/otp/resend/email',
    entry: 'functions/otp/resend-email-otp.ts',
    auth: 'none',
    tag: 'otp',
    summary: 'Send a new email verification code',
    needs: { accountCodeQueue: true },
    body: otp.ResendEmailOtpRequest,
  }),
  api({
    name: 'resendMobileOtp',
    method: 'POST',
    path: '/otp/resend/mobile',
    entry: 'functions/otp/resend-mobile-otp.ts',
    auth: 'none',
    tag: 'otp',
    summary: 'Send a new SMS verification code',
    needs: { accountCodeQueue: true, smsAllowList: true },
    body: withPhone.ResendMobileOtpRequest,
  }),
  api({
    name: 'verifyEmailOtp',
    method: 'POST',
    path: '/otp/verify/email',
    entry: 'functions/otp/verify-email-otp.ts',
    auth: 'none',
    tag: 'otp',
    summary: 'Confirm ownership of an email address',
    needs: {
      items: ['user', 'emailGuard', 'otp', 'otpAttempts'],
      secrets: ['JWT_SIGNING_KEYS', 'OTP_PEPPER'],
    },
    body: otp.VerifyEmailOtpRequest,
  }),
  api({
    name: 'verifyMobileOtp',
    method: 'POST',
    path: '/otp/verify/mobile',
    entry: 'functions/otp/verify-mobile-otp.ts',
    auth: 'none',
    tag: 'otp',
    summary: 'Confirm ownership of a phone number',
    needs: {
      items: ['user', 'phoneGuard', 'otp', 'otpAttempts'],
      accountCodeQueue: true,
      secrets: ['JWT_SIGNING_KEYS', 'OTP_PEPPER'],
    },
    body: withPhone.VerifyMobileOtpRequest,
  }),
  api({
    name: 'verifyPhoneAccount',
    method: 'GET',
    path: '/verify/phone',
    entry: 'functions/otp/verify-phone-account.ts',
    auth: 'none',
    tag: 'otp',
    summary: 'Whether a phone number is already registered',
    needs: { items: ['phoneGuard'] },
    query: withPhone.VerifyPhoneAccountQuery,
  }),

  // Outbound webhooks
  api({
    name: 'registerWebhook',
    method: 'POST',
    path: '/webhooks',
    entry: 'functions/webhooks/register-webhook.ts',
    auth: 'user',
    tag: 'webhooks',
    summary: 'Register an HTTPS endpoint for event types; returns its signing secret once',
    needs: { items: ['account'], secrets: ['JWT_SIGNING_KEYS'] },
    successStatus: 201,
    body: webhooks.RegisterWebhookRequest,
  }),
  api({
    name: 'listWebhooks',
    method: 'GET',
    path: '/webhooks',
    entry: 'functions/webhooks/list-webhooks.ts',
    auth: 'user',
    tag: 'webhooks',
    summary: "The caller's endpoints, newest first; filters: status, created_after, created_before",
    needs: { items: ['account'], secrets: ['JWT_SIGNING_KEYS'] },
    query: webhooks.ListWebhooksQuery,
  }),
  api({
    name: 'getWebhook',
    method: 'GET',
    path: '/webhooks/{id}',
    entry: 'functions/webhooks/get-webhook.ts',
    auth: 'user',
    tag: 'webhooks',
    summary: 'One endpoint',
    needs: { items: ['account'], secrets: ['JWT_SIGNING_KEYS'] },
  }),
  api({
    name: 'updateWebhook',
    method: 'PATCH',
    path: '/webhooks/{id}',
    entry: 'functions/webhooks/update-webhook.ts',
    auth: 'user',
    tag: 'webhooks',
    summary: 'Change url, events, description or status; enabling sends the deliveries that waited',
    needs: {
      items: ['account', 'delivery', 'pausedDeliveries'],
      deliveryQueue: true,
      secrets: ['JWT_SIGNING_KEYS'],
    },
    body: webhooks.UpdateWebhookRequest,
  }),
  api({
    name: 'deleteWebhook',
    method: 'DELETE',
    path: '/webhooks/{id}',
    entry: 'functions/webhooks/delete-webhook.ts',
    auth: 'user',
    tag: 'webhooks',
    summary: 'Delete an endpoint; pending deliveries to it stop',
    needs: { items: ['account'], secrets: ['JWT_SIGNING_KEYS'] },
  }),
  api({
    name: 'rotateWebhookSecret',
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    entry: 'functions/webhooks/rotate-webhook-secret.ts',
    auth: 'user',
    tag: 'webhooks',
    summary: 'Issue a new signing secret; the old one also signs for 24 hours',
    needs: { items: ['account'], secrets: ['JWT_SIGNING_KEYS'] },
  }),
  api({
    name: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhooks/{id}/deliveries',
    entry: 'functions/webhooks/list-webhook-deliveries.ts',
    auth: 'user',
    tag: 'webhooks',
    summary:
      'Deliveries to an endpoint with their attempts; filters: status, event_type, created_after, created_before',
    needs: { items: ['account', 'endpointDeliveries'], secrets: ['JWT_SIGNING_KEYS'] },
    query: webhooks.ListDeliveriesQuery,
  }),
  api({
    name: 'getWebhookDelivery',
    method: 'GET',
    path: '/webhooks/{id}/deliveries/{delivery_id}',
    entry: 'functions/webhooks/get-webhook-delivery.ts',
    auth: 'user',
    tag: 'webhooks',
    summary: 'One delivery with its attempts and the event it carries',
    needs: { items: ['account', 'delivery', 'event'], secrets: ['JWT_SIGNING_KEYS'] },
  }),
  api({
    name: 'retryWebhookDelivery',
    method: 'POST',
    path: '/webhooks/{id}/deliveries/{delivery_id}/retry',
    entry: 'functions/webhooks/retry-webhook-delivery.ts',
    auth: 'user',
    tag: 'webhooks',
    summary: 'Attempt a delivery again now',
    needs: { items: ['account', 'delivery'], deliveryQueue: true, secrets: ['JWT_SIGNING_KEYS'] },
  }),
  api({
    name: 'recoverWebhook',
    method: 'POST',
    path: '/webhooks/{id}/recover',
    entry: 'functions/webhooks/recover-webhook.ts',
    auth: 'user',
    tag: 'webhooks',
    summary:
      'Re-queue the failed deliveries created from since until until, 100 per call, each with a fresh ladder',
    needs: {
      items: ['account', 'delivery', 'failedDeliveries'],
      deliveryQueue: true,
      secrets: ['JWT_SIGNING_KEYS'],
    },
    successStatus: 202,
    body: webhooks.RecoverWebhookRequest,
  }),
  api({
    name: 'sendWebhookTestEvent',
    method: 'POST',
    path: '/webhooks/{id}/test',
    entry: 'functions/webhooks/send-webhook-test-event.ts',
    auth: 'user',
    tag: 'webhooks',
    summary: 'Deliver a test event to the endpoint',
    needs: {
      items: ['account', 'delivery', 'event'],
      deliveryQueue: true,
      secrets: ['JWT_SIGNING_KEYS'],
    },
  }),
  api({
    name: 'listEventTypes',
    method: 'GET',
    path: '/event-types',
    entry: 'functions/webhooks/list-event-types.ts',
    auth: 'none',
    tag: 'events',
    summary: 'The event types an endpoint can subscribe to, with the JSON Schema of each payload',
    needs: {},
    query: webhooks.PageQuery,
  }),
  api({
    name: 'publishEvent',
    method: 'POST',
    path: '/events',
    entry: 'functions/webhooks/publish-event.ts',
    auth: 'iam',
    tag: 'events',
    summary: "Publish an event to the account's subscribed endpoints",
    needs: { items: ['account', 'event', 'eventIdempotency', 'delivery'], deliveryQueue: true },
    successStatus: 201,
    body: webhooks.PublishEventRequest,
  }),

  // Inbound webhook receivers (Function URLs)
  receiver({
    name: 'handleGatewayAWebhook',
    method: 'POST',
    path: '/gateway-a-webhook-listener',
    entry: 'functions/receivers/gateway-a-webhook.ts',
    summary: 'Gateway A payment and order events',
    needs: {
      items: ['inboundEvent', 'inboundAttempt'],
      inboundQueue: true,
      secrets: ['GATEWAY_A_WEBHOOK_SECRET'],
    },
  }),
  receiver({
    name: 'handleGatewayAWebhookEnhanced',
    method: 'POST',
    path: '/gateway-a-webhook-enhanced',
    entry: 'functions/receivers/gateway-a-webhook-enhanced.ts',
    summary: 'Gateway A events, enhanced verification',
    needs: {
      items: ['inboundEvent', 'inboundAttempt'],
      inboundQueue: true,
      secrets: ['GATEWAY_A_WEBHOOK_SECRET'],
    },
  }),
  receiver({
    name: 'handleGatewayASubscriptionWebhook',
    method: 'POST',
    path: '/subscriptions/gateway-a',
    entry: 'functions/receivers/gateway-a-subscription-webhook.ts',
    summary: 'Gateway A subscription events',
    needs: {
      items: ['inboundEvent', 'inboundAttempt'],
      inboundQueue: true,
      secrets: ['GATEWAY_A_WEBHOOK_SECRET'],
    },
  }),
  receiver({
    name: 'handleGatewayBWebhook',
    method: 'POST',
    path: '/gateway-b-webhook',
    entry: 'functions/receivers/gateway-b-webhook.ts',
    summary: 'All gateway B events',
    needs: {
      items: ['inboundEvent', 'inboundAttempt'],
      inboundQueue: true,
      secrets: ['GATEWAY_B_WEBHOOK_SECRET'],
    },
  }),
  receiver({
    name: 'messagingWebhookVerification',
    method: 'GET',
    path: '/messaging',
    entry: 'functions/receivers/messaging-webhook.ts',
    summary: 'Messaging platform subscription handshake',
    needs: {
      items: ['inboundEvent', 'inboundAttempt'],
      inboundQueue: true,
      secrets: ['MESSAGING_APP_SECRET', 'MESSAGING_VERIFY_TOKEN'],
    },
  }),
  receiver({
    name: 'messagingWebhookNotification',
    method: 'POST',
    path: '/messaging',
    entry: 'functions/receivers/messaging-webhook.ts',
    summary: 'Messaging platform notifications',
    needs: {
      items: ['inboundEvent', 'inboundAttempt'],
      inboundQueue: true,
      secrets: ['MESSAGING_APP_SECRET', 'MESSAGING_VERIFY_TOKEN'],
    },
  }),

  // Background work
  {
    name: 'deliverWebhook',
    entry: 'functions/workers/deliver-webhook.ts',
    surface: 'queue',
    queue: 'delivery',
    summary: 'Make one delivery attempt per SQS message',
    needs: {
      items: ['user', 'account', 'delivery', 'event'],
      email: true,
      deliveryQueue: true,
      scheduler: true,
    },
  },
  {
    name: 'processInboundEvent',
    entry: 'functions/workers/process-inbound-event.ts',
    surface: 'queue',
    queue: 'inbound',
    summary: 'Act on an accepted inbound webhook event (subscriptions, payment events)',
    needs: {
      items: ['inboundEvent', 'account', 'event', 'eventIdempotency', 'delivery', 'messaging'],
      deliveryQueue: true,
    },
  },
  {
    name: 'sendAccountCode',
    entry: 'functions/workers/send-account-code.ts',
    surface: 'queue',
    queue: 'accountCode',
    summary: 'Issue and send the code of a signup, forgot-password or resend request',
    needs: {
      items: [
        'user',
        'emailGuard',
        'phoneGuard',
        'otp',
        'otpAttempts',
        'otpSends',
        'smsSends',
        'signupNotice',
      ],
      email: true,
      sms: true,
      secrets: ['OTP_PEPPER'],
    },
  },
  {
    name: 'sweepDeliveries',
    entry: 'functions/workers/sweep-deliveries.ts',
    surface: 'schedule',
    summary: 'Re-enqueue deliveries whose next attempt is overdue',
    needs: {
      items: [
        'account',
        'delivery',
        'event',
        'dueDeliveries',
        'pausedDeliveries',
        'resumingEndpoints',
        'stalledFanOuts',
      ],
      deliveryQueue: true,
    },
  },
  {
    name: 'sweepInboundEvents',
    entry: 'functions/workers/sweep-inbound-events.ts',
    surface: 'schedule',
    summary: 'Re-enqueue accepted inbound events left unprocessed; give up after 5 sweeps',
    needs: { items: ['inboundEvent', 'stalledInboundEvents'], inboundQueue: true },
  },
];

export const isHttpRoute = (route: Route): route is HttpRouteEntry =>
  route.surface === 'api' || route.surface === 'function-url';

export const httpRoutes = routes.filter(isHttpRoute);

/** The operations of the API, which the OpenAPI document describes: all but the catch-all. */
export const operations = httpRoutes.filter(
  (route): route is HttpRouteEntry & { method: HttpMethod } => route.method !== 'ANY',
);
