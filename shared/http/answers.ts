import type { GenericSchema } from 'valibot';
import type { ErrorCode } from '../domain/errors.js';
import type { HttpRouteEntry } from './route-table.js';
import * as r from './schemas/responses.js';

/**
 * What each operation answers, by operation name: the `data` of its success envelope and the
 * error codes it can answer besides those every operation of its kind can (`errorsOf`). The
 * OpenAPI document is generated from this and the route table; the contract test holds every
 * answer of the end-to-end suite to it. Handlers never import it.
 */
export interface Answer {
  /**
   * The success envelope's `data`; for a list, one item (the answer is a page of them); for a
   * `json` document, the document itself.
   */
  data?: GenericSchema;
  /** A page of `data` items, with `meta` (page, per_page, total). */
  paged?: true;
  /** Not an envelope: the document itself (`json`) or a plain-text handshake (`text`). */
  document?: 'json' | 'text';
  /** Codes beyond those that follow from the route's surface, auth and inputs. */
  errors?: ErrorCode[];
  /** A public operation that also reads a Bearer token when one is sent (logout). */
  optionalBearer?: true;
  /** Reads an optional Idempotency-Key header: a repeat answers the first request's result. */
  idempotencyKey?: true;
  /** A receiver's signature scheme (components.securitySchemes). */
  signedWith?: 'gatewayASignature' | 'gatewayBSignature' | 'messagingSignature';
}

const codeChecks: ErrorCode[] = ['invalid_otp', 'otp_expired', 'too_many_attempts'];

export const answers: Record<string, Answer> = {
  signup: { data: r.SignupAccepted, errors: ['conflict'] },
  verifySignupOtp: { data: r.Activation, errors: [...codeChecks, 'conflict'] },
  login: {
    data: r.TokenPair,
    errors: ['invalid_credentials', 'email_not_verified', 'too_many_attempts', 'conflict'],
  },
  refreshToken: { data: r.TokenPair, errors: ['invalid_token'] },
  logout: { data: r.Message, optionalBearer: true },
  listSessions: { data: r.Session, paged: true },
  revokeSession: { data: r.SessionRevoked, errors: ['not_found'] },
  logoutAll: { data: r.Message },
  changePassword: {
    data: r.Message,
    errors: ['invalid_credentials', 'too_many_attempts', 'conflict'],
  },
  forgotPassword: { data: r.ForgotPasswordAccepted },
  resetPasswordWithOtp: { data: r.Message, errors: [...codeChecks, 'conflict'] },
  getProfile: { data: r.User },
  profileUpdate: {
    data: r.ProfileUpdated,
    errors: ['invalid_credentials', 'too_many_attempts', 'conflict'],
  },
  jwks: { document: 'json', data: r.Jwks },
  openapi: { document: 'json' },

  sendOtp: { data: r.SmsCodeSent, errors: ['too_many_attempts'] },
  verifyOtp: { data: r.OtpVerified, errors: codeChecks },
  resendEmailOtp: { data: r.CodeSent },
  resendMobileOtp: { data: r.CodeSent },
  verifyEmailOtp: { data: r.EmailVerified, errors: [...codeChecks, 'conflict'] },
  verifyMobileOtp: { data: r.MobileVerified, errors: [...codeChecks, 'conflict'] },
  verifyPhoneAccount: { data: r.PhoneRegistration },

  registerWebhook: { data: r.EndpointWithSecret, errors: ['conflict'] },
  listWebhooks: { data: r.Endpoint, paged: true },
  getWebhook: { data: r.Endpoint, errors: ['not_found'] },
  updateWebhook: { data: r.Endpoint, errors: ['not_found', 'conflict'] },
  deleteWebhook: { data: r.EndpointDeleted, errors: ['not_found'] },
  rotateWebhookSecret: { data: r.RotatedEndpoint, errors: ['not_found'] },
  listWebhookDeliveries: { data: r.Delivery, paged: true, errors: ['not_found'] },
  getWebhookDelivery: { data: r.DeliveryWithEvent, errors: ['not_found'] },
  retryWebhookDelivery: { data: r.Delivery, errors: ['not_found', 'conflict'] },
  recoverWebhook: { data: r.Recovery, errors: ['not_found', 'conflict'] },
  sendWebhookTestEvent: { data: r.TestEventSent, errors: ['not_found', 'conflict'] },
  listEventTypes: { data: r.EventType, paged: true },
  publishEvent: { data: r.EventPublished, errors: ['conflict'], idempotencyKey: true },

  handleGatewayAWebhook: { data: r.InboundReceived, signedWith: 'gatewayASignature' },
  handleGatewayAWebhookEnhanced: { data: r.InboundReceived, signedWith: 'gatewayASignature' },
  handleGatewayASubscriptionWebhook: { data: r.InboundReceived, signedWith: 'gatewayASignature' },
  handleGatewayBWebhook: { data: r.InboundReceived, signedWith: 'gatewayBSignature' },
  messagingWebhookVerification: { document: 'text', errors: ['forbidden'] },
  messagingWebhookNotification: { data: r.InboundReceived, signedWith: 'messagingSignature' },
};

/** The operation's answer; a route without one is a mistake the document refuses to hide. */
export function answerOf(route: HttpRouteEntry): Answer {
  const answer = answers[route.name];
  if (answer === undefined) throw new Error(`No answer is declared for ${route.name}`);
  return answer;
}

/** Every error code the operation can answer, the generic ones first. */
export function errorsOf(route: HttpRouteEntry): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  if (route.surface === 'function-url') {
    codes.add('invalid_request');
    if (route.method === 'POST') codes.add('invalid_signature').add('payload_too_large');
    // Any other method on a receiver's URL.
    codes.add('not_found');
  } else if (route.body !== undefined || route.query !== undefined || route.path.includes('{')) {
    codes.add('invalid_request');
  }
  if (route.surface === 'api' && route.body !== undefined) codes.add('payload_too_large');
  if (route.auth === 'user' || route.auth === 'user-if-generic') {
    codes.add('unauthorized').add('invalid_token');
  }
  for (const code of answerOf(route).errors ?? []) codes.add(code);
  if (route.surface === 'api') codes.add('rate_limited');
  codes.add('internal_error');
  return [...codes];
}
