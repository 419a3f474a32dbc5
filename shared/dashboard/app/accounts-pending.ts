import type { User as DocumentedUser, paths } from '../../http/client/api-types.js';

/**
 * What the account page uses of contract.md's second round ("Identity lifecycle") that the
 * OpenAPI document does not describe yet: the session routes, pending email and phone changes
 * confirmed with the current password, the password a pre-empted signup must choose. They are
 * being built in the accounts work; once it lands, `npm run client:generate` types them from the
 * document and this file is deleted (api.ts then creates its client over `paths` alone), so any
 * difference between these assumptions and the real answers becomes a compile error.
 */

export interface SessionRecord {
  id: string;
  created_at: string;
  last_used_at: string;
  user_agent: string | null;
  ip_address: string | null;
  current: boolean;
}

export type User = DocumentedUser & {
  pending_email?: string | null;
  pending_phone?: string | null;
};

type NoParameters = { query?: never; header?: never; path?: never; cookie?: never };

type Json<Body> = { content: { 'application/json': Body } };

type Operation<Success, Parameters = NoParameters> = {
  parameters: Parameters;
  requestBody?: never;
  responses: { 200: { headers: { [name: string]: unknown } } & Json<Success> };
};

type Route<Methods> = { parameters: NoParameters } & Methods;

interface PendingPaths {
  '/auth/sessions': Route<{
    get: Operation<{ success: true; data: SessionRecord[] }>;
  }>;
  '/auth/sessions/{id}': Route<{
    delete: Operation<
      { success: true; data: { message: string } },
      { query?: never; header?: never; path: { id: string }; cookie?: never }
    >;
  }>;
  '/auth/logout-all': Route<{
    post: Operation<{ success: true; data: { message: string } }>;
  }>;
  '/profile/update': {
    put: {
      requestBody: Json<{ current_password?: string }>;
      responses: { 200: Json<{ data: { user: User } }> };
    };
  };
  '/auth/verify-signup-otp': {
    post: { responses: { 200: Json<{ data: { password_reset_required?: boolean } }> } };
  };
}

type ChangePassword = paths['/auth/change-password'];

/** current_password may be left out: the pre-empted signup's owner chooses a first password. */
type ChangePasswordPending = Omit<ChangePassword, 'post'> & {
  post: Omit<ChangePassword['post'], 'requestBody'> & {
    requestBody: Json<{ current_password?: string; new_password: string }>;
  };
};

/** The documented paths, with what the accounts work adds. */
export type DashboardPaths = Omit<paths, '/auth/change-password'> &
  PendingPaths & { '/auth/change-password': ChangePasswordPending };
